// What becomes of each setting a client sends (URL parameter or SETTINGS clause), decided by name in
// one place for the ClickHouse interface, the planner and system.settings' `readonly` column:
//  - forwarded: on the allowlist, value-checked, sent with every shard query (setting-values.ts);
//  - planner: ch-scatter's knobs among ClickHouse's names and its own ch_scatter_* (settings.ts);
//  - interface: read by the HTTP interface itself (the deadline, partial answers, compression, CORS);
//  - result: shape the answer where ClickHouse's initiator applies them (limit/offset, result caps,
//    output format settings): the final stage's engine, or the interface;
//  - ignored: concern only the client, the connection, logging or the session: accepted with no effect
//    as ClickHouse-interface URL parameters (the JSON API and SETTINGS clauses still refuse them);
//  - refused: would lift a protection (read-only, the deadline, files, introspection): refused by name;
//  - fixed: any other setting ClickHouse knows: 452 "should not be changed", as ClickHouse answers a
//    setting its profile constrains, and `readonly = 1` in system.settings so drivers do not send it;
//  - unknown: not a ClickHouse setting at all: 115 UNKNOWN_SETTING.
import { CLICKHOUSE_SETTINGS } from '../clickhouse/known-settings.js';
import { isFileSetting } from '../clickhouse/file-names.js';
import { SETTING_SPECS } from './setting-values.js';
import { SET_OPERATION_MODE_SETTINGS } from './set-op-modes.js';
import { RESULT_FILTER_SETTING, TABLE_FILTERS_SETTING } from './table-filters.js';

export type SettingFate = 'forwarded' | 'planner' | 'interface' | 'result' | 'ignored' | 'refused' | 'fixed' | 'unknown';

/** ch-scatter's planner knobs among ClickHouse's setting names: read by the planner (settings.ts), never forwarded. */
export const PLANNER_KNOBS: ReadonlySet<string> = new Set([
  'optimize_skip_unused_shards',
  'optimize_skip_unused_shards_rewrite_in',
  'force_optimize_skip_unused_shards',
  'prefer_global_in_and_join',
  'distributed_product_mode',
  'distributed_group_by_no_merge',
  'max_rows_to_transfer',
  'max_bytes_to_transfer',
  'transfer_overflow_mode',
  ...SET_OPERATION_MODE_SETTINGS,
  TABLE_FILTERS_SETTING,
  RESULT_FILTER_SETTING,
  'timeout_overflow_mode',
]);

/** Taken by the planner (settings.ts) with no effect on the answer (how a Distributed table reaches its
 *  shards) or settled before planning (positions): accepted in the URL as in a SETTINGS clause, and, unlike
 *  the knobs above, inside a subquery too. */
export const PLANNER_ACCEPTED: ReadonlySet<string> = new Set([
  'enable_positional_arguments',
  'enable_order_by_all',
  'prefer_localhost_replica',
  'max_distributed_connections',
  'distributed_aggregation_memory_efficient',
  'optimize_distributed_group_by_sharding_key',
  'distributed_push_down_limit',
  'optimize_skip_unused_shards_limit',
]);

/** ch-scatter's own settings (not ClickHouse's), read by the planner and the runtime. */
export const OWN_SETTINGS: ReadonlySet<string> = new Set([
  'ch_scatter_top_count',
  'ch_scatter_keep_initiator_rows',
  'ch_scatter_path',
  'ch_scatter_approximate',
  'ch_scatter_query_then_fetch',
  'ch_scatter_query_then_fetch_row_bytes',
]);

/** Read by the HTTP interface itself (request.ts, cors.ts). */
export const INTERFACE_SETTINGS: ReadonlySet<string> = new Set([
  'max_execution_time',
  'skip_unavailable_shards',
  'enable_http_compression',
  'http_zlib_compression_level',
  'readonly',
  'add_http_cors_header',
]);

/** Shape the rows of the answer at the initiator. */
export const RESULT_SETTINGS: ReadonlySet<string> = new Set(['limit', 'offset', 'max_result_rows', 'max_result_bytes', 'result_overflow_mode']);

/** Output (and input) format settings: given to the engine that renders the answer. */
export const isFormatSetting = (n: string): boolean =>
  (n.startsWith('output_format_') || n.startsWith('format_') || n.startsWith('input_format_') || n === 'date_time_output_format') && !PROTECTION.has(n);

