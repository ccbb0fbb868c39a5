// Public face of the partials module: split a SELECT into the shard query and the merger.
// Aggregate queries go to split-aggregate (partials, merge, finalize); row queries to split-rows
// (sorted top-k merge, cursor pagination). See docs in each module.
import type { SelectQuery } from '../sql/ast.js';
import { normalize } from './analyze.js';
import { splitAggregate } from './split-aggregate.js';
import { splitRows } from './split-rows.js';
import { ScatterError } from '../errors.js';
import type { SplitContext, SplitQuery } from './types.js';

export type { SplitContext, SplitQuery, Merger, FinalResult, ApproximateInfo } from './types.js';
export { SUPPORTED_AGGREGATES, isAggregateCall } from './families/index.js';
export { COORDINATOR_FUNCTIONS } from './evaluator.js';
export { HLL_RSE } from './families/hll.js';
export { DDSKETCH_ALPHA } from './families/quantile.js';

export function splitQuery(q: SelectQuery, ctx: SplitContext): SplitQuery {
  if (ctx.unmerged)
    throw new ScatterError(
      'UNSUPPORTED',
      `distributed_group_by_no_merge = ${ctx.unmerged} asks for the shards' answers unmerged; the fast path merges them (the general path answers it)`,
    );
  if (ctx.extremes)
    throw new ScatterError(
      'UNSUPPORTED',
      "extremes = 1 asks for the answer's min and max rows; the fast path does not compute them (the general path's final stage does)",
    );
  const n = normalize(q);
  if (n.isAggregate) {
    return splitAggregate(q, n, ctx, {
      maxRowsToTransfer: ctx.maxRowsToTransfer,
      transferOverflowMode: ctx.transferOverflowMode ?? 'throw',
      shardSizeFactor: ctx.shardSizeFactor,
      shardSizeAdd: ctx.shardSizeAdd,
      // Portable by default: 18.16 servers (the Debian cluster) have no maxMap.
      hllEncoding: ctx.hllEncoding ?? 'uniqArray',
      topkEncoding: ctx.topkEncoding ?? 'hashed',
    });
  }
  return splitRows(q, n, ctx);
}
