// What the stack refuses of the corpus, or answers differently from one node, each with its reason.
// `clickhouse: true`: ClickHouse's Distributed table refuses or differs the same way.
export interface Expected {
  kind: 'refused' | 'differs';
  why: string;
  clickhouse?: true;
}

export const EXPECTED: Record<string, Expected> = {
  '00184_shard_distributed_group_by_no_merge#1': {
    kind: 'refused',
    why: 'distributed_group_by_no_merge asks for per-shard answers without the merge; ch-scatter always merges, so it refuses the setting rather than answer differently',
  },
  '00184_shard_distributed_group_by_no_merge#2': {
    kind: 'refused',
    why: 'distributed_group_by_no_merge asks for per-shard answers without the merge; ch-scatter always merges, so it refuses the setting rather than answer differently',
  },
  '00184_shard_distributed_group_by_no_merge#3': {
    kind: 'refused',
    why: 'distributed_group_by_no_merge asks for per-shard answers without the merge; ch-scatter always merges, so it refuses the setting rather than answer differently',
  },
  '00184_shard_distributed_group_by_no_merge#4': {
    kind: 'refused',
    why: 'distributed_group_by_no_merge asks for per-shard answers without the merge; ch-scatter always merges, so it refuses the setting rather than answer differently',
  },
  '00184_shard_distributed_group_by_no_merge#5': {
    kind: 'refused',
    why: 'distributed_group_by_no_merge asks for per-shard answers without the merge; ch-scatter always merges, so it refuses the setting rather than answer differently',
  },
  '00184_shard_distributed_group_by_no_merge#6': {
    kind: 'refused',
    why: 'distributed_group_by_no_merge asks for per-shard answers without the merge; ch-scatter always merges, so it refuses the setting rather than answer differently',
  },
  '00184_shard_distributed_group_by_no_merge#7': {
    kind: 'refused',
    why: 'distributed_group_by_no_merge asks for per-shard answers without the merge; ch-scatter always merges, so it refuses the setting rather than answer differently',
  },
  '00184_shard_distributed_group_by_no_merge#8': {
    kind: 'refused',
    why: 'distributed_group_by_no_merge asks for per-shard answers without the merge; ch-scatter always merges, so it refuses the setting rather than answer differently',
  },
  '00294_shard_enums#5': {
    kind: 'refused',
    why: "a plain IN over the same distributed table: ClickHouse's Distributed table refuses it too under distributed_product_mode = 'deny' (288)",
    clickhouse: true,
  },
  '01244_optimize_distributed_group_by_sharding_key#14': {
    kind: 'refused',
    why: 'SETTINGS extremes = 1 through the JSON API: its answer has no extremes block (the ClickHouse interface renders them)',
  },
  '02001_dist_on_dist_WithMergeableStateAfterAggregation#3': {
    kind: 'refused',
    why: 'distributed_group_by_no_merge asks for per-shard answers without the merge; ch-scatter always merges, so it refuses the setting rather than answer differently',
  },
  '00224_shard_distributed_aggregation_memory_efficient_and_overflows#2': {
    kind: 'refused',
    why: "group_by_overflow_mode = 'any' truncates a shard's groups silently; ch-scatter refuses it by design (docs/operations.md), so a partial merge is never labelled complete",
  },
  '00980_shard_aggregation_state_deserialization#1': {
    kind: 'refused',
    why: 'a scalar subquery over a distributed table runs on the fast path only, which cannot merge groupBitmapState; it does not fall back to the general path yet',
  },
  '01223_dist_on_dist#13': {
    kind: 'refused',
    why: 'distributed_group_by_no_merge asks for per-shard answers without the merge; ch-scatter always merges, so it refuses the setting rather than answer differently',
  },
  '00613_shard_distributed_max_execution_time#1': {
    kind: 'refused',
    why: "max_execution_time and timeout_overflow_mode belong to ch-scatter's deadline (one absolute deadline per request; a late shard makes the answer partial, never silently cut)",
  },
  '02346_additional_filters#25': {
    kind: 'differs',
    why: "the single chdb node (26.7) fails on an IN subquery inside additional_result_filter with 49 LOGICAL_ERROR (Not-ready Set), an engine bug; ClickHouse's .reference answers it, and ch-scatter answers as the reference does",
  },
  '02346_additional_filters#26': {
    kind: 'differs',
    why: "the single chdb node (26.7) fails on an IN subquery inside additional_result_filter with 49 LOGICAL_ERROR (Not-ready Set), an engine bug; ClickHouse's .reference answers it, and ch-scatter answers as the reference does",
  },
  '00850_global_join_dups#1': {
    kind: 'refused',
    why: 'SELECT * over a USING join of subqueries that select * themselves: not spelled out yet (list the columns)',
  },
};
