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
  '00980_shard_aggregation_state_deserialization#1': {
    kind: 'refused',
    why: 'the scalar subquery runs on the general path, but its value is an aggregate state (groupBitmapState), whose bytes the JSON that ships it to the shards cannot carry exactly yet',
  },
  '02346_additional_filters#25': {
    kind: 'differs',
    why: "the single chdb node (26.7) fails on an IN subquery inside additional_result_filter with 49 LOGICAL_ERROR (Not-ready Set), an engine bug; ClickHouse's .reference answers it, and ch-scatter answers as the reference does",
  },
  '02346_additional_filters#26': {
    kind: 'differs',
    why: "the single chdb node (26.7) fails on an IN subquery inside additional_result_filter with 49 LOGICAL_ERROR (Not-ready Set), an engine bug; ClickHouse's .reference answers it, and ch-scatter answers as the reference does",
  },
};
