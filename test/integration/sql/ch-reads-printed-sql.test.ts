// ClickHouse must read the SQL we print the way we meant it. For generated expression ASTs, the
// printed text goes through ClickHouse 26's own parser (`EXPLAIN AST`, parse only, on chdb) and
// the function tree ClickHouse builds is compared with ours: same functions, same nesting, same
// argument order. This catches precedence and quoting mistakes that a self-round-trip cannot.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Expr } from '../../../shared/sql/ast.js';
import { printExpr } from '../../../shared/sql/print.js';
import { parseSelect } from '../../../shared/sql/parse.js';
import { walkExpr } from '../../../shared/sql/visit.js';
import { exprArb } from '../../unit/sql/ast-arbitrary.js';
import { ROUND_TRIP_CORPUS } from './corpus.js';
import { openEngine, type SqlTestEngine } from './chdb-session.js';

let engine: SqlTestEngine;
beforeAll(() => {
  engine = openEngine('ch-reads');
});
afterAll(() => engine?.close());

interface Node {
  label: string;
  children: Node[];
}

/** The indented `EXPLAIN AST` text as a tree (one space of indent per level). */
function parseExplain(text: string): Node {
  const root: Node = { label: 'root', children: [] };
  const stack: { depth: number; node: Node }[] = [{ depth: -1, node: root }];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const depth = line.length - line.trimStart().length;
    const node: Node = { label: line.trim(), children: [] };
    while (stack[stack.length - 1]!.depth >= depth) stack.pop();
    stack[stack.length - 1]!.node.children.push(node);
    stack.push({ depth, node });
  }
  return root;
}

// ClickHouse's tree in functional form; leaves (identifiers, literals) are '?'.
function renderCh(n: Node): string {
  const m = /^Function (\S+)/.exec(n.label);
  if (m) {
    const lists = n.children.filter((c) => c.label.startsWith('ExpressionList'));
    const argList = (lists[0]?.children ?? []).map(renderCh);
    if (lists.length === 1 && (m[1] === 'tuple' || m[1] === 'array')) return foldConstants(m[1], argList);
    const args = argList.join(', ');
    return lists.length > 1 ? `${m[1]}(${lists[1]!.children.map(renderCh).join(', ')})(${args})` : `${m[1]}(${args})`;
  }
  if (n.label.startsWith('Subquery')) return 'S';
  return '?';
}

// ClickHouse folds some arrays/tuples of literals into one Literal node and not others (`[]` in a
// tuple, `tuple(1)`): which ones is beside the point here, so both sides count a tuple/array made
// only of leaves as a leaf.
function foldConstants(fn: string, args: string[]): string {
  return args.every((a) => a === '?') ? '?' : `${fn}(${args.join(', ')})`;
}

function isConstant(e: Expr): boolean {
  if (e.kind === 'literal') return true;
  return (e.kind === 'array' || e.kind === 'tuple') && e.items.every((x) => isConstant(x));
}

function renderOurs(e: Expr): string {
  const r = renderOurs;
  switch (e.kind) {
    case 'literal':
    case 'column':
    case 'asterisk':
    case 'param':
      return '?';
    case 'array':
      return foldConstants('array', e.items.map(r));
    case 'tuple':
      return foldConstants('tuple', e.items.map(r));
    case 'subquery':
      return 'S';
    case 'function': {
      const name = e.distinct ? `${e.name}Distinct` : e.name;
      const args = e.args.map(r).join(', ');
      return e.params ? `${name}(${e.params.map(r).join(', ')})(${args})` : `${name}(${args})`;
    }
    case 'case': {
      const parts = [...(e.operand ? [r(e.operand)] : []), ...e.whens.flatMap((w) => [r(w.when), r(w.then)]), e.else ? r(e.else) : '?'];
      return `${e.operand ? 'caseWithExpression' : 'multiIf'}(${parts.join(', ')})`;
    }
    case 'cast':
      return `CAST(${r(e.expr)}, ?)`;
    case 'lambda':
      return `lambda(${foldConstants('tuple', e.params.map(() => '?'))}, ${r(e.body)})`;
    case 'interval':
      return `toInterval${e.unit.charAt(0)}${e.unit.slice(1).toLowerCase()}(${r(e.value)})`;
  }
}

function chTreeOfSelectItem(exprSql: string): string {
  const tree = parseExplain(engine.session.query(`EXPLAIN AST SELECT ${exprSql}`, 'TSVRaw'));
  // root > SelectWithUnionQuery > ExpressionList > SelectQuery > ExpressionList > item
  const item = tree.children[0]!.children[0]!.children[0]!.children[0]!.children[0]!;
  return renderCh(item);
}

// Shapes ClickHouse does not parse as an expression on its own or rewrites while parsing.
function comparable(e: Expr): boolean {
  let ok = true;
  walkExpr(e, (x) => {
    if (x.kind === 'param') ok = false; // EXPLAIN AST refuses unset parameters
    // EXPLAIN AST prints names raw, one node per line: a newline inside a name breaks the tree text.
    const names = [x.alias ?? '', ...(x.kind === 'column' ? x.parts : []), ...(x.kind === 'lambda' ? x.params : [])];
    if (names.some((nm) => /[\r\n]/.test(nm))) ok = false;
    // `1::T` becomes CAST('1', 'T') and a cast of a negative literal folds differently: fine either way,
    // but a ::cast of a folded literal array/tuple is re-spelled by ClickHouse; skip those.
    if (x.kind === 'cast' && x.syntax === 'colons' && isConstant(x.expr) && x.expr.kind !== 'literal') ok = false;
  }, { subqueries: true });
  return ok;
}

describe('ClickHouse parses printed expressions into the same function tree', () => {
  it('generated expressions', () => {
    let compared = 0;
    fc.assert(
      fc.property(exprArb, (e) => {
        if (!comparable(e)) return;
        const text = printExpr({ ...e, alias: undefined });
        compared++;
        expect(chTreeOfSelectItem(text), text).toBe(renderOurs(e));
      }),
      { numRuns: Number(process.env.SQL_FUZZ_RUNS ?? 800) },
    );
    expect(compared).toBeGreaterThan(300);
  });

  it('every expression of the round-trip corpus', () => {
    let n = 0;
    for (const sql of ROUND_TRIP_CORPUS) {
      const q = parseSelect(sql);
      const selects = q.kind === 'union' ? q.selects : [q];
      for (const s of selects) {
        for (const c of s.columns) {
          if (c.kind === 'asterisk' || !comparable(c)) continue;
          expect(chTreeOfSelectItem(printExpr({ ...c, alias: undefined })), sql).toBe(renderOurs(c));
          n++;
        }
      }
    }
    expect(n).toBeGreaterThan(200);
  });
});
