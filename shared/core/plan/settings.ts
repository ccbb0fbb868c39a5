// Settings of one query: request settings merged with the SQL SETTINGS clause (the clause wins, as in
// ClickHouse, where it is applied last). Three fates (as ClickHouse's stripInitiatorOnlySettings sorts
// them):
//  - initiator-only (output format, compression, result shaping): never sent to shards, and refused
//    (ClickHouse would apply them at the initiator; ch-scatter's answer format is fixed);
//  - ch-scatter's own knobs (skipping, product mode, transfer limits): read here, not forwarded;
//  - the allowlist: forwarded to every shard query, each value checked for type and range.
// Anything else is refused by name. An allowlist, not a denylist, because a shard query runs
// with the runtime's readonly/timeout guard, and an unknown setting could loosen it (readonly,
// allow_ddl, max_execution_time belong to the runtime) or break an older shard (UNKNOWN_SETTING).
import type { Expr, SelectStatement, SettingItem } from '../sql/ast.js';
import { printExpr } from '../sql/print.js';
import type { SettingValue } from '../clickhouse/port.js';
import type { QueryDefaults } from '../config/schema.js';
import { ScatterError } from '../errors.js';
import { errorAt } from './position.js';
import { checkLowerable, forwardedValue, SETTING_SPECS } from './setting-values.js';
import { fileSettingError } from './file-access.js';
import { isFileSetting } from '../clickhouse/file-names.js';
import { settingFate } from './setting-fate.js';
import { checkSetOperationMode } from './set-op-modes.js';
import { RESULT_FILTER_SETTING, TABLE_FILTERS_SETTING, resultFilterOf, tableFiltersOf } from './table-filters.js';
import { boolSetting, boolSettingRefusal, uintSettingFlag } from '../clickhouse/setting-truth.js';

/** Forwarded to shards: resource limits and execution knobs that do not change what a shard means (values checked in setting-values.ts). */
export const FORWARDED_SETTINGS: ReadonlySet<string> = new Set(SETTING_SPECS.keys());

/**
 * Interpreted only by the initiator (ClickHouse's list, by name and by prefix). ClickHouse strips them
 * before the shards and applies them itself; ch-scatter's answer format is fixed (ClickHouse JSON
 * conventions, 64-bit integers quoted) and it does not implement the query-shaping ones, so a user
 * who sets one is told so (UNSUPPORTED) rather than silently getting an answer that ignores it.
 */
const INITIATOR_ONLY_NAMES = new Set([
  'default_format',
  'select',
  'order',
  'sort',
  'filter',
  'limit',
  'offset',
  'page',
  'output_format_json_quote_64bit_integers',
]);
const INITIATOR_ONLY_PREFIXES = ['format', 'output_format_', 'input_format_'];
const isInitiatorOnly = (n: string): boolean =>
  INITIATOR_ONLY_NAMES.has(n) || INITIATOR_ONLY_PREFIXES.some((p) => n.startsWith(p)) || n.includes('compression');

/** Owned by the runtime (deadline, read-only guard): a user may not set them. */
const RUNTIME_OWNED = new Set(['readonly', 'allow_ddl', 'max_concurrent_queries_for_user', 'skip_unavailable_shards', 'allow_introspection_functions']);

