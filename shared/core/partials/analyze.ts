// Normalizes a SELECT before the split: SELECT aliases and WITH scalars substituted where they are
// used (ClickHouse aliases are global), positional GROUP BY / ORDER BY (`GROUP BY 1`) resolved,
// constructs we cannot scatter refused with UNSUPPORTED and a position, and the aggregate calls
// collected (deduplicated by their canonical text, as ClickHouse computes `count()` once).
import type { Expr, FunctionCall, SelectQuery, Pos } from '../sql/ast.js';
import { ScatterError } from '../errors.js';
import { columnName, qualifiersOf } from '../sql/names.js';
import { canon } from './ast-build.js';
import { rewriteExpr, walkExpr } from '../sql/visit.js';
import { isAggregateCall } from './families/index.js';

function posOf(p: Pos | undefined) {
  return p ? { line: p.line, column: p.column } : undefined;
}
export function unsupportedAt(msg: string, p?: Pos): ScatterError {
  return new ScatterError('UNSUPPORTED', msg, { position: posOf(p) });
}

export interface Normalized {
  /**
   * SELECT expressions: `name` is the alias, `outName` the result column's name as ClickHouse gives
   * it (the alias, else shared/core/sql/names.ts's columnName), `written` the expression as written and
   * `expr` with aliases substituted (to compute).
   */
  columns: { name?: string; outName: string; written: Expr; expr: Expr }[];
  groupBy: Expr[];
  having?: Expr;
  /** WHERE / PREWHERE with SELECT aliases substituted (the shard query has other SELECT columns). */
  where?: Expr;
  prewhere?: Expr;
  orderBy: { expr: Expr; direction: 'ASC' | 'DESC'; nulls?: 'FIRST' | 'LAST' }[];
  limitBy?: { limit: number; offset: number; by: Expr[] };
  limit?: number;
  offset: number;
  aggregates: FunctionCall[];
  isAggregate: boolean;
  hasAsterisk: boolean;
}

function constInt(e: Expr | undefined, what: string): number | undefined {
  if (!e) return undefined;
  if (e.kind === 'literal' && e.type === 'integer') {
    const n = Number(e.value);
    if (Number.isSafeInteger(n)) return n;
    // A limit past 2^53 rows (OFFSET alone is LIMIT 2^64-1) keeps every row there is.
    if (/^\d+$/.test(e.value)) return Number.MAX_SAFE_INTEGER;
  }
  throw unsupportedAt(`${what} must be an integer literal`, e.pos);
}

