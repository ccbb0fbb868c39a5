import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { exprArb, selectArb } from './ast-arbitrary.js';
import type { Expr, SelectQuery, TableExpr } from '../../../shared/core/sql/ast.js';
import { parseSelect } from '../../../shared/core/sql/parse.js';
import { printSelect } from '../../../shared/core/sql/print.js';
import {
  childrenOf,
  equalExpr,
  equalStatement,
  exprsOfSelect,
  forEachSelect,
  mapClausesShared,
  mapEverySelect,
  mapFromTables,
  mapExpr,
  mapSelectExprs,
  rewriteExpr,
  SKIP,
  walkExpr,
  walkStatement,
} from '../../../shared/core/sql/visit.js';

const col = (...parts: string[]): Expr => ({ kind: 'column', parts });
const int = (v: string): Expr => ({ kind: 'literal', type: 'integer', value: v });
const fn = (name: string, args: Expr[], extra: Partial<Expr> = {}): Expr => ({ kind: 'function', name, args, ...extra }) as Expr;
const sub = (q: SelectQuery): Expr => ({ kind: 'subquery', query: q });
const sel = (over: Partial<SelectQuery>): SelectQuery => ({ kind: 'select', distinct: false, withTotals: false, columns: [], ...over });

describe('walkExpr', () => {
  const inner = sel({ columns: [col('z')], where: fn('equals', [col('w'), int('1')]) });
  const e = fn('and', [fn('in', [col('a'), sub(inner)]), fn('plus', [col('b'), int('2')], { alias: 'p' })]);

  it('visits every node pre-order, left to right, without entering subqueries by default', () => {
    const seen: string[] = [];
    walkExpr(e, (x) => void seen.push(x.kind === 'column' ? x.parts.join('.') : x.kind === 'function' ? x.name : x.kind === 'literal' ? x.value : x.kind));
    expect(seen).toEqual(['and', 'in', 'a', 'subquery', 'plus', 'b', '2']);
  });

  it('enters subqueries when asked', () => {
    const cols: string[] = [];
    walkExpr(e, (x) => void (x.kind === 'column' && cols.push(x.parts[0]!)), { subqueries: true });
    expect(cols).toEqual(['a', 'z', 'w', 'b']);
  });

  it('skips children when fn returns false and reports parents', () => {
    const seen: string[] = [];
    walkExpr(e, (x, parent) => {
      if (x.kind === 'column') seen.push(`${x.parts[0]}<${parent?.kind === 'function' ? parent.name : '-'}`);
      return !(x.kind === 'function' && x.name === 'in');
    });
    expect(seen).toEqual(['b<plus']);
  });

  it('handles a 100k-item tuple without recursion trouble', () => {
    const items = Array.from({ length: 100_000 }, (_, i) => int(String(i)));
    let n = 0;
    walkExpr(fn('in', [col('k'), { kind: 'tuple', items }]), () => void n++);
    expect(n).toBe(100_003);
  });

  it('childrenOf covers case, cast, lambda, interval, params', () => {
    // biome-ignore lint/suspicious/noThenProperty: a CASE branch's THEN expression (an AST node, never a function)
    const c: Expr = { kind: 'case', operand: col('o'), whens: [{ when: int('1'), then: col('t') }], else: col('e') };
    expect(childrenOf(c)).toHaveLength(4);
    expect(childrenOf({ kind: 'cast', expr: col('x'), type: 'UInt8', syntax: 'as' })).toEqual([col('x')]);
    expect(childrenOf({ kind: 'lambda', params: ['x'], body: col('x') })).toEqual([col('x')]);
    expect(childrenOf({ kind: 'interval', value: int('1'), unit: 'DAY' })).toEqual([int('1')]);
    expect(childrenOf(fn('quantile', [col('x')], { params: [int('1')] } as Partial<Expr>))).toEqual([int('1'), col('x')]);
  });
});

