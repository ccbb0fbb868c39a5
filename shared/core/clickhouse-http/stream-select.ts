// A SELECT over one distributed table that only reads rows (no aggregate, DISTINCT, ORDER BY,
// LIMIT, window, JOIN or subquery), in a format that concatenates: streamed from the shards to the
// client (scatter/row-stream.ts) instead of gathered into the final stage. Everything else still
// takes the general path (distributed.ts): ORDER BY ... LIMIT is bounded by its LIMIT there.
// The same statement checks as the general path: parameters bound, what no path may run, the
// planner's settings allowlist and per-shard rewrite (renames, pruning, skipped shards).
import { truncatingModes } from '../clickhouse/overflow-modes.js';
import type { SelectStatement } from '../sql/ast.js';
import { walkStatement } from '../sql/visit.js';
import { hasWindow, isAggregating } from '../plan/two-stage/cut-common.js';
import { planQueryWith } from '../plan/build.js';
import { constantsOnlyRunner } from '../scatter/one-engine.js';
import { computeDeadline } from '../scatter/deadline.js';
import { boundStatement } from '../scatter/query-session.js';
import { clauseSettings, passThroughSplitter, productModeOf } from '../scatter/plan-inputs.js';
import { refuseForAnyPath } from '../scatter/two-stage/guard.js';
import { streamRows } from '../scatter/row-stream.js';
import type { ReadProgress } from '../scatter/row-stream.js';
import type { HedgeState } from '../scatter/hedge.js';
import type { ShardInvoker } from '../scatter/invoker.js';
import type { Topology } from '../config/schema.js';
import type { DistributedSelectRequest } from './types.js';
import { concatenatingFormats } from './stream-formats.js';

export interface StreamSelectDeps {
  topo: Topology;
  /** The shards are read through its streaming hop (invokeStream), else whole answers. */
  invoker: ShardInvoker;
  hedgeState: HedgeState;
  /** context.getRemainingTimeInMillis() at arrival, when in Lambda: the deadline stays inside it. */
  lambdaRemainingMs?: number;
  now?: () => number;
}

export type StreamSelectRequest = Pick<
  DistributedSelectRequest,
  'sql' | 'format' | 'formatSettings' | 'settings' | 'params' | 'timeoutMs' | 'queryId' | 'arrivedAt'
>;

/** A planned stream, not started: `run` writes the answer's bytes through `write`. */
export interface PreparedStream {
  run(o: { write(chunk: Uint8Array): Promise<void>; onRead?(p: ReadProgress): void; signal?: AbortSignal }): Promise<ReadProgress & { bytes: number }>;
}

/** undefined: the statement or format does not stream (the caller answers it whole). */
export type StreamSelect = (req: StreamSelectRequest) => Promise<PreparedStream | undefined>;

/** Only reads rows of one table: each shard's rows are rows of the answer, in any order. */
export function readsRowsOnly(stmt: SelectStatement): boolean {
  if (stmt.kind !== 'select') return false;
  const q = stmt;
  if (q.with?.length || q.distinct || q.distinctOn || q.groupBy || q.groupingSets || q.having || q.withTotals || q.window || q.qualify) return false;
  if (q.orderBy || q.limitBy || q.limit) return false;
  if (q.from?.table.kind !== 'table' || q.from.joins.length > 0) return false;
  if (isAggregating(q) || q.columns.some(hasWindow)) return false;
  let subquery = false;
  walkStatement(stmt, (e) => {
    if (e.kind === 'subquery') subquery = true;
  });
  return !subquery;
}

export function streamSelect(deps: StreamSelectDeps): StreamSelect {
  const now = deps.now ?? Date.now;
  return async (req) => {
    const formats = concatenatingFormats(req.format);
    if (!formats) return undefined;
    const { topo } = deps;
    const stmt = boundStatement(req.sql, req.params)!; // throws a syntax error, never undefined
    if (!readsRowsOnly(stmt)) return undefined;
    refuseForAnyPath(stmt, topo);
    const settings = { ...req.settings, ...clauseSettings(stmt) };
    // A truncating overflow mode applies where the shards' rows meet too: the general path's final stage.
    if (truncatingModes(settings).length) return undefined;
    // Not behind API Gateway: the request's max_execution_time (else the configured budget), inside the function's time.
    const deadline = computeDeadline({
      now: req.arrivedAt ?? now(),
      ...(req.timeoutMs !== undefined ? { requestTimeoutMs: req.timeoutMs } : {}),
      configTimeoutMs: topo.query.timeoutMs,
      ...(deps.lambdaRemainingMs !== undefined ? { lambdaRemainingMs: deps.lambdaRemainingMs } : {}),
      behindApiGateway: false,
    });
    // The key's constant operands are folded on one engine, as on the other doors.
    const runSubquery = constantsOnlyRunner({ topo, invoker: deps.invoker, deadlineAt: deadline.at, queryId: req.queryId });
    const plan = await planQueryWith(stmt, topo, { settings, distributedProductMode: productModeOf(settings, topo), runSubquery }, passThroughSplitter);
    if (plan.shards.every((s) => s.skipped)) return undefined; // no shard to write the header: the general path answers
    return {
      run: (o) =>
        streamRows({
          topo,
          plan,
          invoker: deps.invoker,
          hedgeState: deps.hedgeState,
          queryId: req.queryId,
          deadlineAt: deadline.at,
          now,
          formats,
          formatSettings: req.formatSettings,
          write: o.write,
          ...(o.onRead ? { onRead: o.onRead } : {}),
          ...(o.signal ? { signal: o.signal } : {}),
        }),
    };
  };
}
