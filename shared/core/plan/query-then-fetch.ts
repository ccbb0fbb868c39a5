// Query-then-fetch for `ORDER BY ... LIMIT k` row queries whose rows are wide. Round one asks every
// shard for the sort keys only (`SELECT keys ... ORDER BY keys LIMIT 1 OFFSET offset+k-1`, merged by
// the fast path): the answer is the boundary B, the last sort key the final page can hold. Round two
// is the query itself with `NOT (sort key after B)` added to its WHERE: every row of the one-round
// answer sorts at or before B, so the added condition removes none of them, and the query's own
// ORDER BY, tie-breaker and LIMIT pick exactly the rows (and the tie order) the one-round path picks.
// Each shard then ships only its rows up to B: about offset+k rows in all instead of offset+k per
// shard. The identity of a row is its sort key; no unique key is needed, ties stay exact.
import type { SettingValue } from '../clickhouse/port.js';
import { normalize, type Normalized } from '../partials/analyze.js';
import { fn, int } from '../partials/ast-build.js';
import { afterPredicate, type CursorKey } from '../partials/cursor.js';
import { cloneAst, type Expr, type SelectQuery, type SelectStatement } from '../sql/ast.js';
import { walkExpr } from '../sql/visit.js';
import { ScatterError } from '../errors.js';
import { boolSetting } from '../clickhouse/setting-truth.js';
import { settingValueOf } from './settings.js';

export const QUERY_THEN_FETCH_SETTING = 'ch_scatter_query_then_fetch';
/** Round one's sort-key columns, by position in ORDER BY. */
export const BOUNDARY_ALIAS = (i: number) => `_qtf_o${i}`;

export interface QueryThenFetchInfo {
  /** Whether round two ran (the answer's rows came from the narrowed query). */
  applied: boolean;
  /** Why the query ran in one round, when asked for two. */
  reason?: string;
  /** Round one's statement over the distributed table. */
  roundSql?: string;
  round1?: { shards: number; rows: number; bytes: number; elapsedMs: number };
  /** /explain: how round two is bounded. */
  round2?: string;
}

export type QueryThenFetchEligibility = { ok: true; query: SelectQuery; n: Normalized } | { ok: false; reason: string };

/** Whether the request asks for two rounds: the SQL's SETTINGS clause over the request's settings; off by default. */
export function requestedQueryThenFetch(requestSettings: Record<string, SettingValue> | undefined, stmt: SelectStatement | undefined): boolean {
  const clause = (stmt?.settings ?? []).filter((s) => s.name === QUERY_THEN_FETCH_SETTING).pop();
  const raw = clause ? settingValueOf(clause.value, QUERY_THEN_FETCH_SETTING) : requestSettings?.[QUERY_THEN_FETCH_SETTING];
  if (raw === undefined) return false;
  const on = boolSetting(raw);
  if (on !== undefined) return on;
  throw new ScatterError('BAD_REQUEST', `${QUERY_THEN_FETCH_SETTING} must be 1 or 0`);
}

/** Any expression that would make round one's rows differ from the query's rows (one row per table row). */
function changesRows(e: Expr): boolean {
  let found = false;
  walkExpr(e, (x) => {
    if (x.kind === 'function' && (x.over || /^arrayJoin$/i.test(x.name))) found = true;
  });
  return found;
}

/** A row query over one table with ORDER BY and LIMIT, whose rows are table rows; else why not. */
export function queryThenFetchEligibility(stmt: SelectStatement, cursor: string | undefined): QueryThenFetchEligibility {
  const no = (reason: string): QueryThenFetchEligibility => ({ ok: false, reason });
  if (stmt.kind !== 'select') return no('a UNION');
  if (cursor) return no('a cursor page (the cursor already bounds each shard)');
  const q = stmt;
  if (q.distinct) return no('DISTINCT');
  if (q.limitBy) return no('LIMIT BY');
  if (q.limit?.withTies) return no('LIMIT ... WITH TIES');
  if (!q.orderBy?.length || !q.limit) return no('no ORDER BY ... LIMIT');
  if (q.from?.table.kind !== 'table' || q.from.joins.length || q.from.arrayJoin) return no('FROM is not one table');
  if (q.groupBy?.length || q.having || q.window?.length) return no('GROUP BY, HAVING or WINDOW');
  let n: Normalized;
  try {
    n = normalize(q);
  } catch {
    return no('a shape the fast path refuses');
  }
  if (n.isAggregate || n.limit === undefined) return no('an aggregate or no LIMIT');
  if ([...n.columns.map((c) => c.expr), ...n.orderBy.map((o) => o.expr)].some(changesRows)) return no('a window function or arrayJoin');
  return { ok: true, query: q, n };
}

/** Round one: each shard's sort keys, merged by the fast path to the one at position offset+k. */
export function boundaryQuery(e: { query: SelectQuery; n: Normalized }): SelectQuery {
  const { query: q, n } = e;
  const keys = n.orderBy.map((o) => ({ ...cloneAst(o.expr), alias: undefined }) as Expr);
  const r: SelectQuery = {
    kind: 'select',
    distinct: false,
    columns: keys.map((k, i) => ({ ...cloneAst(k), alias: BOUNDARY_ALIAS(i) }) as Expr),
    withTotals: false,
    orderBy: n.orderBy.map((o, i) => ({ expr: keys[i]!, direction: o.direction, ...(o.nulls ? { nulls: o.nulls } : {}) })),
    limit: { limit: int(1), offset: int(n.offset + n.limit! - 1) },
  };
  if (q.with?.length) r.with = q.with;
  if (q.from) r.from = q.from;
  if (n.prewhere) r.prewhere = n.prewhere;
  if (n.where) r.where = n.where;
  if (q.settings) r.settings = q.settings;
  return r;
}

/** Round two: the query with `NOT (sort key after the boundary)` in its WHERE (a NULL comparison counts as not after). */
export function fetchQuery(e: { query: SelectQuery; n: Normalized }, boundary: CursorKey[]): SelectQuery {
  const { query: q, n } = e;
  const after = afterPredicate(
    n.orderBy.map((o) => ({ ...cloneAst(o.expr), alias: undefined }) as Expr),
    n.orderBy.map((o) => ({ direction: o.direction, ...(o.nulls ? { nulls: o.nulls } : {}) })),
    boundary,
  );
  const upTo = fn('not', [fn('ifNull', [after, int(0)])]);
  return { ...q, where: q.where ? fn('and', [q.where, upTo]) : upTo };
}
