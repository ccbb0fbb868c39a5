// The allowlist of settings forwarded to shards, with the type and range of each value.
// WHY values are checked here and not left to ClickHouse: a bad value (max_threads: -1,
// max_memory_usage: "lots", 1e30) otherwise reaches every shard, fails there, and comes back as
// 502 SHARD_ERROR from all shards, as if the cluster were broken. The user's mistake must be a 400
// naming the setting, before anything is sent. The checked value is also normalized (booleans to
// 0/1, integers to numbers or digit strings) so a shard never sees a string the user typed.
import type { Expr } from '../sql/ast.js';
import type { SettingValue } from '../clickhouse/port.js';
import { boolSetting, boolSettingRefusal } from '../clickhouse/setting-truth.js';
import { errorAt } from './position.js';

type Spec =
  | { kind: 'uint'; min?: number; max?: number }
  | { kind: 'bool' }
  | { kind: 'float'; min: number; max: number }
  | { kind: 'enum'; values: readonly string[] };

const UINT: Spec = { kind: 'uint' };
const BOOL: Spec = { kind: 'bool' };
// ClickHouse's `*_overflow_mode` settings: 'throw' fails the query at the limit; 'break' (and
// group_by's 'any') answers with what it has there, forwarded too: such an answer is labelled
// `truncated`, never complete (shared/core/clickhouse/overflow-modes.ts, docs/operations.md).
const OVERFLOW: Spec = { kind: 'enum', values: ['throw', 'break'] };

/** name -> the values ClickHouse accepts for it (18.16 and current releases alike). */
export const SETTING_SPECS: ReadonlyMap<string, Spec> = new Map<string, Spec>([
  // 0 = as many as cores; more than 1024 threads per shard query is a typo, not a plan.
  ['max_threads', { kind: 'uint', max: 1024 }],
  ['max_memory_usage', UINT],
  ['max_block_size', { kind: 'uint', min: 1, max: 100_000_000 }],
  ['max_bytes_before_external_group_by', UINT],
  ['max_bytes_before_external_sort', UINT],
  ['max_rows_to_read', UINT],
  ['max_bytes_to_read', UINT],
  ['max_rows_to_read_leaf', UINT],
  ['max_bytes_to_read_leaf', UINT],
  ['read_overflow_mode', OVERFLOW],
  ['max_rows_to_group_by', UINT],
  ['group_by_overflow_mode', { kind: 'enum', values: ['throw', 'break', 'any'] }],
  ['max_rows_to_sort', UINT],
  ['max_bytes_to_sort', UINT],
  ['sort_overflow_mode', OVERFLOW],
  ['max_rows_in_set', UINT],
  ['max_bytes_in_set', UINT],
  ['set_overflow_mode', OVERFLOW],
  ['max_rows_in_join', UINT],
  ['max_bytes_in_join', UINT],
  ['join_overflow_mode', OVERFLOW],
  ['join_use_nulls', BOOL],
  // A recursive CTE's steps: capped (DEFAULT_LIMIT_CEILINGS); a query may lower it.
  ['max_recursive_cte_evaluation_depth', UINT],
  // Keys of ROLLUP / CUBE / GROUPING SETS become Nullable: it takes effect in the final stage, which gets every forwarded setting.
  ['group_by_use_nulls', BOOL],
  // WITH TOTALS against HAVING: the fast path refuses TOTALS, so they take effect in the final stage.
  ['totals_mode', { kind: 'enum', values: ['before_having', 'after_having_exclusive', 'after_having_inclusive', 'after_having_auto'] }],
  ['totals_auto_threshold', { kind: 'float', min: 0, max: 1 }],
  ['optimize_group_by_function_keys', BOOL],
  // Whether a JOIN subquery needs an alias: read where the query is analyzed, on every engine.
  ['joined_subquery_requires_alias', BOOL],
  [
    'join_algorithm',
    {
      kind: 'enum',
      values: ['default', 'auto', 'hash', 'parallel_hash', 'partial_merge', 'prefer_partial_merge', 'direct', 'grace_hash', 'full_sorting_merge'],
    },
  ],
  ['join_default_strictness', { kind: 'enum', values: ['ALL', 'ANY', ''] }],
  ['any_join_distinct_right_table_keys', BOOL],
  ['transform_null_in', BOOL],
  ['use_uncompressed_cache', BOOL],
  ['optimize_move_to_prewhere', BOOL],
  // Rewrites each engine makes of its own part of the query, the answer unchanged (ClickHouse 20.x and later).
  ['optimize_injective_functions_inside_uniq', BOOL],
  ['optimize_arithmetic_operations_in_aggregate_functions', BOOL],
  ['optimize_if_transform_strings_to_enum', BOOL],
  ['enable_optimize_predicate_expression', BOOL],
  ['aggregation_memory_efficient_merge_threads', { kind: 'uint', max: 1024 }],
  ['group_by_two_level_threshold', UINT],
  ['group_by_two_level_threshold_bytes', UINT],
  ['max_rows_in_distinct', UINT],
  ['max_bytes_in_distinct', UINT],
  ['distinct_overflow_mode', OVERFLOW],
  ['use_index_for_in_with_subqueries', BOOL],
  ['force_index_by_date', BOOL],
  ['force_primary_key', BOOL],
  ['max_read_buffer_size', { kind: 'uint', min: 1 }],
  ['merge_tree_min_rows_for_concurrent_read', UINT],
  ['merge_tree_min_bytes_for_concurrent_read', UINT],
  ['merge_tree_max_rows_to_use_cache', UINT],
  ['merge_tree_max_bytes_to_use_cache', UINT],
  ['max_streams_to_max_threads_ratio', { kind: 'float', min: 0, max: 1024 }],
  ['priority', UINT],
]);