/**
 * Format settings a function reads where it runs, beside the format rendering the answer (toJSONString, formatRow of
 * a JSON format): the JSON family's, which the stage tables' TabSeparated and RowBinary never read.
 */
export const isComputedFormatSetting = (n: string): boolean => n.startsWith('output_format_json_') && isFormatSetting(n);

/** Lift a protection ch-scatter's runtime holds for every query. */
const PROTECTION = new Set([
  'allow_ddl',
  'max_concurrent_queries_for_user',
  'max_concurrent_queries_for_all_users',
  'allow_introspection_functions',
  'format_display_secrets_in_show_and_select',
  'max_query_size',
  'max_ast_depth',
  'max_ast_elements',
  'max_expanded_ast_elements',
  'max_parser_depth',
  'max_execution_time_leaf',
  'max_estimated_execution_time',
  'max_network_bandwidth',
  'max_network_bytes',
  'max_network_bandwidth_for_user',
  'max_network_bandwidth_for_all_users',
  'max_memory_usage_for_user',
  'max_untracked_memory',
  'memory_overcommit_ratio_denominator',
  'max_server_memory_usage',
  'allow_experimental_funnel_functions',
  'allow_nondeterministic_mutations',
  'table_function_remote_max_addresses',
]);

/** Concern the client, the connection, logging or the session: accepted and ignored. */
const IGNORED = new Set([
  'send_progress_in_http_headers',
  'http_headers_progress_interval_ms',
  'http_wait_end_of_query',
  'http_response_buffer_size',
  'cancel_http_readonly_queries_on_client_close',
  'http_write_exception_in_output_format',
  'http_native_compression_disable_checksumming_on_decompress',
  'wait_end_of_query',
  'log_queries',
  'log_queries_min_type',
  'log_queries_min_query_duration_ms',
  'log_comment',
  'log_formatted_queries',
  'log_profile_events',
  'log_query_threads',
  'log_query_views',
  'log_query_settings',
  'log_processors_profiles',
  'send_logs_level',
  'send_logs_source_regexp',
  'async_insert',
  'wait_for_async_insert',
  'wait_for_async_insert_timeout',
  'insert_deduplicate',
  'insert_quorum',
  'date_time_input_format',
  'allow_experimental_analyzer',
  'enable_analyzer',
  'use_client_time_zone',
  'interactive_delay',
  'connect_timeout',
  'connect_timeout_with_failover_ms',
  'connect_timeout_with_failover_secure_ms',
  'receive_timeout',
  'send_timeout',
  'tcp_keep_alive_timeout',
  'idle_connection_timeout',
  'network_compression_method',
  'network_zstd_compression_level',
  'calculate_text_stack_trace',
  'query_profiler_real_time_period_ns',
  'query_profiler_cpu_time_period_ns',
  'memory_profiler_step',
  'memory_profiler_sample_probability',
  'opentelemetry_start_trace_probability',
  'opentelemetry_trace_processors',
  'workload',
  'use_query_cache',
  'enable_reads_from_query_cache',
  'enable_writes_to_query_cache',
]);

const KNOWN = new Set(CLICKHOUSE_SETTINGS);

export function settingFate(name: string): SettingFate {
  if (SETTING_SPECS.has(name)) return 'forwarded';
  if (PLANNER_KNOBS.has(name) || PLANNER_ACCEPTED.has(name) || OWN_SETTINGS.has(name)) return 'planner';
  if (INTERFACE_SETTINGS.has(name)) return 'interface';
  if (isFileSetting(name) || PROTECTION.has(name)) return 'refused';
  if (RESULT_SETTINGS.has(name) || isFormatSetting(name) || name === 'extremes') return 'result';
  if (IGNORED.has(name)) return 'ignored';
  return KNOWN.has(name) ? 'fixed' : 'unknown';
}

/** Whether a client may send the setting (system.settings' `readonly` is 0): it is taken, one way or another. */
export function isChangeable(name: string): boolean {
  const f = settingFate(name);
  return f !== 'fixed' && f !== 'refused' && f !== 'unknown';
}

/** The settings a client may send among ClickHouse's own names (for system.settings' `readonly` column). */
export function changeableSettings(): string[] {
  return CLICKHOUSE_SETTINGS.filter(isChangeable);
}