export interface PlannerSettings {
  /** What every shard query carries. */
  forward: Record<string, SettingValue>;
  /** optimize_skip_unused_shards (default on). */
  skipUnusedShards: boolean;
  /** optimize_skip_unused_shards_rewrite_in (default on). */
  rewriteIn: boolean;
  /** force_optimize_skip_unused_shards (or PlanOptions.forceSkipUnusedShards). */
  forceSkip: boolean;
  distributedProductMode: 'deny' | 'local' | 'global';
  maxRowsToTransfer: number; // 0 = unlimited
  maxBytesToTransfer: number; // 0 = unlimited
  transferOverflowMode: 'throw' | 'break';
  /**
   * `ORDER BY count() DESC LIMIT n` over a GROUP BY without the sharding key: 'exact' (default),
   * 'tput' and 'every_group' are exact (the TPUT pre-pass, shared/core/scatter/tput/, narrows the groups
   * first or not; here the fast path refuses it and the general path answers it) and 'shard_size'
   * (ch_scatter_top_count: the fast path's approximate shard_size method, labelled with its error bound).
   */
  topCount: 'exact' | 'tput' | 'every_group' | 'shard_size';
  /**
   * uniq/uniqCombined/uniqHLL12 and quantile/quantiles/median/quantileTDigest: 'states' (default:
   * the fast path refuses them when the general path can take them, which merges ClickHouse's own
   * states, so the answer is the one ClickHouse's Distributed table gives) or 'sketches'
   * (ch_scatter_approximate: the fast path's HyperLogLog / DDSketch, labelled with their error).
   */
  approximate: 'states' | 'sketches';
  /**
   * distributed_group_by_no_merge: 0 (default) merges the shards' answers; 1 and 2 ask for them
   * unmerged, which the general path's plan answers (two-stage/cut-unmerged.ts) and the fast path refuses.
   */
  groupByNoMerge: GroupByNoMerge;
  /** extremes: the answer's min and max rows, computed by the engine that runs the final stage over the whole answer. */
  extremes: boolean;
}

export type GroupByNoMerge = 0 | 1 | 2;

/**
 * distributed_group_by_no_merge's value, as ClickHouse reads it: an unsigned integer where 2 is
 * "after aggregation" and any other non-zero value is 1 (the whole query on each shard).
 */
export function groupByNoMergeOf(v: SettingValue | undefined, node?: Expr): GroupByNoMerge {
  if (v === undefined) return 0;
  const s = String(v).trim().toLowerCase();
  if (s === 'true' || s === 'false') return s === 'true' ? 1 : 0;
  if (!/^\d{1,20}$/.test(s))
    throw errorAt('BAD_REQUEST', `setting distributed_group_by_no_merge must be a non-negative integer, not ${JSON.stringify(v)}`, node);
  const n = BigInt(s);
  return n === 0n ? 0 : n === 2n ? 2 : 1;
}

/**
 * 1 (the default): the shard that will run the final stage keeps its own stage-one rows in its
 * engine; 0: it ships them like every other shard (docs/architecture.md#the-initiator-keeps-its-own-rows).
 */
export const KEEP_SETTING = 'ch_scatter_keep_initiator_rows';

/** A SETTINGS clause's items as setting values (the last one of a name wins, as in ClickHouse). */
export function clauseValues(items: readonly SettingItem[] | undefined): Record<string, SettingValue> {
  const out: Record<string, SettingValue> = {};
  for (const s of items ?? []) out[s.name] = settingValueOf(s.value, s.name);
  return out;
}

/** A SETTINGS value expression as a setting value. */
export function settingValueOf(e: Expr, name: string): SettingValue {
  // A map literal (additional_table_filters) as its text, the form the URL and the request's settings carry.
  if (e.kind === 'function' && e.name === 'map' && e.operator === '{}') return printExpr(e);
  if (e.kind === 'literal') {
    if (e.type === 'string') return e.value;
    if (e.type === 'bool') return e.value.toLowerCase() === 'true';
    if (e.type === 'integer') {
      const n = Number(e.value);
      return Number.isSafeInteger(n) ? n : e.value;
    }
    if (e.type === 'float') return Number(e.value);
  }
  if (e.kind === 'function' && e.name === 'negate' && e.args[0]?.kind === 'literal') {
    const v = settingValueOf(e.args[0], name);
    if (typeof v === 'number') return -v;
  }
  throw errorAt('UNSUPPORTED', `setting ${name} must be a literal value`, e);
}

/** A setting's value as the request asks for it (and its node, for an error's position): the SQL's SETTINGS clause over the request's settings. */
export function askedSetting(
  name: string,
  requestSettings: Record<string, SettingValue> | undefined,
  stmt: SelectStatement | undefined,
): { raw?: SettingValue; node?: Expr } {
  const clause = (stmt?.settings ?? []).filter((x) => x.name === name).pop();
  return clause ? { raw: settingValueOf(clause.value, name), node: clause.value } : { raw: requestSettings?.[name] };
}

