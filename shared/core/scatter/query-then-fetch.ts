// Query-then-fetch's round one, run by the request's session (shared/core/plan/query-then-fetch.ts
// says why round two is exact): the sort keys from every shard, merged by the fast path to the
// boundary key, under the query's one deadline. Round two is the narrowed query, run by the caller
// on the normal path. A shard missing from round one, a refusal, or a boundary that does not print
// back as a literal: the caller runs the query unchanged, in one round. With `auto` (the default)
// two rounds run only where the rows' estimated width beyond their sort keys is over the threshold
// (shared/core/plan/row-width.ts) and more than one shard is asked; otherwise the query runs as it
// would without query-then-fetch, and only /explain says why.
import { isScatterError } from '../errors.js';
import type { CursorKey } from '../partials/cursor.js';
import {
  BOUNDARY_ALIAS,
  boundaryQuery,
  chooseRounds,
  fetchQuery,
  queryThenFetchEligibility,
  queryThenFetchRowBytes,
  requestedQueryThenFetch,
  type QueryThenFetchEligibility,
  type QueryThenFetchInfo,
} from '../plan/query-then-fetch.js';
import { estimateRowBytes, type RowWidth } from '../plan/row-width.js';
import { lookupTable, refName } from '../plan/tables.js';
import type { QueryPlan } from '../plan/types.js';
import type { SelectQuery, SelectStatement } from '../sql/ast.js';
import { printSelect } from '../sql/print.js';
import { gather } from './gather.js';
import type { QueryResponse, ShardStat } from './query-types.js';
import type { QuerySession } from './query-session.js';
import { tableWidths } from './table-columns.js';
import { readTotals, roundToTenth, shardStatOf } from './timeline-stats.js';

/**
 * How long a query waits for its table's widths being read (never past its deadline): it runs in one
 * round without them while the read goes on for the next query.
 */
const WIDTH_WAIT_MS = 250;

type Eligible = Extract<QueryThenFetchEligibility, { ok: true }>;

async function widthOf(s: QuerySession, eligible: Eligible): Promise<RowWidth> {
  const from = eligible.query.from!.table;
  const bound = from.kind === 'table' ? lookupTable(s.deps.topo, refName(from)) : undefined;
  const cache = s.deps.tableColumns;
  if (!bound) return { unknown: 'not a distributed table' };
  if (!cache) return { unknown: 'no column widths kept by this coordinator' };
  const read = tableWidths(s.deps, cache, bound.distributed).then(
    (w) => estimateRowBytes(eligible.n, w),
    (e: unknown): RowWidth => ({ unknown: `the widths could not be read: ${(e as Error).message}` }),
  );
  let timer: ReturnType<typeof setTimeout> | undefined;
  const wait = Math.max(0, Math.min(WIDTH_WAIT_MS, s.deadline.at - s.now()));
  const late = new Promise<RowWidth>((r) => {
    timer = setTimeout(() => r({ unknown: 'the widths are still being read' }), wait);
  });
  try {
    return await Promise.race([read, late]);
  } finally {
    clearTimeout(timer);
  }
}

async function autoChoice(s: QuerySession, eligible: Eligible, stmt: SelectStatement): Promise<ReturnType<typeof chooseRounds>> {
  const thresholdBytes = queryThenFetchRowBytes(s.request.settings, stmt, s.deps.topo.query.queryThenFetchRowBytes);
  return chooseRounds(await widthOf(s, eligible), thresholdBytes);
}

/** One shard asked sends its k rows either way: `auto` then keeps one round. */
const oneShard = (plan: QueryPlan): boolean => plan.shards.filter((p) => !p.skipped).length < 2;

export interface QueryThenFetch {
  info: QueryThenFetchInfo;
  /** Round two: the query bounded by round one's boundary; absent: run the query unchanged. */
  statement?: SelectQuery;
  stats: ShardStat[];
  rowsRead: number;
  bytesRead: number;
}

