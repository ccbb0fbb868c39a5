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
  '01072_optimize_skip_unused_shards_const_expr_eval#4': {
    kind: 'refused',
    why: "force_optimize_skip_unused_shards with the key compared to a constant expression (toInt32(xxHash32(0))): ClickHouse evaluates the constant to pick the shard and answers; ch-scatter's shard pruning reads only literals on the key's right side, so it cannot skip and refuses (507)",
  },
  '01072_optimize_skip_unused_shards_const_expr_eval#5': {
    kind: 'refused',
    why: "force_optimize_skip_unused_shards with the key compared to a constant expression (toInt32(xxHash32(0))): ClickHouse evaluates the constant to pick the shard and answers; ch-scatter's shard pruning reads only literals on the key's right side, so it cannot skip and refuses (507)",
  },
  '01072_optimize_skip_unused_shards_const_expr_eval#6': {
    kind: 'refused',
    why: "force_optimize_skip_unused_shards with the key compared to a constant expression (toInt32(xxHash32(0))): ClickHouse evaluates the constant to pick the shard and answers; ch-scatter's shard pruning reads only literals on the key's right side, so it cannot skip and refuses (507)",
  },
  '01072_optimize_skip_unused_shards_const_expr_eval#7': {
    kind: 'refused',
    why: "force_optimize_skip_unused_shards with the key compared to a constant expression (toInt32(xxHash32(0))): ClickHouse evaluates the constant to pick the shard and answers; ch-scatter's shard pruning reads only literals on the key's right side, so it cannot skip and refuses (507)",
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
  '01756_optimize_skip_unused_shards_rewrite_in#6': {
    kind: 'refused',
    why: "force_optimize_skip_unused_shards = 2 with NOT IN on the sharding key: ClickHouse's Distributed table refuses it too (507 UNABLE_TO_SKIP_UNUSED_SHARDS, as the test expects)",
    clickhouse: true,
  },
  '01756_optimize_skip_unused_shards_rewrite_in#14': {
    kind: 'refused',
    why: "integers in an IN list on a String sharding key (key IN (0, 2)): ClickHouse converts each element to the column's type ('0', '2') and answers; ch-scatter's shard pruning converts a literal only to a key type it already has, and refuses with 53 TYPE_MISMATCH",
  },
  '01226_dist_on_dist_global_in#2': {
    kind: 'refused',
    why: "system.one named as a table on IN's right (GLOBAL IN system.one): the reach check reads the name as a table outside the configured ones (UNKNOWN_TABLE), though system.one is a constant table ClickHouse answers from and ch-scatter accepts in FROM (IN (SELECT dummy FROM system.one) answers)",
  },
  '01226_dist_on_dist_global_in#5': {
    kind: 'refused',
    why: "system.one named as a table on IN's right (GLOBAL IN system.one): the reach check reads the name as a table outside the configured ones (UNKNOWN_TABLE), though system.one is a constant table ClickHouse answers from and ch-scatter accepts in FROM (IN (SELECT dummy FROM system.one) answers)",
  },
};