/** `auto`: two rounds where the estimated row width is over the threshold; `on` / `off`: always / never. */
export type QueryThenFetchMode = 'auto' | 'on' | 'off';

/** ch_scatter_query_then_fetch's value as a mode, or undefined when it is none. */
export function queryThenFetchModeOf(raw: SettingValue): QueryThenFetchMode | undefined {
  if (String(raw).toLowerCase() === 'auto') return 'auto';
  const on = boolSetting(raw);
  return on === undefined ? undefined : on ? 'on' : 'off';
}

/** ch_scatter_query_then_fetch_row_bytes's value: a non-negative integer, or undefined when it is none. */
export function rowBytesOf(raw: SettingValue): number | undefined {
  const n = typeof raw === 'number' ? raw : Number(raw);
  return Number.isSafeInteger(n) && n >= 0 && String(raw).trim() !== '' ? n : undefined;
}

/** A Bool setting's value, or ClickHouse's refusal of it (467 for a string, 70 for a number) with its position. */
export function boolOf(name: string, v: SettingValue, node?: Expr): boolean {
  const b = boolSetting(v);
  if (b !== undefined) return b;
  const r = boolSettingRefusal(v);
  throw errorAt('BAD_REQUEST', `setting ${name} must be 0, 1, true or false: ${r.message}`, node, { clickhouse: { code: r.code, name: r.name } });
}

/** A UInt64 setting read as a flag (force_optimize_skip_unused_shards: 0, 1 or 2). */
function uintFlagOf(name: string, v: SettingValue, node?: Expr): boolean {
  const b = uintSettingFlag(v);
  if (b === undefined) throw errorAt('BAD_REQUEST', `setting ${name} must be a non-negative integer, not ${JSON.stringify(v)}`, node);
  return b;
}

function nonNegInt(name: string, v: SettingValue): number {
  const n = typeof v === 'number' ? v : Number(v);
  if (!Number.isInteger(n) || n < 0) throw new ScatterError('BAD_REQUEST', `setting ${name} must be a non-negative integer, not ${String(v)}`);
  return n;
}

function boolOrUint(name: string, v: SettingValue, node?: Expr): void {
  const s = String(v).trim().toLowerCase();
  if (!/^\d{1,20}$/.test(s) && s !== 'true' && s !== 'false')
    throw errorAt('BAD_REQUEST', `setting ${name} must be a non-negative integer, not ${JSON.stringify(v)}`, node);
}

/** Whether merged request settings ask for extremes (checked by resolveSettings when the leaves are planned). */
export function asksExtremes(settings: Record<string, SettingValue> | undefined): boolean {
  const v = settings?.extremes;
  return v !== undefined && boolSetting(v) === true;
}

/**
 * max_execution_time in merged request settings, in ms: what it lowers the request's deadline to.
 * Undefined when absent, 0 (no limit, as in ClickHouse) or not a number of seconds (resolveSettings refuses that).
 */
export function executionLimitMs(settings: Record<string, SettingValue> | undefined): number | undefined {
  const v = settings?.max_execution_time;
  if (v === undefined || typeof v === 'boolean' || (typeof v === 'string' && !/^\s*\d+(\.\d+)?\s*$/.test(v))) return undefined;
  const ms = Number(v) * 1000;
  return Number.isFinite(ms) && ms > 0 ? Math.max(1, Math.floor(ms)) : undefined;
}

/** timeout_overflow_mode = 'throw' asked for: a shard missing at the deadline fails the query instead of a partial answer. */
export function timeoutThrows(settings: Record<string, SettingValue> | undefined): boolean {
  return String(settings?.timeout_overflow_mode ?? '').toLowerCase() === 'throw';
}

/** The tighter of two limits where 0 means unlimited: a request may lower the operator's limit, never raise it. */
const tighter = (config: number, asked: number): number => (config === 0 ? asked : asked === 0 ? config : Math.min(config, asked));

