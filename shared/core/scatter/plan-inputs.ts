// What the general path and TPUT's rounds both hand the planner: the request's settings merged
// with the SQL's SETTINGS clause, the distributed_product_mode they ask for, and the pass-through
// split (the shards run each statement as planned; nothing merges in the coordinator).
import type { SettingValue } from '../clickhouse/port.js';
import type { Topology } from '../config/schema.js';
import type { Splitter } from '../plan/build.js';
import { boolSetting } from '../clickhouse/setting-truth.js';
import { clauseValues, groupByNoMergeOf, type GroupByNoMerge } from '../plan/settings.js';
import type { QueryRequest } from '../protocol/api-request.js';
import type { SelectStatement } from '../sql/ast.js';
import type { TwoStageOptions } from '../plan/two-stage/types.js';

/** distributed_product_mode as a request asks for it (prefer_global_in_and_join upgrades to 'global', as in ClickHouse). */
export function productModeOf(settings: Record<string, SettingValue>, topo: Topology): 'deny' | 'local' | 'global' {
  // A value ClickHouse would refuse is refused by the planner's settings check.
  const preferGlobal = settings.prefer_global_in_and_join;
  if (preferGlobal !== undefined && boolSetting(preferGlobal) === true) return 'global';
  const m = String(settings.distributed_product_mode ?? '').toLowerCase();
  return m === 'deny' || m === 'local' || m === 'global' ? m : topo.query.distributedProductMode;
}

/** distributed_group_by_no_merge as a request asks for it (0: the shards' answers are merged). */
export function noMergeOf(settings: Record<string, SettingValue>): GroupByNoMerge {
  return groupByNoMergeOf(settings.distributed_group_by_no_merge);
}

/** What the two-stage plan takes from the request's settings. */
export function twoStageOptionsOf(settings: Record<string, SettingValue>, topo: Topology): TwoStageOptions {
  const noMerge = noMergeOf(settings);
  return { distributedProductMode: productModeOf(settings, topo), ...(noMerge ? { groupByNoMerge: noMerge } : {}) };
}

/** The SQL's SETTINGS clause as values (the last one wins, as in ClickHouse). */
export function clauseSettings(stmt: SelectStatement): Record<string, SettingValue> {
  return clauseValues(stmt.settings);
}

/** The request's settings with the SQL's SETTINGS clause over them (the leaves carry no SETTINGS of their own). */
export function mergedSettings(req: QueryRequest, stmt: SelectStatement): Record<string, SettingValue> {
  return { ...(req.settings ?? {}), ...clauseSettings(stmt) };
}

/** The shards run each statement as the planner wrote it: no partial split, no merge here. */
export const passThroughSplitter: Splitter = (q) => ({
  shardQuery: q,
  createMerger: () => {
    throw new Error('the general path merges in its final stage, not in the coordinator');
  },
  describe: 'leaf of a two-stage plan: the shards run it as written, the final stage merges',
});