describe('mapExpr', () => {
  it('returns a rewritten copy and leaves the input untouched', () => {
    const e = fn('plus', [col('t', 'a'), fn('multiply', [col('a'), int('2')])]);
    const before = structuredClone(e);
    const out = mapExpr(e, (x) => (x.kind === 'column' ? { kind: 'column', parts: [x.parts.at(-1)!.toUpperCase()] } : undefined));
    expect(e).toEqual(before);
    expect(out).toEqual(fn('plus', [col('A'), fn('multiply', [col('A'), int('2')])]));
    // no shared objects
    (out as { args: Expr[] }).args[1] = int('9');
    expect(e).toEqual(before);
  });

  it('maps into subqueries only when asked', () => {
    const e = fn('in', [col('a'), sub(sel({ columns: [col('a')] }))]);
    const rename = (x: Expr): Expr | undefined => (x.kind === 'column' ? col('b') : undefined);
    const shallow = mapExpr(e, rename) as { args: Expr[] };
    expect(shallow.args[0]).toEqual(col('b'));
    expect((shallow.args[1] as { query: SelectQuery }).query.columns).toEqual([col('a')]);
    const deep = mapExpr(e, rename, { subqueries: true }) as { args: Expr[] };
    expect((deep.args[1] as { query: SelectQuery }).query.columns).toEqual([col('b')]);
  });
});

const SEED = Number(process.env.FC_SEED ?? Math.floor(Math.random() * 2 ** 31));
console.log(`visit: FC_SEED=${SEED}`);

describe('rewriteExpr (structure-sharing)', () => {
  it('returns the same object when nothing changes, and new nodes only along the changed path', () => {
    const left = fn('multiply', [col('a'), int('2')]);
    const right = fn('minus', [col('b'), int('3')]);
    const e = fn('plus', [left, right]);
    expect(rewriteExpr(e, () => undefined)).toBe(e);
    const out = rewriteExpr(e, (x) => (x.kind === 'column' && x.parts[0] === 'b' ? col('B') : undefined)) as { args: Expr[] };
    expect(out).not.toBe(e);
    expect(out.args[0]).toBe(left);
    expect(out.args[1]).toEqual(fn('minus', [col('B'), int('3')]));
    expect(e).toEqual(fn('plus', [fn('multiply', [col('a'), int('2')]), fn('minus', [col('b'), int('3')])]));
  });

  it('SKIP keeps a node without entering it; subqueries are not entered', () => {
    const e = fn('and', [fn('f', [col('a')]), fn('in', [col('a'), sub(sel({ columns: [col('a')] }))])]);
    const renamed = rewriteExpr(e, (x) => (x.kind === 'function' && x.name === 'f' ? SKIP : x.kind === 'column' ? col('z') : undefined)) as { args: Expr[] };
    expect(renamed.args[0]).toBe((e as { args: Expr[] }).args[0]);
    const inList = renamed.args[1] as { args: Expr[] };
    expect(inList.args[0]).toEqual(col('z'));
    expect(inList.args[1]).toBe(((e as { args: Expr[] }).args[1] as { args: Expr[] }).args[1]);
  });

  it('gives the same tree as the copying mapExpr, for any expression and replacement (property)', () => {
    const upper = (x: Expr): Expr | undefined => (x.kind === 'column' ? { ...x, parts: x.parts.map((p) => p.toUpperCase()) } : undefined);
    fc.assert(
      fc.property(exprArb, (e) => {
        const before = structuredClone(e);
        const shared = rewriteExpr(e, upper);
        const copied = mapExpr(e, upper);
        expect(equalExpr(shared, copied, { strict: true })).toBe(true);
        expect(e).toEqual(before);
        expect(rewriteExpr(e, () => undefined)).toBe(e);
      }),
      { seed: SEED, numRuns: 300 },
    );
  });
});