/** Round one, or undefined when the query runs as it would without query-then-fetch. */
export async function queryThenFetchRound(s: QuerySession, stmt: SelectStatement | undefined): Promise<QueryThenFetch | undefined> {
  const mode = stmt ? requestedQueryThenFetch(s.request.settings, stmt) : 'off';
  if (!stmt || mode === 'off') return undefined;
  const out: QueryThenFetch = { info: { applied: false, mode }, stats: [], rowsRead: 0, bytesRead: 0 };
  const oneRound = (reason: string) => {
    out.info.reason = reason;
    return out;
  };
  const auto = mode === 'auto';
  if (s.path === 'general') return auto ? undefined : oneRound('ch_scatter_path is general');
  const eligible = queryThenFetchEligibility(stmt, s.request.cursor);
  if (!eligible.ok) return auto ? undefined : oneRound(eligible.reason);
  if (auto) {
    const choice = await autoChoice(s, eligible, stmt);
    if (!choice.twoRounds) return undefined;
    out.info = choice.info;
  }
  const round = boundaryQuery(eligible);
  out.info.roundSql = printSelect({ ...round, settings: undefined });
  const startedAt = s.now();
  let gathered: Awaited<ReturnType<typeof gather>>;
  try {
    const plan = await s.deps.planQuery(round, s.deps.topo, s.request.planOptions('prepass', s.runSubquery));
    if (auto && oneShard(plan)) return undefined;
    gathered = await gather({ ...s.fanout, plan });
  } catch (e) {
    if (isScatterError(e) && e.code === 'UNSUPPORTED') return oneRound(`round one refused: ${e.message}`);
    throw e;
  }
  let rows = 0;
  let bytes = 0;
  for (const o of gathered.outcomes) {
    out.stats.push({ ...shardStatOf(o, s.startedAt), leaf: 'query-then-fetch round 1' });
    rows += o.response?.rows.length ?? 0;
    bytes += o.response ? Buffer.byteLength(JSON.stringify(o.response.rows)) : 0;
  }
  const read = readTotals(gathered.outcomes);
  out.rowsRead += read.rowsRead;
  out.bytesRead += read.bytesRead;
  out.info.round1 = { shards: gathered.outcomes.length, rows, bytes, elapsedMs: roundToTenth(s.now() - startedAt) };
  if (gathered.missing.length > 0) return oneRound('a shard did not answer round one');
  const fin = gathered.merger.finalize();
  const last = fin.data[0];
  // No row after the page: every row counts, one round moves no more.
  if (!last) return oneRound('the query matches no more rows than offset + limit');
  const boundary: CursorKey[] = eligible.n.orderBy.map((_, i) => {
    const name = BOUNDARY_ALIAS(i);
    return { json: last[name] ?? null, type: fin.meta.find((m) => m.name === name)?.type ?? 'String' };
  });
  try {
    out.statement = fetchQuery(eligible, boundary);
  } catch (e) {
    // Building SQL only: whatever fails here is a boundary that does not print back as a literal.
    return oneRound(`the boundary key cannot be written back: ${(e as Error).message}`);
  }
  out.info.applied = true;
  return out;
}

/** /explain's `queryThenFetch`: round one's SQL and how round two is bounded, or why one round; undefined when it does not apply. */
export async function explainQueryThenFetch(s: QuerySession, stmt: SelectStatement | undefined): Promise<QueryThenFetchInfo | undefined> {
  const mode = stmt ? requestedQueryThenFetch(s.request.settings, stmt) : 'off';
  if (!stmt || mode === 'off') return undefined;
  const auto = mode === 'auto';
  if (s.path === 'general') return auto ? undefined : { applied: false, mode, reason: 'ch_scatter_path is general' };
  const eligible = queryThenFetchEligibility(stmt, s.request.cursor);
  if (!eligible.ok) return auto ? undefined : { applied: false, mode, reason: eligible.reason };
  const choice = auto ? await autoChoice(s, eligible, stmt) : { twoRounds: true, info: { applied: false, mode } };
  if (!choice.twoRounds) return choice.info;
  if (auto) {
    const plan = await s.deps.planQuery(boundaryQuery(eligible), s.deps.topo, s.request.planOptions('prepass', s.runSubquery)).catch(() => undefined);
    if (plan && oneShard(plan)) return { ...choice.info, reason: 'one shard asked: a second round would only add an invocation' };
  }
  return {
    ...choice.info,
    applied: true,
    roundSql: printSelect({ ...boundaryQuery(eligible), settings: undefined }),
    round2: "the query with NOT (sort key after round one's last key) added to its WHERE",
  };
}

/** The answer with query-then-fetch's rounds: its info, and round one in the statistics. */
export function withQueryThenFetch(body: QueryResponse, qtf: QueryThenFetch | undefined): QueryResponse {
  if (!qtf) return body;
  body.queryThenFetch = qtf.info;
  body.statistics.shards = [...qtf.stats, ...body.statistics.shards];
  body.statistics.rowsRead += qtf.rowsRead;
  body.statistics.bytesRead += qtf.bytesRead;
  return body;
}