export function resolveSettings(
  request: Record<string, SettingValue> | undefined,
  clause: SettingItem[] | undefined,
  defaults: QueryDefaults,
  opts: { forceSkipUnusedShards?: boolean; distributedProductMode?: 'deny' | 'local' | 'global' },
): PlannerSettings {
  const merged = new Map<string, { value: SettingValue; node?: Expr }>();
  for (const [k, v] of Object.entries(request ?? {})) merged.set(k, { value: v });
  for (const s of clause ?? []) merged.set(s.name, { value: settingValueOf(s.value, s.name), node: s.value });

  const out: PlannerSettings = {
    forward: {},
    skipUnusedShards: true,
    rewriteIn: true,
    forceSkip: opts.forceSkipUnusedShards ?? false,
    distributedProductMode: opts.distributedProductMode ?? defaults.distributedProductMode ?? 'deny',
    maxRowsToTransfer: defaults.maxRowsToTransfer,
    maxBytesToTransfer: defaults.maxBytesToTransfer,
    transferOverflowMode: defaults.transferOverflowMode,
    topCount: defaults.topCount ?? 'exact',
    approximate: 'states',
    groupByNoMerge: 0,
    extremes: false,
  };
  let preferGlobal = false;

  for (const [name, { value, node }] of merged) {
    switch (name) {
      case 'optimize_skip_unused_shards':
        out.skipUnusedShards = boolOf(name, value, node);
        continue;
      case 'optimize_skip_unused_shards_rewrite_in':
        out.rewriteIn = boolOf(name, value, node);
        continue;
      case 'force_optimize_skip_unused_shards':
        out.forceSkip = uintFlagOf(name, value, node) || out.forceSkip;
        continue;
      case 'enable_positional_arguments':
        // Settled before planning (positional.ts): engines get resolved columns and pinned constants.
        boolOf(name, value, node);
        continue;
      case 'enable_order_by_all':
        // Settled before planning (order-by-all.ts): engines get the ORDER BY written out.
        boolOf(name, value, node);
        continue;
      case RESULT_FILTER_SETTING:
        resultFilterOf(node ?? value);
        continue;
      case TABLE_FILTERS_SETTING:
        // Applied before planning (table-filters.ts): each filter reaches the shards inside the query.
        tableFiltersOf(node ?? value);
        continue;
      case 'union_default_mode':
      case 'except_default_mode':
      case 'intersect_default_mode':
        // Settled before planning (set-op-modes.ts): engines get each operator's mode written out.
        checkSetOperationMode(value, node);
        continue;
      case 'prefer_localhost_replica':
      case 'max_distributed_connections':
      case 'distributed_aggregation_memory_efficient':
      case 'optimize_distributed_group_by_sharding_key':
      case 'distributed_push_down_limit':
      // Caps how many key values skipping considers; past it ClickHouse reads every shard: the same answer.
      case 'optimize_skip_unused_shards_limit':
        // How a Distributed table reaches its shards: no meaning for an answer ch-scatter merges itself.
        boolOrUint(name, value, node);
        continue;
      case 'max_execution_time':
        // Lowers the request's one deadline (openQuerySession); every shard gets its own from that deadline.
        if (executionLimitMs({ [name]: value }) === undefined && Number(value) !== 0)
          throw errorAt('BAD_REQUEST', `setting max_execution_time must be a non-negative number of seconds, not ${JSON.stringify(value)}`, node);
        continue;
      case 'timeout_overflow_mode':
        // 'break': at the deadline, what arrived, labelled partial; 'throw': a shard missing then fails the query.
        if (!['throw', 'break'].includes(String(value).toLowerCase())) throw errorAt('BAD_REQUEST', `timeout_overflow_mode must be 'throw' or 'break'`, node);
        continue;
      case 'distributed_group_by_no_merge':
        out.groupByNoMerge = groupByNoMergeOf(value, node);
        continue;
      case 'extremes':
        // Computed over the whole answer where it is rendered (the final stage), never on a shard.
        out.extremes = boolOf(name, value, node);
        continue;
      case 'prefer_global_in_and_join':
        preferGlobal = boolOf(name, value, node);
        continue;
      case 'distributed_product_mode': {
        const m = String(value).toLowerCase();
        if (m !== 'deny' && m !== 'local' && m !== 'global') {
          throw errorAt('UNSUPPORTED', `distributed_product_mode '${String(value)}' is not supported; use 'deny', 'local' or 'global'`, node);
        }
        out.distributedProductMode = m;
        continue;
      }
      case 'max_rows_to_transfer':
        out.maxRowsToTransfer = tighter(defaults.maxRowsToTransfer, nonNegInt(name, value));
        continue;
      case 'max_bytes_to_transfer':
        out.maxBytesToTransfer = tighter(defaults.maxBytesToTransfer, nonNegInt(name, value));
        continue;
      case 'ch_scatter_top_count': {
        const m = String(value).toLowerCase();
        if (m !== 'exact' && m !== 'shard_size' && m !== 'tput' && m !== 'every_group')
          throw errorAt('BAD_REQUEST', `ch_scatter_top_count must be 'exact', 'tput', 'every_group' or 'shard_size'`, node);
        out.topCount = m;
        continue;
      }
      case 'ch_scatter_approximate': {
        const m = String(value).toLowerCase();
        if (m !== 'states' && m !== 'sketches') throw errorAt('BAD_REQUEST', `ch_scatter_approximate must be 'states' or 'sketches'`, node);
        out.approximate = m;
        continue;
      }
      case 'ch_scatter_path': {
        // Read by the runtime before planning (shared/core/scatter/two-stage/path.ts); checked here too.
        const m = String(value).toLowerCase();
        if (m !== 'auto' && m !== 'fast' && m !== 'general') throw errorAt('BAD_REQUEST', `ch_scatter_path must be 'auto', 'fast' or 'general'`, node);
        continue;
      }
      case 'ch_scatter_query_then_fetch': {
        // Read by the runtime before planning (shared/core/scatter/query-then-fetch.ts); checked here.
        if (!queryThenFetchModeOf(value)) throw errorAt('BAD_REQUEST', `ch_scatter_query_then_fetch must be 'auto', 1 or 0`, node);
        continue;
      }
      case 'ch_scatter_query_then_fetch_row_bytes': {
        if (rowBytesOf(value) === undefined)
          throw errorAt('BAD_REQUEST', 'ch_scatter_query_then_fetch_row_bytes must be a non-negative integer of bytes', node);
        continue;
      }
      case KEEP_SETTING: {
        // Read by the runtime (shared/core/scatter/two-stage/kept-stage.ts); checked here.
        boolOf(name, value, node);
        continue;
      }
      case 'transfer_overflow_mode': {
        const m = String(value).toLowerCase();
        if (m !== 'throw' && m !== 'break') throw errorAt('BAD_REQUEST', `transfer_overflow_mode must be 'throw' or 'break'`, node);
        out.transferOverflowMode = m;
        continue;
      }
    }
    if (isFileSetting(name)) throw fileSettingError(name, node ? 'in a SETTINGS clause' : 'in the request settings', node);
    if (isInitiatorOnly(name)) {
      throw errorAt(
        'UNSUPPORTED',
        `setting ${name} shapes the answer's format or rows at the initiator; ch-scatter's answer format is fixed (ClickHouse JSON conventions: 64-bit integers as strings) and it does not apply such settings: remove it`,
        node,
      );
    }
    if (RUNTIME_OWNED.has(name)) {
      throw errorAt('UNSUPPORTED', `setting ${name} is set by ch-scatter's runtime for every shard query and cannot be changed per query`, node);
    }
    if (!FORWARDED_SETTINGS.has(name)) {
      const fate = settingFate(name);
      if (fate === 'unknown') throw errorAt('UNSUPPORTED', `Unknown setting ${name}`, node, { clickhouse: { code: 115, name: 'UNKNOWN_SETTING' } });
      throw errorAt('UNSUPPORTED', `setting ${name} is not supported (not on the list of settings forwarded to shards)`, node, {
        clickhouse: { code: 452, name: 'SETTING_CONSTRAINT_VIOLATION' },
      });
    }
    const checked = forwardedValue(name, value, node)!;
    checkLowerable(name, checked, defaults.limitCeilings ?? {}, node);
    out.forward[name] = checked;
  }
  if (preferGlobal) out.distributedProductMode = 'global'; // ClickHouse: upgrades local IN/JOIN to GLOBAL
  return out;
}
