// Node positions (1-based line/column, 0-based offset) are what UNSUPPORTED/TYPE_MISMATCH errors
// raised later by the planner point at, so they must be exact, across newlines in strings,
// comments and quoted identifiers.
import { describe, expect, it } from 'vitest';
import { parseSelect } from '../../../shared/core/sql/parse.js';
import type { Expr, SelectQuery } from '../../../shared/core/sql/ast.js';
import { walkStatement } from '../../../shared/core/sql/visit.js';

function find(q: SelectQuery, pred: (e: Expr) => boolean): Expr {
  let hit: Expr | undefined;
  walkStatement(
    q,
    (e) => {
      if (!hit && pred(e)) hit = e;
    },
    { subqueries: true },
  );
  if (!hit) throw new Error('not found');
  return hit;
}
const col = (name: string) => (e: Expr) => e.kind === 'column' && e.parts.at(-1) === name;
const fn = (name: string) => (e: Expr) => e.kind === 'function' && e.name === name;

describe('positions', () => {
  const sql =
    "SELECT a,\n  b + 1 AS c\nFROM db.t AS x\nWHERE k GLOBAL IN (SELECT k FROM u)\n  AND s = 'multi\nline' AND /* a\ncomment */ z > 2 AND `quoted\nname` = 1 AND tail = 0";
  const q = parseSelect(sql) as SelectQuery;
  const at = (e: { pos?: { line: number; column: number; offset: number } }) => e.pos;

  it('columns and operators', () => {
    expect(at(find(q, col('a')))).toEqual({ line: 1, column: 8, offset: 7 });
    expect(at(find(q, col('b')))).toEqual({ line: 2, column: 3, offset: 12 });
    expect(at(find(q, fn('plus')))).toEqual({ line: 2, column: 5, offset: 14 });
    expect(find(q, fn('plus')).alias).toBe('c');
  });

  it('GLOBAL IN points at GLOBAL; subquery expressions carry theirs', () => {
    expect(at(find(q, fn('globalIn')))).toMatchObject({ line: 4, column: 9 });
    expect(at(find(q, (e) => e.kind === 'subquery'))).toMatchObject({ line: 4, column: 19 });
    expect(at(find(q, col('k')))).toMatchObject({ line: 4, column: 7 });
  });

  it('tables', () => {
    expect(q.from?.table.pos).toMatchObject({ line: 3, column: 6 });
    expect(q.pos).toMatchObject({ line: 1, column: 1, offset: 0 });
  });

  it('lines advance through strings, comments and quoted identifiers with newlines', () => {
    expect(at(find(q, col('z')))).toMatchObject({ line: 7, column: 12 });
    expect(at(find(q, col('quoted\nname')))).toMatchObject({ line: 7, column: 22 });
    expect(at(find(q, col('tail')))).toMatchObject({ line: 8, column: 15 });
    for (const name of ['a', 'b', 'k', 'z', 'tail']) {
      const p = at(find(q, col(name)))!;
      expect(sql.slice(p.offset, p.offset + name.length)).toBe(name);
    }
  });

  it('a syntax error after multi-line tokens is located exactly', () => {
    try {
      parseSelect("SELECT 'x\ny', `a\nb`, /*\n*/ )");
      throw new Error('should fail');
    } catch (e) {
      expect((e as { position?: unknown }).position).toEqual({ line: 4, column: 4 });
    }
  });
});
