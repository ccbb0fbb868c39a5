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
  '02346_additional_filters#25': {
    kind: 'differs',
    why: "the single chdb node (26.7) fails on an IN subquery inside additional_result_filter with 49 LOGICAL_ERROR (Not-ready Set), an engine bug; ClickHouse's .reference answers it, and ch-scatter answers as the reference does",
  },
  '02346_additional_filters#26': {
    kind: 'differs',
    why: "the single chdb node (26.7) fails on an IN subquery inside additional_result_filter with 49 LOGICAL_ERROR (Not-ready Set), an engine bug; ClickHouse's .reference answers it, and ch-scatter answers as the reference does",
  },
  '01071_force_optimize_skip_unused_shards#2': {
    kind: 'refused',
    why: "force_optimize_skip_unused_shards with no condition on the sharding key: ClickHouse's Distributed table refuses it too (507 UNABLE_TO_SKIP_UNUSED_SHARDS, as the test expects)",
    clickhouse: true,
  },
  '01071_force_optimize_skip_unused_shards#3': {
    kind: 'refused',
    why: "force_optimize_skip_unused_shards with no condition on the sharding key: ClickHouse's Distributed table refuses it too (507 UNABLE_TO_SKIP_UNUSED_SHARDS, as the test expects)",
    clickhouse: true,
  },
  '01072_optimize_skip_unused_shards_const_expr_eval#8': {
    kind: 'refused',
    why: "force_optimize_skip_unused_shards with the key compared to a column (key = value): ClickHouse's Distributed table refuses it too (507 UNABLE_TO_SKIP_UNUSED_SHARDS, as the test expects)",
    clickhouse: true,
  },
  '01072_optimize_skip_unused_shards_const_expr_eval#9': {
    kind: 'refused',
    why: "force_optimize_skip_unused_shards with the key compared to a column (key = value): ClickHouse's Distributed table refuses it too (507 UNABLE_TO_SKIP_UNUSED_SHARDS, as the test expects)",
    clickhouse: true,
  },
  '01211_optimize_skip_unused_shards_type_mismatch#1': {
    kind: 'refused',
    why: "force_optimize_skip_unused_shards = 2 with the Int32 key compared to 0xdeadbeafdeadbeaf, which converts to no Int32: no condition on the key, and ClickHouse's Distributed table refuses it too (507 UNABLE_TO_SKIP_UNUSED_SHARDS, as the test expects)",
    clickhouse: true,
  },
  '01756_optimize_skip_unused_shards_rewrite_in#6': {
    kind: 'refused',
    why: "force_optimize_skip_unused_shards = 2 with NOT IN on the sharding key: ClickHouse's Distributed table refuses it too (507 UNABLE_TO_SKIP_UNUSED_SHARDS, as the test expects)",
    clickhouse: true,
  },
  '02933_paste_join#2': {
    kind: 'refused',
    why: "a PASTE JOIN whose right side reads the same distributed table without GLOBAL: ClickHouse's Distributed table refuses it too under distributed_product_mode = 'deny' (288); with GLOBAL its shards refuse the ALL PASTE JOIN they are sent (62)",
    clickhouse: true,
  },
  '02933_paste_join#3': {
    kind: 'refused',
    why: "a PASTE JOIN with the same distributed table on the right without GLOBAL: ClickHouse's Distributed table refuses it too under distributed_product_mode = 'deny' (288); with GLOBAL its shards refuse the ALL PASTE JOIN they are sent (62)",
    clickhouse: true,
  },
};
