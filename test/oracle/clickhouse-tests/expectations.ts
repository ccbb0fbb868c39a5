// What the stack refuses of the corpus, or answers differently from one node, each with its reason.
// `clickhouse: true`: ClickHouse's Distributed table refuses or differs the same way.
export interface Expected {
  kind: 'refused' | 'differs';
  why: string;
  clickhouse?: true;
}

export const EXPECTED: Record<string, Expected> = {
  '00019_shard_quantiles_totals_distributed#1': {
    kind: 'refused',
    why: 'setting enable_positional_arguments is not on the list of settings ch-scatter applies or forwards yet',
  },
  '00108_shard_totals_after_having#1': { kind: 'refused', why: 'setting totals_mode is not on the list of settings ch-scatter applies or forwards yet' },
  '00108_shard_totals_after_having#2': { kind: 'refused', why: 'setting totals_mode is not on the list of settings ch-scatter applies or forwards yet' },
  '00108_shard_totals_after_having#3': { kind: 'refused', why: 'setting totals_mode is not on the list of settings ch-scatter applies or forwards yet' },
  '00108_shard_totals_after_having#4': { kind: 'refused', why: 'setting totals_mode is not on the list of settings ch-scatter applies or forwards yet' },
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
  '00257_shard_no_aggregates_and_constant_keys#1': {
    kind: 'refused',
    why: 'setting enable_positional_arguments is not on the list of settings ch-scatter applies or forwards yet',
  },
  '00257_shard_no_aggregates_and_constant_keys#2': {
    kind: 'refused',
    why: 'setting enable_positional_arguments is not on the list of settings ch-scatter applies or forwards yet',
  },
  '00257_shard_no_aggregates_and_constant_keys#3': {
    kind: 'refused',
    why: 'setting enable_positional_arguments is not on the list of settings ch-scatter applies or forwards yet',
  },
  '00257_shard_no_aggregates_and_constant_keys#4': {
    kind: 'refused',
    why: 'setting enable_positional_arguments is not on the list of settings ch-scatter applies or forwards yet',
  },
  '00257_shard_no_aggregates_and_constant_keys#5': {
    kind: 'refused',
    why: 'setting enable_positional_arguments is not on the list of settings ch-scatter applies or forwards yet',
  },
  '00257_shard_no_aggregates_and_constant_keys#6': {
    kind: 'refused',
    why: 'setting enable_positional_arguments is not on the list of settings ch-scatter applies or forwards yet',
  },
  '00257_shard_no_aggregates_and_constant_keys#8': {
    kind: 'refused',
    why: 'an alias of a constant (42 AS z) in GROUP BY is sent to the shards as the literal 42, which ClickHouse 26 reads as a position (36)',
  },
  '00294_shard_enums#5': {
    kind: 'refused',
    why: "a plain IN over the same distributed table: ClickHouse's Distributed table refuses it too under distributed_product_mode = 'deny' (288)",
    clickhouse: true,
  },
  '01104_distributed_numbers_test#2': {
    kind: 'refused',
    why: 'setting prefer_localhost_replica is not on the list of settings ch-scatter applies or forwards yet',
  },
  '01244_optimize_distributed_group_by_sharding_key#2': {
    kind: 'refused',
    why: "SELECT * with GROUP BY: the plan does not know the table's columns yet (the columns of each table are another change in flight)",
  },
  '01244_optimize_distributed_group_by_sharding_key#3': {
    kind: 'refused',
    why: "SELECT * with GROUP BY: the plan does not know the table's columns yet (the columns of each table are another change in flight)",
  },
  '01244_optimize_distributed_group_by_sharding_key#4': {
    kind: 'refused',
    why: 'setting enable_positional_arguments is not on the list of settings ch-scatter applies or forwards yet',
  },
  '01244_optimize_distributed_group_by_sharding_key#5': {
    kind: 'refused',
    why: "SELECT * with GROUP BY: the plan does not know the table's columns yet (the columns of each table are another change in flight)",
  },
  '01244_optimize_distributed_group_by_sharding_key#11': {
    kind: 'refused',
    why: "SELECT * with GROUP BY: the plan does not know the table's columns yet (the columns of each table are another change in flight)",
  },
  '01244_optimize_distributed_group_by_sharding_key#12': {
    kind: 'refused',
    why: "SELECT * with GROUP BY: the plan does not know the table's columns yet (the columns of each table are another change in flight)",
  },
  '01244_optimize_distributed_group_by_sharding_key#13': {
    kind: 'refused',
    why: "SELECT * with GROUP BY: the plan does not know the table's columns yet (the columns of each table are another change in flight)",
  },
  '01244_optimize_distributed_group_by_sharding_key#14': {
    kind: 'refused',
    why: "SELECT * with GROUP BY: the plan does not know the table's columns yet (the columns of each table are another change in flight)",
  },
  '01244_optimize_distributed_group_by_sharding_key#15': {
    kind: 'refused',
    why: "SELECT * with GROUP BY: the plan does not know the table's columns yet (the columns of each table are another change in flight)",
  },
  '01244_optimize_distributed_group_by_sharding_key#16': {
    kind: 'refused',
    why: "SELECT * with GROUP BY: the plan does not know the table's columns yet (the columns of each table are another change in flight)",
  },
  '01244_optimize_distributed_group_by_sharding_key#17': {
    kind: 'refused',
    why: "SELECT * with GROUP BY: the plan does not know the table's columns yet (the columns of each table are another change in flight)",
  },
  '01244_optimize_distributed_group_by_sharding_key#18': {
    kind: 'refused',
    why: "SELECT * with GROUP BY: the plan does not know the table's columns yet (the columns of each table are another change in flight)",
  },
  '01244_optimize_distributed_group_by_sharding_key#19': {
    kind: 'refused',
    why: "SELECT * with GROUP BY: the plan does not know the table's columns yet (the columns of each table are another change in flight)",
  },
  '01244_optimize_distributed_group_by_sharding_key#20': {
    kind: 'refused',
    why: "SELECT * with GROUP BY: the plan does not know the table's columns yet (the columns of each table are another change in flight)",
  },
  '01244_optimize_distributed_group_by_sharding_key#21': {
    kind: 'refused',
    why: "SELECT * with GROUP BY: the plan does not know the table's columns yet (the columns of each table are another change in flight)",
  },
  '01244_optimize_distributed_group_by_sharding_key#22': { kind: 'refused', why: 'DISTINCT ON is not planned yet' },
  '01244_optimize_distributed_group_by_sharding_key#24': { kind: 'refused', why: 'OFFSET without LIMIT is not parsed yet' },
  '01259_combinator_distinct_distributed#5': {
    kind: 'refused',
    why: 'setting distributed_aggregation_memory_efficient is not on the list of settings ch-scatter applies or forwards yet',
  },
  '01259_combinator_distinct_distributed#6': {
    kind: 'refused',
    why: 'setting distributed_aggregation_memory_efficient is not on the list of settings ch-scatter applies or forwards yet',
  },
  '01272_offset_without_limit#1': { kind: 'refused', why: 'OFFSET without LIMIT is not parsed yet' },
  '01813_distributed_scalar_subqueries_alias#1': {
    kind: 'refused',
    why: 'a constant table (numbers()) inside a distributed query is refused: not evaluated where ClickHouse evaluates it yet',
  },
  '01813_distributed_scalar_subqueries_alias#2': {
    kind: 'differs',
    why: "ClickHouse numbers a scalar subquery's column name (_subquery_1); the planner names it _subquery",
  },
  '01813_distributed_scalar_subqueries_alias#3': {
    kind: 'refused',
    why: 'a constant table (numbers()) inside a distributed query is refused: not evaluated where ClickHouse evaluates it yet',
  },
  '02343_group_by_use_nulls_distributed#1': {
    kind: 'refused',
    why: 'setting group_by_use_nulls is not on the list of settings ch-scatter applies or forwards yet',
  },
  '02343_group_by_use_nulls_distributed#2': {
    kind: 'refused',
    why: 'setting group_by_use_nulls is not on the list of settings ch-scatter applies or forwards yet',
  },
  '02343_group_by_use_nulls_distributed#3': {
    kind: 'refused',
    why: 'setting group_by_use_nulls is not on the list of settings ch-scatter applies or forwards yet',
  },
  '02343_group_by_use_nulls_distributed#4': {
    kind: 'refused',
    why: 'setting group_by_use_nulls is not on the list of settings ch-scatter applies or forwards yet',
  },
  '02343_group_by_use_nulls_distributed#5': {
    kind: 'refused',
    why: 'setting group_by_use_nulls is not on the list of settings ch-scatter applies or forwards yet',
  },
  '02343_group_by_use_nulls_distributed#6': {
    kind: 'refused',
    why: 'setting group_by_use_nulls is not on the list of settings ch-scatter applies or forwards yet',
  },
};