export function normalize(q: SelectQuery): Normalized {
  if (q.withTotals) throw unsupportedAt('WITH TOTALS', q.pos);
  if (q.groupByModifier) throw unsupportedAt(`GROUP BY ... WITH ${q.groupByModifier}`, q.pos);
  if (q.groupingSets) throw unsupportedAt('GROUP BY GROUPING SETS', q.pos);
  if (q.distinctOn) throw unsupportedAt('SELECT DISTINCT ON', q.pos);
  if (q.limit?.withTies) throw unsupportedAt('LIMIT ... WITH TIES', q.pos);
  for (const o of q.orderBy ?? []) {
    if (o.withFill) throw unsupportedAt('ORDER BY ... WITH FILL', o.expr.pos);
    if (o.collate) throw unsupportedAt('ORDER BY ... COLLATE', o.expr.pos);
  }
  // Alias table: SELECT aliases and WITH <expr> AS <name> scalars.
  const aliases = new Map<string, Expr>();
  for (const w of q.with ?? []) {
    if (w.cte || w.expr.kind === 'subquery') throw unsupportedAt(`WITH ${w.name} AS (subquery)`, w.expr.pos);
    aliases.set(w.name, w.expr);
  }
  const collectAliases = (e: Expr) =>
    walkExpr(e, (x) => {
      if (x.alias && x.kind !== 'lambda') aliases.set(x.alias, x);
    });
  for (const c of q.columns) collectAliases(c);

  // `inside`: the aliases being substituted, in the order entered.
  const subst = (e: Expr, depth = 0, inside = new Set<string>()): Expr =>
    rewriteExpr(e, (x) => {
      // A definition first: `status AS site` is the item site, not a reference to an alias status.
      if (x.alias && aliases.get(x.alias) === x && !inside.has(x.alias)) {
        const inner = new Set(inside);
        inner.add(x.alias);
        const { alias: _a, ...rest } = x as Expr & { alias?: string };
        return subst(rest as Expr, depth + 1, inner);
      }
      if (x.kind === 'column' && x.parts.length === 1 && aliases.has(x.parts[0]!)) {
        const name = x.parts[0]!;
        // `sum(x) AS x`: inside its own definition `x` is the table column. A name met again through
        // other aliases (`status AS site, site AS status`) is a cycle, which the general path reads.
        if (inside.has(name)) {
          if ([...inside].pop() === name) return undefined;
          throw unsupportedAt(`a cycle of aliases (${[...inside, name].join(' -> ')})`, x.pos);
        }
        if (depth > 32) throw unsupportedAt('alias cycle', x.pos);
        const target = aliases.get(name)!;
        const inner = new Set(inside);
        inner.add(name);
        const { alias: _a, ...rest } = target as Expr & { alias?: string };
        return subst(rest as Expr, depth + 1, inner);
      }
      return undefined;
    });

  const qualifiers = qualifiersOf(q);
  const columns = q.columns.map((c) => ({ name: c.alias, outName: columnName(c, { qualifiers }), written: c, expr: subst(c) }));
  const hasAsterisk = q.columns.some((c) => c.kind === 'asterisk');
  const positional = (e: Expr): Expr => {
    if (e.kind === 'literal' && e.type === 'integer' && !hasAsterisk) {
      const n = Number(e.value);
      if (n >= 1 && n <= columns.length) return columns[n - 1]!.expr;
    }
    return subst(e);
  };
  const groupBy: Expr[] = [];
  for (const g of q.groupBy ?? []) {
    const e = positional(g);
    if (!groupBy.some((x) => canon(x) === canon(e))) groupBy.push(e);
  }
  const having = q.having ? subst(q.having) : undefined;
  const orderBy = (q.orderBy ?? []).map((o) => ({ expr: positional(o.expr), direction: o.direction, nulls: o.nulls }));
  const limitBy = q.limitBy
    ? { limit: constInt(q.limitBy.limit, 'LIMIT BY')!, offset: constInt(q.limitBy.offset, 'LIMIT BY offset') ?? 0, by: q.limitBy.by.map((b) => subst(b)) }
    : undefined;
  const limit = constInt(q.limit?.limit, 'LIMIT');
  const offset = constInt(q.limit?.offset, 'OFFSET') ?? 0;

  const aggregates: FunctionCall[] = [];
  const seen = new Set<string>();
  const collect = (e: Expr, where: string) =>
    walkExpr(e, (x) => {
      if (x.kind === 'subquery') throw unsupportedAt(`a scalar subquery in ${where}`, x.pos);
      if (x.kind === 'function' && isAggregateCall(x)) {
        for (const a of x.args) {
          walkExpr(a, (y) => {
            if (y.kind === 'function' && isAggregateCall(y)) throw unsupportedAt(`aggregate function ${y.name} inside another aggregate`, y.pos);
          });
        }
        const k = canon(x);
        if (!seen.has(k)) {
          seen.add(k);
          aggregates.push(x);
        }
        return false;
      }
      return undefined;
    });
  for (const c of columns) collect(c.expr, 'SELECT');
  if (having) collect(having, 'HAVING');
  for (const o of orderBy) collect(o.expr, 'ORDER BY');
  for (const b of limitBy?.by ?? []) collect(b, 'LIMIT BY');
  for (const [clause, e] of [
    ['WHERE', q.where],
    ['PREWHERE', q.prewhere],
  ] as const) {
    if (!e) continue;
    walkExpr(e, (x) => {
      if (x.kind === 'function' && isAggregateCall(x)) throw unsupportedAt(`aggregate function ${x.name} in ${clause}`, x.pos);
    });
  }
  for (const g of groupBy) {
    walkExpr(g, (x) => {
      if (x.kind === 'function' && isAggregateCall(x)) throw unsupportedAt(`aggregate function ${x.name} in GROUP BY`, x.pos);
    });
  }
  // ClickHouse aggregates only when there is an aggregate or GROUP BY; HAVING alone filters rows.
  const isAggregate = aggregates.length > 0 || groupBy.length > 0;
  if (isAggregate && hasAsterisk) throw unsupportedAt('SELECT * with GROUP BY or aggregates', q.pos);
  const where = q.where ? subst(q.where) : undefined;
  const prewhere = q.prewhere ? subst(q.prewhere) : undefined;
  return { columns, groupBy, having, where, prewhere, orderBy, limitBy, limit, offset, aggregates, isAggregate, hasAsterisk };
}