const UINT64_MAX = (1n << 64n) - 1n;

function describe(spec: Spec): string {
  switch (spec.kind) {
    case 'uint':
      return `an integer from ${spec.min ?? 0} to ${spec.max ?? '2^64-1'}`;
    case 'bool':
      return '0, 1, true or false';
    case 'float':
      return `a number from ${spec.min} to ${spec.max}`;
    case 'enum':
      return `one of ${spec.values.map((v) => `'${v}'`).join(', ')}`;
  }
}

function checkUint(spec: Extract<Spec, { kind: 'uint' }>, v: SettingValue): SettingValue | undefined {
  let big: bigint;
  if (typeof v === 'number') {
    if (!Number.isSafeInteger(v)) return undefined; // 1e30, 1.5, NaN: not an exact integer
    big = BigInt(v);
  } else if (typeof v === 'string' && /^\d{1,20}$/.test(v.trim())) {
    big = BigInt(v.trim());
  } else {
    return undefined;
  }
  if (big < BigInt(spec.min ?? 0) || big > (spec.max === undefined ? UINT64_MAX : BigInt(spec.max))) return undefined;
  return big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big.toString();
}

function checkValue(spec: Spec, v: SettingValue): SettingValue | undefined {
  switch (spec.kind) {
    case 'uint':
      return checkUint(spec, v);
    case 'bool': {
      const b = boolSetting(v);
      return b === undefined ? undefined : b ? 1 : 0;
    }
    case 'float': {
      const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(v) ? Number(v) : NaN;
      return Number.isFinite(n) && n >= spec.min && n <= spec.max ? n : undefined;
    }
    case 'enum': {
      if (typeof v !== 'string') return undefined;
      return spec.values.find((x) => x.toLowerCase() === v.trim().toLowerCase());
    }
  }
}

/**
 * Resource limits a query may only lower. 0 means "unlimited" to ClickHouse: from a client it would
 * lift the server profile's cap, so it is refused like any value over the ceiling.
 */
export const LOWERABLE_LIMITS: ReadonlySet<string> = new Set([
  'max_memory_usage',
  'max_rows_to_read',
  'max_bytes_to_read',
  'max_rows_to_read_leaf',
  'max_bytes_to_read_leaf',
  'max_rows_to_group_by',
  'max_rows_to_sort',
  'max_bytes_to_sort',
  'max_rows_in_set',
  'max_bytes_in_set',
  'max_rows_in_join',
  'max_bytes_in_join',
  'max_rows_in_distinct',
  'max_bytes_in_distinct',
  'max_recursive_cte_evaluation_depth',
]);

/**
 * Ceilings without configuration (query.limitCeilings replaces them by name): ClickHouse's shipped
 * default profile caps a query's memory at 10 GB.
 */
export const DEFAULT_LIMIT_CEILINGS: Readonly<Record<string, number>> = {
  max_memory_usage: 10_000_000_000,
  // A recursive CTE has no row count to cap beforehand: its steps are capped at ClickHouse's default.
  max_recursive_cte_evaluation_depth: 1000,
};

/** ClickHouse's code for a setting over its constraint. */
const SETTING_CONSTRAINT_VIOLATION = 452;

/**
 * A checked lowerable limit: never 0, never over its ceiling (configured, else the default one).
 * Refused as ClickHouse refuses a setting over a profile constraint: 452 SETTING_CONSTRAINT_VIOLATION.
 */
export function checkLowerable(name: string, value: SettingValue, ceilings: Readonly<Record<string, number>>, node?: Expr): void {
  if (!LOWERABLE_LIMITS.has(name)) return;
  const ceiling = ceilings[name] ?? DEFAULT_LIMIT_CEILINGS[name];
  const n = typeof value === 'number' ? BigInt(value) : /^\d+$/.test(String(value).trim()) ? BigInt(String(value).trim()) : undefined;
  const why =
    n === 0n
      ? `Setting ${name} shouldn't be 0 (unlimited): a query may lower the server's limit, not lift it`
      : n !== undefined && ceiling !== undefined && n > BigInt(ceiling)
        ? `Setting ${name} shouldn't be greater than ${ceiling}`
        : undefined;
  if (!why) return;
  throw errorAt('BAD_REQUEST', why, node, { clickhouse: { code: SETTING_CONSTRAINT_VIOLATION, name: 'SETTING_CONSTRAINT_VIOLATION' } });
}

/**
 * The value to forward for an allow-listed setting, or undefined when `name` is not on the list.
 * Throws BAD_REQUEST naming the setting (and its SETTINGS position) when the value is out of type or range.
 */
export function forwardedValue(name: string, value: SettingValue, node?: Expr): SettingValue | undefined {
  const spec = SETTING_SPECS.get(name);
  if (!spec) return undefined;
  const ok = checkValue(spec, value);
  if (ok === undefined) {
    const refusal = spec.kind === 'bool' ? boolSettingRefusal(value) : undefined;
    throw errorAt(
      'BAD_REQUEST',
      `setting ${name} must be ${describe(spec)}, not ${JSON.stringify(value)}`,
      node,
      refusal && { clickhouse: { code: refusal.code, name: refusal.name } },
    );
  }
  return ok;
}
