// Query-then-fetch for `ORDER BY ... LIMIT k` row queries whose rows are wide. Round one asks every
// shard for the sort keys only (`SELECT keys ... ORDER BY keys LIMIT 1 OFFSET offset+k`, merged by the
// fast path): the answer is the boundary B, the sort key of the first row after the page. Round two
// is the query itself with `NOT (sort key after B)` AND-ed last to its WHERE: every row of the
// one-round answer, and the row after it, sorts at or before B, so the added condition removes none
// of them, and the query's own ORDER BY, tie-breaker and LIMIT pick exactly the rows (and the tie
// order) the one-round path picks, and see that more follow (the page's cursor). Each shard then
// ships only its rows up to B: about offset+k+1 rows in all instead of offset+k per shard. The
// identity of a row is its sort key; no unique key is needed, ties stay exact.
import type { SettingValue } from '../clickhouse/port.js';
import { normalize, type Normalized } from '../partials/analyze.js';
import { fn, int } from '../partials/ast-build.js';
import { afterPredicate, type CursorKey } from '../partials/cursor.js';
import { cloneAst, type Expr, type SelectQuery, type SelectStatement } from '../sql/ast.js';
import { walkExpr } from '../sql/visit.js';
import { errorAt } from './position.js';
import type { RowWidth } from './row-width.js';
import { askedSetting, queryThenFetchModeOf, rowBytesOf, type QueryThenFetchMode } from './settings.js';

export const QUERY_THEN_FETCH_SETTING = 'ch_scatter_query_then_fetch';
/** The estimated bytes per row (beyond its sort keys) over which `auto` runs two rounds; the config's query.queryThenFetchRowBytes by default. */
export const QUERY_THEN_FETCH_ROW_BYTES_SETTING = 'ch_scatter_query_then_fetch_row_bytes';
/** Round one's sort-key columns, by position in ORDER BY. */
export const BOUNDARY_ALIAS = (i: number) => `_qtf_o${i}`;

export interface QueryThenFetchInfo {
  /** Whether round two ran (the answer's rows came from the narrowed query). */
  applied: boolean;
  /** How two rounds were chosen: asked for (`on`), or by the width estimate (`auto`). */
  mode?: 'auto' | 'on';
  /** `auto`: the estimated bytes per row beyond the sort keys, and the threshold it was compared with. */
  rowBytes?: number;
  thresholdBytes?: number;
  /** Why the query ran in one round, when asked for two (or why `auto` chose one, in /explain). */
  reason?: string;
  /** Round one's statement over the distributed table. */
  roundSql?: string;
  round1?: { shards: number; rows: number; bytes: number; elapsedMs: number };
  /** /explain: how round two is bounded. */
  round2?: string;
}

export type QueryThenFetchEligibility = { ok: true; query: SelectQuery; n: Normalized } | { ok: false; reason: string };

/** Whether the request asks for two rounds, one, or leaves it to the width estimate (the default). */
export function requestedQueryThenFetch(requestSettings: Record<string, SettingValue> | undefined, stmt: SelectStatement | undefined): QueryThenFetchMode {
  const { raw, node } = askedSetting(QUERY_THEN_FETCH_SETTING, requestSettings, stmt);
  if (raw === undefined) return 'auto';
  const mode = queryThenFetchModeOf(raw);
  if (!mode) throw errorAt('BAD_REQUEST', `${QUERY_THEN_FETCH_SETTING} must be 'auto', 1 or 0`, node);
  return mode;
}

/** `auto`'s threshold: the request's setting, else the configured default. */
export function queryThenFetchRowBytes(
  requestSettings: Record<string, SettingValue> | undefined,
  stmt: SelectStatement | undefined,
  configured: number,
): number {
  const { raw, node } = askedSetting(QUERY_THEN_FETCH_ROW_BYTES_SETTING, requestSettings, stmt);
  if (raw === undefined) return configured;
  const n = rowBytesOf(raw);
  if (n === undefined) throw errorAt('BAD_REQUEST', `${QUERY_THEN_FETCH_ROW_BYTES_SETTING} must be a non-negative integer of bytes`, node);
  return n;
}

/** `auto`'s verdict from the row-width estimate: two rounds only over the threshold; the info says both numbers (or why there is no estimate). */
export function chooseRounds(width: RowWidth, thresholdBytes: number): { twoRounds: boolean; info: QueryThenFetchInfo } {
  if ('unknown' in width)
    return { twoRounds: false, info: { applied: false, mode: 'auto', thresholdBytes, reason: `no row-width estimate: ${width.unknown}` } };
  const info: QueryThenFetchInfo = { applied: false, mode: 'auto', rowBytes: width.bytes, thresholdBytes };
  if (width.bytes > thresholdBytes) return { twoRounds: true, info };
  return { twoRounds: false, info: { ...info, reason: `rows of about ${width.bytes} bytes beyond their sort keys, not over ${thresholdBytes}` } };
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

/** Round one: each shard's sort keys, merged by the fast path to the one at position offset+k (0-based: the row after the page). */
export function boundaryQuery(e: { query: SelectQuery; n: Normalized }): SelectQuery {
  const { query: q, n } = e;
  const keys = n.orderBy.map((o) => ({ ...cloneAst(o.expr), alias: undefined }) as Expr);
  const r: SelectQuery = {
    kind: 'select',
    distinct: false,
    columns: keys.map((k, i) => ({ ...cloneAst(k), alias: BOUNDARY_ALIAS(i) }) as Expr),
    withTotals: false,
    orderBy: n.orderBy.map((o, i) => ({ expr: keys[i]!, direction: o.direction, ...(o.nulls ? { nulls: o.nulls } : {}) })),
    limit: { limit: int(1), offset: int(n.offset + n.limit!) },
  };
  if (q.with?.length) r.with = q.with;
  if (q.from) r.from = q.from;
  if (n.prewhere) r.prewhere = n.prewhere;
  if (n.where) r.where = n.where;
  if (q.settings) r.settings = q.settings;
  return r;
}

/** Round two: the query with `NOT (sort key after the boundary)` AND-ed last to its WHERE (a NULL comparison counts as not after). */
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