describe('exprsOfSelect / mapSelectExprs', () => {
  const q = sel({
    with: [{ name: 'w', expr: int('1') }],
    columns: [col('a'), col('b')],
    from: {
      table: { kind: 'table', table: 't', sample: { ratio: int('1') } },
      joins: [{ global: false, type: 'LEFT', table: { kind: 'table', table: 'u' }, using: [col('a')] }],
      arrayJoin: { left: false, exprs: [col('arr')] },
    },
    prewhere: col('p'),
    where: col('w'),
    groupBy: [col('a')],
    having: col('h'),
    orderBy: [{ expr: col('o'), direction: 'DESC' }],
    limitBy: { limit: int('1'), by: [col('lb')] },
    limit: { limit: int('10'), offset: int('5') },
    settings: [{ name: 'max_threads', value: int('2') }],
  });

  it('lists top-level expressions per clause in source order', () => {
    expect(exprsOfSelect(q).map((x) => x.clause)).toEqual([
      'with',
      'columns',
      'columns',
      'sample',
      'arrayJoin',
      'joinUsing',
      'prewhere',
      'where',
      'groupBy',
      'having',
      'orderBy',
      'limitBy',
      'limitBy',
      'limit',
      'limit',
      'settings',
    ]);
  });

  it('mapSelectExprs rewrites chosen clauses on a copy', () => {
    const before = structuredClone(q);
    const out = mapSelectExprs(q, (e, clause) => (clause === 'where' || clause === 'prewhere' ? fn('not', [e]) : e));
    expect(q).toEqual(before);
    expect(out.where).toEqual(fn('not', [col('w')]));
    expect(out.prewhere).toEqual(fn('not', [col('p')]));
    expect(out.columns).toEqual(q.columns);
  });

  it('mapClausesShared maps every clause mapSelectExprs maps, in the same order, and shares what it leaves alone', () => {
    const seen: string[] = [];
    const shared = mapClausesShared(q, (e, clause) => {
      seen.push(clause);
      return clause === 'where' ? fn('not', [e]) : e;
    });
    const copiedOrder: string[] = [];
    const copied = mapSelectExprs(q, (e, clause) => {
      copiedOrder.push(clause);
      return clause === 'where' ? fn('not', [e]) : e;
    });
    expect(seen).toEqual(copiedOrder);
    expect(equalStatement(shared, copied, { strict: true })).toBe(true);
    expect(shared.from!.joins[0]!.table).toBe(q.from!.joins[0]!.table);
    expect(copied.from!.joins[0]!.table).not.toBe(q.from!.joins[0]!.table);
    expect(shared.where).not.toBe(q.where);
  });

  it('mapClausesShared and mapSelectExprs agree on any statement (property)', () => {
    fc.assert(
      fc.property(selectArb, (s) => {
        const f = (e: Expr): Expr => fn('identity', [e]);
        expect(equalStatement(mapClausesShared(s, f), mapSelectExprs(s, f), { strict: true })).toBe(true);
      }),
      { seed: SEED, numRuns: 200 },
    );
  });

  it('walkStatement reaches FROM subqueries when asked', () => {
    const outer = sel({ columns: [col('x')], from: { table: { kind: 'subqueryTable', query: sel({ columns: [col('y')] }) }, joins: [] } });
    const names: string[] = [];
    walkStatement(outer, (e) => void (e.kind === 'column' && names.push(e.parts[0]!)));
    expect(names).toEqual(['x']);
    names.length = 0;
    walkStatement(outer, (e) => void (e.kind === 'column' && names.push(e.parts[0]!)), { subqueries: true });
    expect(names).toEqual(['x', 'y']);
  });
});

describe('equalExpr', () => {
  it('ignores pos, alias and operator spelling by default', () => {
    const a = fn('plus', [col('a'), int('1')], { operator: '+', alias: 'x', pos: { line: 1, column: 1, offset: 0 } } as Partial<Expr>);
    const b = fn('plus', [col('a'), int('1')]);
    expect(equalExpr(a, b)).toBe(true);
    expect(equalExpr(a, b, { strict: true })).toBe(false);
    expect(equalExpr({ kind: 'tuple', items: [int('1')], explicit: true }, { kind: 'tuple', items: [int('1')] })).toBe(true);
  });
  it('sees real differences', () => {
    expect(equalExpr(fn('plus', [col('a'), int('1')]), fn('plus', [col('a'), int('2')]))).toBe(false);
    expect(equalExpr(fn('plus', [col('a'), int('1')]), fn('minus', [col('a'), int('1')]))).toBe(false);
    expect(equalExpr(col('t', 'a'), col('a'))).toBe(false);
    expect(equalExpr(fn('count', [col('a')], { distinct: true } as Partial<Expr>), fn('count', [col('a')]))).toBe(false);
    expect(equalExpr(sub(sel({ columns: [col('a')] })), sub(sel({ columns: [col('b')] })))).toBe(false);
  });
});

