// Which method answers an `ORDER BY <count> DESC LIMIT n` over groups that span shards, from the
// setting ch_scatter_top_count (the SQL's SETTINGS clause over the request's settings over the
// topology's query.topCount):
//   'exact' (default)  the measured default for exact answers: EXACT_TOP_COUNT_DEFAULT
//   'tput'             TPUT's two rounds where the query is eligible (shape.ts), else every group
//   'every_group'      every group from every shard (one round; no pre-pass)
//   'shard_size'       the fast path's approximation, labelled with its error bound
import type { SettingValue } from '../../clickhouse/port.js';
import type { Topology } from '../../config/schema.js';
import { ScatterError } from '../../errors.js';
import type { SelectStatement } from '../../sql/ast.js';
import { askedSetting } from '../settings.js';

export const TOP_COUNT_SETTING = 'ch_scatter_top_count';
export const TOP_COUNT_VALUES = ['exact', 'tput', 'every_group', 'shard_size'] as const;
export type TopCountSetting = (typeof TOP_COUNT_VALUES)[number];

/**
 * What 'exact' means. Measured (docs/benchmarks.md#exact-top-count-tput-vs-every-group): on a
 * skewed key TPUT moves a few hundred groups where every group is tens of thousands; on a uniform
 * key it prunes less and pays two scans (docs/architecture.md#exact-top-count-tput).
 */
export const EXACT_TOP_COUNT_DEFAULT: 'tput' | 'every_group' = 'tput';

export function isTopCountSetting(v: string): v is TopCountSetting {
  return (TOP_COUNT_VALUES as readonly string[]).includes(v);
}

/** The setting as the request asks for it (BAD_REQUEST for a value it does not know). */
export function requestedTopCount(
  requestSettings: Record<string, SettingValue> | undefined,
  stmt: SelectStatement | undefined,
  topo: Topology,
): TopCountSetting {
  const { raw } = askedSetting(TOP_COUNT_SETTING, requestSettings, stmt);
  if (raw === undefined) return topo.query.topCount;
  const v = String(raw).toLowerCase();
  if (isTopCountSetting(v)) return v;
  throw new ScatterError(
    'BAD_REQUEST',
    `setting ${TOP_COUNT_SETTING} must be one of ${TOP_COUNT_VALUES.map((x) => `'${x}'`).join(', ')}, not '${String(raw)}'`,
  );
}

/** The method a setting selects for an exact answer (shard_size is the fast path's own). */
export function exactMethodOf(setting: TopCountSetting): 'tput' | 'every_group' | 'shard_size' {
  if (setting === 'exact') return EXACT_TOP_COUNT_DEFAULT;
  return setting;
}
