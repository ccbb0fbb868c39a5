// What the stack refuses of the corpus, or answers differently from one node, each with its reason.
// `clickhouse: true`: ClickHouse's Distributed table refuses or differs the same way.
export interface Expected {
  kind: 'refused' | 'differs';
  why: string;
  clickhouse?: true;
}

export const EXPECTED: Record<string, Expected> = {
  '00294_shard_enums#5': {
    kind: 'refused',
    why: "a plain IN over the same distributed table: ClickHouse's Distributed table refuses it too under distributed_product_mode = 'deny' (288)",
    clickhouse: true,
  },
  '00224_shard_distributed_aggregation_memory_efficient_and_overflows#2': {
    kind: 'refused',
    why: "group_by_overflow_mode = 'any' truncates a shard's groups silently; ch-scatter refuses it by design (docs/operations.md), so a partial merge is never labelled complete",
  },
  '00980_shard_aggregation_state_deserialization#1': {
    kind: 'refused',
    why: 'a scalar subquery over a distributed table runs on the fast path only, which cannot merge groupBitmapState; it does not fall back to the general path yet',
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
    why: 'the GLOBAL JOIN subquery reads subqueries in FROM, which only the general path runs, and a GLOBAL subquery runs on the fast path only',
  },
};