describe('copies are cheap enough for per-shard rewrites', () => {
  it('cloneAst and mapExpr copy a 1,000-value IN list deeply, in well under a millisecond (best of 30)', async () => {
    const { parseSelect } = await import('../../../shared/core/sql/parse.js');
    const { cloneAst } = await import('../../../shared/core/sql/ast.js');
    const q = parseSelect(`SELECT count() FROM t WHERE k IN (${Array.from({ length: 1000 }, (_, i) => `'s-${i}'`).join(', ')})`) as SelectQuery;
    const c = cloneAst(q);
    expect(c).toEqual(q);
    expect(c.where).not.toBe(q.where);
    ((c.where as { args: Expr[] }).args[0] as { parts: string[] }).parts[0] = 'changed';
    expect(((q.where as { args: Expr[] }).args[0] as { parts: string[] }).parts[0]).toBe('k');
    const best = (f: () => void): number => {
      let m = Infinity;
      for (let i = 0; i < 30; i++) {
        const t0 = performance.now();
        f();
        m = Math.min(m, performance.now() - t0);
      }
      return m;
    };
    // The bound is several times the cost on an idle machine (structuredClone alone would exceed it).
    expect(best(() => cloneAst(q))).toBeLessThan(1);
    expect(best(() => mapExpr(q.where!, () => undefined))).toBeLessThan(1);
  });
});

describe('forEachSelect / mapEverySelect', () => {
  // Each SELECT reads one table named after it, so the order of the visits reads off the names.
  const SQL =
    'WITH (SELECT max(x) FROM w) AS m SELECT a FROM (SELECT a FROM f UNION ALL SELECT a FROM u) AS s JOIN (SELECT a FROM j) AS r USING a ' +
    'WHERE a IN (SELECT a FROM i WHERE a > (SELECT 1 FROM d)) ORDER BY (SELECT 1 FROM o)';
  const tableOf = (q: SelectQuery) => (q.from?.table.kind === 'table' ? q.from.table.table : '·');
  it('visits every SELECT at any depth, outer ones first', () => {
    const seen: string[] = [];
    forEachSelect(parseSelect(SQL), (q) => seen.push(tableOf(q)));
    expect([...seen].sort()).toEqual(['·', 'd', 'f', 'i', 'j', 'o', 'u', 'w'].sort());
    expect(seen[0]).toBe('·');
    expect(seen.indexOf('i')).toBeLessThan(seen.indexOf('d'));
  });
  it('maps every SELECT innermost first, each seeing its subqueries mapped, and shares a statement it leaves alone', () => {
    const stmt = parseSelect(SQL);
    const order: string[] = [];
    const out = mapEverySelect(stmt, (q) => {
      order.push(tableOf(q));
      return { ...q, limit: { limit: int('7') } };
    });
    expect(order.indexOf('d')).toBeLessThan(order.indexOf('i'));
    expect(order.at(-1)).toBe('·');
    expect(printSelect(out).match(/LIMIT 7/g)?.length).toBe(8);
    expect(printSelect(stmt)).not.toMatch(/LIMIT/);
    expect(mapEverySelect(stmt, (q) => q).kind).toBe('select');
  });
  it("maps FROM's table and each JOIN's, and leaves a SELECT without FROM as it is", () => {
    const q = parseSelect('SELECT 1 FROM a JOIN b USING k JOIN (SELECT k FROM c) AS s USING k') as SelectQuery;
    const upper = (t: TableExpr) => (t.kind === 'table' ? { ...t, table: t.table.toUpperCase() } : t);
    expect(printSelect(mapFromTables(q, upper))).toMatch(/FROM A .*JOIN B .*JOIN \(SELECT k FROM c\) AS s/);
    const bare = parseSelect('SELECT 1') as SelectQuery;
    expect(mapFromTables(bare, upper)).toBe(bare);
  });
});
