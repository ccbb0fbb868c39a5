// ClickHouse must read the SQL we print the way we meant it. For generated expression ASTs, the
// printed text goes through ClickHouse 26's own parser (`EXPLAIN AST`, parse only, on chdb) and
// the function tree ClickHouse builds is compared with ours: same functions, same nesting, same
// argument order. This catches precedence and quoting mistakes that a self-round-trip cannot.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Expr } from '../../../shared/core/sql/ast.js';
import { printExpr, printSelect } from '../../../shared/core/sql/print.js';
import { parseExpression, parseSelect } from '../../../shared/core/sql/parse.js';
import { walkExpr, walkStatement } from '../../../shared/core/sql/visit.js';
import { exprArb, statementArb } from '../../unit/sql/ast-arbitrary.js';
import { ROUND_TRIP_CORPUS } from './corpus.js';
import { openEngine, type SqlTestEngine } from './chdb-session.js';

let engine: SqlTestEngine;
beforeAll(() => {
  engine = openEngine('ch-reads');
  // A bare UNION is valid syntax whose mode the session settles; EXPLAIN AST asks for one.
  engine.session.query("SET union_default_mode = 'DISTINCT'");
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
    // `count(*)` keeps an Asterisk argument in ClickHouse's AST; ours is count().
    const argList = (lists[0]?.children ?? []).filter((c) => c.label !== 'Asterisk').map(renderCh);
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
      return `lambda(${foldConstants(
        'tuple',
        e.params.map(() => '?'),
      )}, ${r(e.body)})`;
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
  walkExpr(
    e,
    (x) => {
      if (x.kind === 'param') ok = false; // EXPLAIN AST refuses unset parameters
      // EXPLAIN AST prints names raw, one node per line: a newline inside a name breaks the tree text.
      const names = [x.alias ?? '', ...(x.kind === 'column' ? x.parts : []), ...(x.kind === 'lambda' ? x.params : [])];
      if (names.some((nm) => /[\r\n]/.test(nm))) ok = false;
      // `1::T` becomes CAST('1', 'T') and a cast of a negative literal folds differently: fine either way,
      // but a ::cast of a folded literal array/tuple is re-spelled by ClickHouse; skip those.
      if (x.kind === 'cast' && x.syntax === 'colons' && isConstant(x.expr) && x.expr.kind !== 'literal') ok = false;
    },
    { subqueries: true },
  );
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

  // The parser must also read what users write the way ClickHouse does (not only our own output).
  const TRICKY = [
    'a OR b AND c',
    'NOT a AND b',
    'NOT a = b',
    'a = 1 IS NULL',
    'NOT a IS NULL',
    'a BETWEEN 1 AND 2 AND c',
    'a NOT BETWEEN 1 AND 2 OR c',
    '-a * b',
    '-a.1',
    '-arr[1]',
    'a - -5',
    '- 5 + a',
    'a + b * c - d / e % f',
    'a || b || c = d',
    "a LIKE 'x' AND b",
    'a IN (1, 2) = 0',
    'a NOT IN (1) OR b GLOBAL NOT IN (2)',
    'a < b = c',
    't.1.2',
    '[[1]][1][1]',
    'x::UInt8 + 1',
    '-1::Int8',
    'a ? b : c',
    'a OR b ? c : d',
    'a = b ? c + 1 : d',
    'arrayMap(x -> x * 2, arr)',
    'arrayMap((x, y) -> x + y, a, b)',
    'CASE WHEN a THEN b WHEN c THEN d END',
    'CASE a WHEN 1 THEN 2 ELSE 3 END',
    'CAST(a AS Nullable(UInt8)) = 1',
    'INTERVAL 1 DAY + dt',
    'dt - INTERVAL 2 HOUR',
    "INTERVAL '3 day'",
    'count(DISTINCT a) + 1',
    'quantile(0.5)(a) * 2',
    'sum(a) / count()',
    'a MOD 2 DIV 3',
    'a == b != c',
    'NOT NOT a',
    'a AND NOT b OR NOT c AND d',
    '(a, b) IN ((1, 2))',
    'a IN (SELECT 1) AND b',
    'tuple(1, 2).1',
    "s NOT ILIKE 'x' AND s REGEXP 'y'",
    'a IS NOT NULL AND b IS NULL',
    'f(a AS x, x + 1)',
    '-(-a)',
    '-(5)',
    'a * (b + c)',
    '(a OR b) AND c',
    'NOT (a OR b)',
    'a <=> b',
    'x -> x',
  ];
  it('hand-written tricky expressions are read as ClickHouse reads them', () => {
    for (const text of TRICKY) {
      expect(renderOurs(parseExpression(text)), text).toBe(chTreeOfSelectItem(text));
    }
  });

  it('every corpus query, as written, is read as ClickHouse reads it', () => {
    let n = 0;
    for (const sql of ROUND_TRIP_CORPUS) {
      const q = parseSelect(sql);
      if (q.kind !== 'select' || /\bFORMAT\b|SETTINGS/.test(sql) || !q.columns.every((c) => c.kind !== 'asterisk' && comparable(c))) continue;
      const tree = parseExplain(engine.session.query(`EXPLAIN AST ${sql.replace(/;\s*$/, '')}`, 'TSVRaw'));
      const sq = findNode(tree, 'SelectQuery')!;
      const items = sq.children[q.with ? 1 : 0]!.children; // [WITH list,] select list, ...
      expect(items.map(renderCh), sql).toEqual(q.columns.map(renderOurs));
      n++;
    }
    expect(n).toBeGreaterThan(100);
  });
});

function findNode(n: Node, prefix: string): Node | undefined {
  if (n.label.startsWith(prefix)) return n;
  for (const c of n.children) {
    const hit = findNode(c, prefix);
    if (hit) return hit;
  }
  return undefined;
}

describe('generated statements are valid ClickHouse syntax', () => {
  it('EXPLAIN AST accepts every printed statement', () => {
    let checked = 0;
    fc.assert(
      fc.property(statementArb, (st) => {
        let ok = true;
        walkStatement(
          st,
          (x) => {
            if (!comparable(x)) ok = false;
          },
          { subqueries: true },
        );
        if (!ok) return;
        const text = printSelect(st);
        checked++;
        try {
          engine.session.query(`EXPLAIN AST ${text}`, 'TSVRaw');
        } catch (e) {
          throw new Error(`ClickHouse refused: ${text}\n${String(e).slice(0, 300)}`);
        }
      }),
      { numRuns: Number(process.env.SQL_FUZZ_RUNS ?? 500) },
    );
    expect(checked).toBeGreaterThan(200);
  });
});
