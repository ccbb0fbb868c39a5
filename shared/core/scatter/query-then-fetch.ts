// Query-then-fetch's round one, run by the request's session (shared/core/plan/query-then-fetch.ts
// says why round two is exact): the sort keys from every shard, merged by the fast path to the
// boundary key, under the query's one deadline. Round two is the narrowed query, run by the caller
// on the normal path. A shard missing from round one, a refusal, or a boundary that does not print
// back as a literal: the caller runs the query unchanged, in one round.
import { isScatterError } from '../errors.js';
import type { CursorKey } from '../partials/cursor.js';
import {
  BOUNDARY_ALIAS,
  boundaryQuery,
  fetchQuery,
  queryThenFetchEligibility,
  requestedQueryThenFetch,
  type QueryThenFetchInfo,
} from '../plan/query-then-fetch.js';
import type { SelectQuery, SelectStatement } from '../sql/ast.js';
import { printSelect } from '../sql/print.js';
import { gather } from './gather.js';
import type { QueryResponse, ShardStat } from './query-types.js';
import type { QuerySession } from './query-session.js';
import { roundToTenth, shardStatOf } from './timeline-stats.js';

export interface QueryThenFetch {
  info: QueryThenFetchInfo;
  /** Round two: the query bounded by round one's boundary; absent: run the query unchanged. */
  statement?: SelectQuery;
  stats: ShardStat[];
  rowsRead: number;
  bytesRead: number;
}

/** Round one, or undefined when the request does not ask for query-then-fetch. */
export async function queryThenFetchRound(s: QuerySession, stmt: SelectStatement | undefined): Promise<QueryThenFetch | undefined> {
  if (!stmt || !requestedQueryThenFetch(s.request.settings, stmt)) return undefined;
  const out: QueryThenFetch = { info: { applied: false }, stats: [], rowsRead: 0, bytesRead: 0 };
  const oneRound = (reason: string) => {
    out.info.reason = reason;
    return out;
  };
  if (s.path === 'general') return oneRound('ch_scatter_path is general');
  const eligible = queryThenFetchEligibility(stmt, s.request.cursor);
  if (!eligible.ok) return oneRound(eligible.reason);
  const round = boundaryQuery(eligible);
  out.info.roundSql = printSelect({ ...round, settings: undefined });
  const startedAt = s.now();
  let gathered: Awaited<ReturnType<typeof gather>>;
  try {
    const plan = await s.deps.planQuery(round, s.deps.topo, s.request.planOptions('prepass', s.runSubquery));
    gathered = await gather({ ...s.fanout, plan });
  } catch (e) {
    if (isScatterError(e) && e.code === 'UNSUPPORTED') return oneRound(`round one refused: ${e.message}`);
    throw e;
  }
  let rows = 0;
  let bytes = 0;
  for (const o of gathered.outcomes) {
    out.stats.push({ ...shardStatOf(o, s.startedAt), leaf: 'query-then-fetch round 1' });
    out.rowsRead += o.response?.statistics.rowsRead ?? 0;
    out.bytesRead += o.response?.statistics.bytesRead ?? 0;
    rows += o.response?.rows.length ?? 0;
    bytes += o.response ? Buffer.byteLength(JSON.stringify(o.response.rows)) : 0;
  }
  out.info.round1 = { shards: gathered.outcomes.length, rows, bytes, elapsedMs: roundToTenth(s.now() - startedAt) };
  if (gathered.missing.length > 0) return oneRound('a shard did not answer round one');
  const fin = gathered.merger.finalize();
  const last = fin.data[0];
  // Fewer rows than the page holds: no boundary, every row counts.
  if (!last) return oneRound('the query matches fewer rows than offset + limit');
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

/** /explain's `queryThenFetch`: round one's SQL and how round two is bounded, or why one round; undefined when not asked for. */
export function explainQueryThenFetch(s: QuerySession, stmt: SelectStatement | undefined): QueryThenFetchInfo | undefined {
  if (!stmt || !requestedQueryThenFetch(s.request.settings, stmt)) return undefined;
  if (s.path === 'general') return { applied: false, reason: 'ch_scatter_path is general' };
  const eligible = queryThenFetchEligibility(stmt, s.request.cursor);
  if (!eligible.ok) return { applied: false, reason: eligible.reason };
  return {
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
