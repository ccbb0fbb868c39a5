// The tables ClickHouse's own Distributed-table tests read, mapped onto a 4-shard topology: what the
// tests reach through remote('127.0.0.{2,3}', system.one), system.numbers, numbers(N) and their own small
// tables (created from each test's CREATE and INSERT). Queries name the Distributed tables (`cht.*_dist`);
// the single node holds every row under the local names.
import type { Topology } from '../../../shared/core/config/schema.js';
import { topologySchema } from '../../../shared/core/config/schema.js';

export type Row = Record<string, unknown>;

export interface ChtTable {
  dist: string;
  local: string;
  key: { column: string; type: string; function: 'xxHash64' | 'identity' };
  /** Column list of the CREATE, as the test wrote it (ClickHouse 26 types). */
  columns: string;
  orderBy: string;
  rows: Row[];
  /** Of a type 18.16 lacks (JSON): not created on 18.16, so its queries count as needing a newer ClickHouse there. */
  newer?: true;
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

export const CHT_TABLES: readonly ChtTable[] = [
  {
    // system.one as two hosts see it: one row each.
    dist: 'cht.one_dist',
    local: 'cht.one',
    key: { column: 'dummy', type: 'UInt8', function: 'identity' },
    columns: 'dummy UInt8',
    orderBy: 'tuple()',
    rows: [{ dummy: 0 }, { dummy: 0 }],
  },
  {
    // system.numbers, numbers_mt, numbers_memory, numbers_1001 of the tests: 0..1000.
    dist: 'cht.numbers_dist',
    local: 'cht.numbers',
    key: { column: 'number', type: 'UInt64', function: 'identity' },
    columns: 'number UInt64',
    orderBy: 'number',
    rows: range(1001).map((number) => ({ number })),
  },
  {
    // numbers(10) and the tests' small number tables.
    dist: 'cht.numbers10_dist',
    local: 'cht.numbers10',
    key: { column: 'number', type: 'UInt64', function: 'identity' },
    columns: 'number UInt64',
    orderBy: 'number',
    rows: range(10).map((number) => ({ number })),
  },
  {
    // 00409_shard_limit_by
    dist: 'cht.limit_by_dist',
    local: 'cht.limit_by',
    key: { column: 'Num', type: 'UInt32', function: 'xxHash64' },
    columns: 'Num UInt32, Name String',
    orderBy: 'tuple()',
    rows: (
      [
        [1, 'John'],
        [1, 'John'],
        [3, 'Mary'],
        [3, 'Mary'],
        [3, 'Mary'],
        [4, 'Mary'],
        [4, 'Mary'],
        [5, 'Bill'],
        [7, 'Bill'],
        [7, 'Bill'],
        [7, 'Mary'],
        [7, 'John'],
      ] as const
    ).map(([Num, Name]) => ({ Num, Name })),
  },
  {
    // 00635_shard_distinct_order_by
    dist: 'cht.sxy_dist',
    local: 'cht.sxy',
    key: { column: 's', type: 'String', function: 'xxHash64' },
    columns: 's String, x Int8, y Int8',
    orderBy: 'tuple()',
    rows: [
      { s: 'hello', x: 0, y: 0 },
      { s: 'world', x: 0, y: 0 },
      { s: 'hello', x: 1, y: -1 },
      { s: 'world', x: -1, y: 1 },
    ],
  },
  {
    // 01813_distributed_scalar_subqueries_alias and the tests' (a, b) / (key, value) tables.
    dist: 'cht.ab_dist',
    local: 'cht.ab',
    key: { column: 'a', type: 'Int64', function: 'xxHash64' },
    columns: 'a Int64, b Int64',
    orderBy: 'tuple()',
    rows: [
      { a: 0, b: 0 },
      { a: 1, b: 10 },
      { a: 2, b: 20 },
      { a: 3, b: 30 },
      { a: 4, b: 40 },
      { a: 5, b: 50 },
    ],
  },
  {
    // 00294_shard_enums (the id keys the rows: an Enum is no sharding key type).
    dist: 'cht.enums_dist',
    local: 'cht.enums',
    key: { column: 'id', type: 'UInt32', function: 'identity' },
    columns: "id UInt32, e Enum8('a' = 0, 'b' = 1, 'c' = 2, 'd' = 3)",
    orderBy: 'id',
    rows: ['d', 'b', 'a', 'c', 'a', 'd'].map((e, id) => ({ id, e })),
  },
  {
    // Tests over (key, value) and nullable columns: 01922_sum_null_for_remote, 02343_group_by_use_nulls, ...
    dist: 'cht.kv_dist',
    local: 'cht.kv',
    key: { column: 'key', type: 'UInt64', function: 'identity' },
    columns: 'key UInt64, value String, n Nullable(Int64), d Date',
    orderBy: 'key',
    rows: range(20).map((key) => ({
      key,
      value: `v${key % 7}`,
      n: key % 3 === 0 ? null : key * 3 - 20,
      d: `2024-01-${String((key % 5) + 1).padStart(2, '0')}`,
    })),
  },
  {
    // 01568_window_functions_distributed: intDiv(number, 3) p, modulo(number, 3) o, number FROM numbers(9).
    dist: 'cht.pon_dist',
    local: 'cht.pon',
    key: { column: 'number', type: 'UInt64', function: 'identity' },
    columns: 'p UInt64, o UInt8, number UInt64',
    orderBy: 'number',
    rows: range(9).map((number) => ({ p: Math.floor(number / 3), o: number % 3, number })),
  },
  {
    // 01519_topK_distributed_parametrized: numbers(100), numbers(30) and numbers(10) in one column.
    dist: 'cht.topx_dist',
    local: 'cht.topx',
    key: { column: 'id', type: 'UInt32', function: 'identity' },
    columns: 'id UInt32, A Int64',
    orderBy: 'id',
    rows: [...range(100), ...range(30), ...range(10)].map((A, id) => ({ id, A })),
  },
  {
    // 02971_limit_by_distributed: 100 zeros and a one.
    dist: 'cht.tlb_dist',
    local: 'cht.tlb',
    key: { column: 'id', type: 'UInt32', function: 'identity' },
    columns: 'id UInt32, k UInt64',
    orderBy: 'id',
    rows: range(101).map((id) => ({ id, k: id === 100 ? 1 : 0 })),
  },
  {
    // 00614_shard_same_header_for_local_and_remote_node_in_distributed_query
    dist: 'cht.tab_dist',
    local: 'cht.tab',
    key: { column: 'data', type: 'String', function: 'xxHash64' },
    columns: 'date Date, time DateTime, data String',
    orderBy: '(time, data)',
    rows: [{ date: '2018-01-21', time: '2018-01-21 15:12:13', data: 'test' }],
  },
  {
    // 00252_shard_global_in_aggregate_function
    dist: 'cht.storage_dist',
    local: 'cht.storage',
    key: { column: 'id', type: 'UInt32', function: 'identity' },
    columns: 'id UInt32, UserID UInt64',
    orderBy: 'id',
    rows: range(10).map((id) => ({ id, UserID: id < 7 ? '6460432721393873721' : '402895971392036118' })),
  },
  {
    // 00675_shard_remote_with_table_function
    dist: 'cht.remote_test_dist',
    local: 'cht.remote_test',
    key: { column: 'a1', type: 'UInt8', function: 'identity' },
    columns: 'a1 UInt8',
    orderBy: 'a1',
    rows: [1, 2, 3, 4].map((a1) => ({ a1 })),
  },
  {
    // 01244_optimize_distributed_group_by_sharding_key and 01952_*: view(select 1 k1, 2 k2, 3 v from numbers(2)).
    dist: 'cht.kkv_dist',
    local: 'cht.kkv',
    key: { column: 'id', type: 'UInt32', function: 'identity' },
    columns: 'id UInt32, k1 UInt8, k2 UInt8, v UInt8',
    orderBy: 'id',
    rows: [0, 1].map((id) => ({ id, k1: 1, k2: 2, v: 3 })),
  },
  {
    // 00976_shard_low_cardinality_achimbab
    dist: 'cht.han_dist',
    local: 'cht.han',
    key: { column: 'k', type: 'Int32', function: 'xxHash64' },
    columns: 'k Int32, date_dt LowCardinality(Nullable(String))',
    orderBy: 'k',
    rows: [{ k: 1, date_dt: '2019-07-31' }],
  },
  {
    // 00678_shard_funnel_window (1000 of the test's 10000 users)
    dist: 'cht.funnel_dist',
    local: 'cht.funnel',
    key: { column: 'uid', type: 'String', function: 'xxHash64' },
    columns: 'uid String, its UInt32, action_code String, day Date',
    orderBy: '(uid, its)',
    rows: range(1000).map((n) => ({ uid: String(n), its: n % 3, action_code: String(n % 3), day: '2000-01-01' })),
  },
  {
    // 00506_shard_global_in_union
    dist: 'cht.globalin_dist',
    local: 'cht.globalin',
    key: { column: 'CounterID', type: 'UInt32', function: 'xxHash64' },
    columns: 'CounterID UInt32, StartDate Date',
    orderBy: 'CounterID',
    rows: [
      { CounterID: 34, StartDate: '2017-10-02' },
      { CounterID: 42, StartDate: '2017-10-02' },
      { CounterID: 55, StartDate: '2017-10-01' },
    ],
  },
  {
    // 00506_shard_global_in_union
    dist: 'cht.union_bug_dist',
    local: 'cht.union_bug',
    key: { column: 'Event', type: 'String', function: 'xxHash64' },
    columns: "Event String, Datetime DateTime('Europe/Moscow')",
    orderBy: 'Event',
    rows: [
      { Event: 'A', Datetime: 1 },
      { Event: 'B', Datetime: 2 },
    ],
  },
  {
    // 02346_additional_filters_distr
    dist: 'cht.xy_dist',
    local: 'cht.xy',
    key: { column: 'x', type: 'UInt32', function: 'identity' },
    columns: 'x UInt32, y String',
    orderBy: 'x',
    rows: [1, 2, 3, 4, 5, 6, 7, 8].map((x) => ({ x, y: ['a', 'bb', 'ccc', 'dddd'][(x - 1) % 4] })),
  },
  {
    // 00588_shard_distributed_prewhere
    dist: 'cht.xs_dist',
    local: 'cht.xs',
    key: { column: 'x', type: 'UInt64', function: 'identity' },
    columns: 'x UInt64, s String',
    orderBy: 'x',
    rows: [
      { x: 1, s: 'hello' },
      { x: 2, s: 'world' },
    ],
  },
  {
    // 00594_alias_in_distributed: an ALIAS column, resolved by each shard.
    dist: 'cht.alias10_dist',
    local: 'cht.alias10',
    key: { column: 'Id', type: 'Int8', function: 'xxHash64' },
    columns: "Id Int8, EventDate Date DEFAULT '2000-01-01', field1 Int8, field2 String, field3 ALIAS CASE WHEN field1 = 1 THEN field2 ELSE '0' END",
    orderBy: '(Id, EventDate)',
    rows: [
      { Id: 1, EventDate: '2000-01-01', field1: 1, field2: '12345' },
      { Id: 2, EventDate: '2000-01-01', field1: 2, field2: '54321' },
      { Id: 3, EventDate: '2000-01-01', field1: 0, field2: '' },
    ],
  },
  {
    // 01901_in_literal_shard_prune
    dist: 'cht.d_dist',
    local: 'cht.d',
    key: { column: 'i', type: 'UInt8', function: 'identity' },
    columns: 'i UInt8',
    orderBy: 'i',
    rows: [{ i: 1 }, { i: 2 }],
  },
  {
    // 01223_dist_on_dist: numbers(3), then number % 3 of numbers(30).
    dist: 'cht.key3_dist',
    local: 'cht.key3',
    key: { column: 'id', type: 'UInt32', function: 'identity' },
    columns: 'id UInt32, key Int32',
    orderBy: 'id',
    rows: [0, 1, 2, ...range(30).map((n) => n % 3)].map((key, id) => ({ id, key })),
  },
  {
    // 01231_distributed_aggregation_memory_efficient_mix_levels: numbers(1) on one shard, numbers(10) on the other.
    dist: 'cht.xc_dist',
    local: 'cht.xc',
    key: { column: 'id', type: 'UInt32', function: 'identity' },
    columns: 'id UInt32, x UInt64',
    orderBy: 'id',
    rows: [0, ...range(10)].map((x, id) => ({ id, x })),
  },
  {
    // 00850_global_join_dups: t_local (dummy UInt8) holding 1.
    dist: 'cht.t_local_dist',
    local: 'cht.t_local',
    key: { column: 'dummy', type: 'UInt8', function: 'identity' },
    columns: 'dummy UInt8',
    orderBy: 'dummy',
    rows: [{ dummy: 1 }],
  },
  {
    // 01227_distributed_global_in_issue_2610: numbers(10) as key Int32.
    dist: 'cht.k10_dist',
    local: 'cht.k10',
    key: { column: 'key', type: 'Int32', function: 'xxHash64' },
    columns: 'key Int32',
    orderBy: 'key',
    rows: range(10).map((key) => ({ key })),
  },
  {
    // 01103_distributed_product_mode_local_column_renames: t1_shard (id Int32) holding 42.
    dist: 'cht.t1d_dist',
    local: 'cht.t1d',
    key: { column: 'id', type: 'Int32', function: 'xxHash64' },
    columns: 'id Int32',
    orderBy: 'id',
    rows: [{ id: 42 }],
  },
  {
    // 01103_distributed_product_mode_local_column_renames: t2_shard (id Int32) holding 42, sharded alike.
    dist: 'cht.t2d_dist',
    local: 'cht.t2d',
    key: { column: 'id', type: 'Int32', function: 'xxHash64' },
    columns: 'id Int32',
    orderBy: 'id',
    rows: [{ id: 42 }],
  },
  {
    // 01470_columns_transformers
    dist: 'cht.ct_dist',
    local: 'cht.ct',
    key: { column: 'i', type: 'Int64', function: 'xxHash64' },
    columns: 'i Int64, j Int16, k Int64',
    orderBy: 'tuple()',
    rows: [
      { i: 100, j: 10, k: 324 },
      { i: 120, j: 8, k: 23 },
    ],
  },
  {
    // 03156_analyzer_array_join_distributed
    dist: 'cht.arrays_dist',
    local: 'cht.arrays',
    key: { column: 's', type: 'String', function: 'xxHash64' },
    columns: 's String, arr Array(UInt8)',
    orderBy: 's',
    rows: [
      { s: 'Hello', arr: [1, 2] },
      { s: 'World', arr: [3, 4, 5] },
      { s: 'Goodbye', arr: [] },
    ],
  },
  // 00882_multiple_join_no_alias: three (a, b) tables.
  ...(
    [
      [
        't',
        [
          [1, 1],
          [2, 2],
        ],
      ],
      ['s', [[1, 1]]],
      ['y', [[1, 1]]],
    ] as const
  ).map(([name, rows]) => ({
    dist: `cht.${name}882_dist`,
    local: `cht.${name}882`,
    key: { column: 'a', type: 'Int64', function: 'xxHash64' as const },
    columns: 'a Int64, b Int64',
    orderBy: 'tuple()',
    rows: rows.map(([a, b]) => ({ a, b })),
  })),
  {
    // 02233_interpolate_1 (t_inter_02233)
    dist: 'cht.inter_dist',
    local: 'cht.inter',
    key: { column: 'n', type: 'Int32', function: 'xxHash64' },
    columns: 'n Int32',
    orderBy: 'n',
    rows: [1, 3, 3, 6, 6, 6].map((n) => ({ n })),
  },
  {
    // 03266_with_fill_staleness: a second apart from 23:00:00, every fifth of thirty.
    dist: 'cht.staleness_dist',
    local: 'cht.staleness',
    key: { column: 'c', type: 'UInt64', function: 'identity' },
    columns: 'a DateTime, b DateTime, c UInt64',
    orderBy: 'a',
    rows: range(30)
      .filter((c) => c % 5 === 0)
      .map((c) => {
        const t = `2016-06-15 23:00:${String(c).padStart(2, '0')}`;
        return { a: t, b: t, c };
      }),
  },
  {
    // 03034_recursive_cte_tree
    dist: 'cht.tree_dist',
    local: 'cht.tree',
    key: { column: 'id', type: 'UInt64', function: 'xxHash64' },
    columns: 'id UInt64, link Nullable(UInt64), data String',
    orderBy: 'id',
    rows: [
      { id: 0, link: null, data: 'ROOT' },
      { id: 1, link: 0, data: 'Child_1' },
      { id: 2, link: 0, data: 'Child_2' },
      { id: 3, link: 1, data: 'Child_1_1' },
    ],
  },
  {
    // 02943_order_by_all, its second table (a column named `all`)
    dist: 'cht.order_by_all_dist',
    local: 'cht.order_by_all',
    key: { column: 'a', type: 'String', function: 'xxHash64' },
    columns: 'a String, b Nullable(Int32), all UInt64',
    orderBy: 'tuple()',
    rows: [
      { a: 'B', b: 3, all: 10 },
      { a: 'C', b: null, all: 40 },
      { a: 'D', b: 1, all: 20 },
      { a: 'A', b: 2, all: 30 },
    ],
  },
  // numbers(N) as one host (cht.nN_dist) or two hosts (cht.nNx2_dist) read it through remote().
  numberTable('cht.n2_dist', range(2)),
  numberTable('cht.n2x2_dist', [...range(2), ...range(2)]),
  numberTable('cht.n5_dist', range(5)),
  numberTable('cht.n5x2_dist', [...range(5), ...range(5)]),
  numberTable('cht.n6x2_dist', [...range(6), ...range(6)]),
  numberTable('cht.n10x2_dist', [...range(10), ...range(10)]),
  // 02933_paste_join: numbers(11) read over the shards.
  numberTable('cht.n11_dist', range(11)),
  // 01232_extremes: numbers(2) on one shard's database, numbers(3) on the other's.
  numberTable('cht.n2n3_dist', [...range(2), ...range(3)]),
  // 01456_ast_optimizations_over_distributed: numbers(1) read by two local shards.
  numberTable('cht.zero2_dist', [0, 0]),
  {
    // 01532_having_with_totals: `select 1 a` read by one host (cht.a1_dist) or two.
    dist: 'cht.a1x2_dist',
    local: 'cht.a1x2',
    key: { column: 'a', type: 'UInt8', function: 'identity' },
    columns: 'a UInt8',
    orderBy: 'tuple()',
    rows: [{ a: 1 }, { a: 1 }],
  },
  {
    dist: 'cht.a1_dist',
    local: 'cht.a1',
    key: { column: 'a', type: 'UInt8', function: 'identity' },
    columns: 'a UInt8',
    orderBy: 'tuple()',
    rows: [{ a: 1 }],
  },
  {
    // 01582_distinct_subquery_groupby
    dist: 'cht.sab_dist',
    local: 'cht.sab',
    key: { column: 'a', type: 'String', function: 'xxHash64' },
    columns: 'a String, b Int32',
    orderBy: 'tuple()',
    rows: [
      { a: 'a', b: 0 },
      { a: 'a', b: 1 },
      { a: 'b', b: 0 },
    ],
  },
  {
    // 01213_optimize_skip_unused_shards_DISTINCT: numbers(2) inserted twice, read by two local shards.
    dist: 'cht.id01213_dist',
    local: 'cht.id01213',
    key: { column: 'id', type: 'Int32', function: 'identity' },
    columns: 'id Int32',
    orderBy: 'tuple()',
    rows: [0, 1, 0, 1, 0, 1, 0, 1].map((id) => ({ id })),
  },
  {
    // 01072_optimize_skip_unused_shards_const_expr_eval and 01071_force_optimize_skip_unused_shards
    // (their tables are Null engines; these rows make the answers non-empty).
    dist: 'cht.kvs_dist',
    local: 'cht.kvs',
    key: { column: 'key', type: 'Int32', function: 'identity' },
    columns: 'key Int32, value Int32, str String',
    orderBy: 'key',
    rows: range(6).map((key) => ({ key, value: key % 3, str: key % 2 ? 'x' : '' })),
  },
  {
    // 03120_analyzer_dist_join: a1 and b1, both sharded by id.
    dist: 'cht.a1d_dist',
    local: 'cht.a1d',
    key: { column: 'id', type: 'UInt32', function: 'identity' },
    columns: 'day Date, id UInt32',
    orderBy: 'tuple()',
    rows: (
      [
        ['2019-01-01', 9],
        ['2019-01-01', 10],
        ['2019-01-02', 10],
        ['2019-01-01', 11],
      ] as const
    ).map(([day, id]) => ({ day, id })),
  },
  {
    dist: 'cht.b1d_dist',
    local: 'cht.b1d',
    key: { column: 'id', type: 'UInt32', function: 'identity' },
    columns: 'day Date, id UInt32',
    orderBy: 'tuple()',
    rows: (
      [
        ['2019-01-01', 9],
        ['2019-01-01', 10],
        ['2019-01-02', 11],
        ['2019-01-01', 11],
      ] as const
    ).map(([day, id]) => ({ day, id })),
  },
  {
    // 00858_issue_4756: shard1 and shard2, each read by two local shards, sharded alike.
    dist: 'cht.s1_dist',
    local: 'cht.s1',
    key: { column: 'id', type: 'Int32', function: 'xxHash64' },
    columns: 'id Int32',
    orderBy: 'tuple()',
    rows: [0, 1, 0, 1].map((id) => ({ id })),
  },
  {
    dist: 'cht.s2_dist',
    local: 'cht.s2',
    key: { column: 'id', type: 'Int32', function: 'xxHash64' },
    columns: 'id Int32',
    orderBy: 'tuple()',
    rows: [1, 2, 1, 2].map((id) => ({ id })),
  },
  {
    // 01801_distinct_group_by_shard: values('a UInt8, b UInt8', (1, 2), (1, 3)) read by three hosts.
    dist: 'cht.ab01801_dist',
    local: 'cht.ab01801',
    key: { column: 'b', type: 'UInt8', function: 'identity' },
    columns: 'a UInt8, b UInt8',
    orderBy: 'tuple()',
    rows: [2, 3, 2, 3, 2, 3].map((b) => ({ a: 1, b })),
  },
  {
    // 00857_global_joinsavel_table_alias: local_table and other_table (now() as a fixed time).
    dist: 'cht.lt_dist',
    local: 'cht.lt',
    key: { column: 'id', type: 'Int32', function: 'xxHash64' },
    columns: 'id Int32, name String, ts DateTime, oth_id Int32',
    orderBy: '(ts, id)',
    rows: [
      { id: 1, name: 'One', ts: '2019-03-01 10:00:00', oth_id: 100 },
      { id: 2, name: 'Two', ts: '2019-03-01 10:00:00', oth_id: 200 },
    ],
  },
  {
    dist: 'cht.ot_dist',
    local: 'cht.ot',
    key: { column: 'id', type: 'Int32', function: 'xxHash64' },
    columns: 'id Int32, name String, ts DateTime, trd_id Int32',
    orderBy: '(ts, id)',
    rows: [
      { id: 100, name: 'One Hundred', ts: '2019-03-01 10:00:00', trd_id: 1000 },
      { id: 200, name: 'Two Hundred', ts: '2019-03-01 10:00:00', trd_id: 2000 },
    ],
  },
  {
    // 03123_analyzer_dist_join_CTE
    dist: 'cht.t0ab_dist',
    local: 'cht.t0ab',
    key: { column: 'a', type: 'Int64', function: 'identity' },
    columns: 'a Int64, b Int64',
    orderBy: 'a',
    rows: [
      { a: 1, b: 10 },
      { a: 2, b: 12 },
    ],
  },
  {
    // 03204_distributed_with_scalar_subquery (one row: the test's table is empty).
    dist: 'cht.t03204_dist',
    local: 'cht.t03204',
    key: { column: 'c_k37', type: 'Int32', function: 'identity' },
    columns: 'c_k37 Int32, c_y String, c_bou Int32, c_g1 Int32, c_lfntfzg Int32, c_kntw50q Int32',
    orderBy: 'tuple()',
    rows: [{ c_k37: 3, c_y: 'y', c_bou: 1, c_g1: 2, c_lfntfzg: 2, c_kntw50q: 5 }],
  },
  {
    // 02008_aliased_column_distributed_bug: an ALIAS column of the local table (rows added: the test reads none).
    dist: 'cht.click_dist',
    local: 'cht.click',
    key: { column: 'PhraseID', type: 'UInt64', function: 'identity' },
    columns: 'PhraseID UInt64, PhraseProcessedID UInt64 ALIAS if(PhraseID > 0, PhraseID, 0)',
    orderBy: 'tuple()',
    rows: [0, 5, 7].map((PhraseID) => ({ PhraseID })),
  },
  {
    // 01253_subquery_in_aggregate_function_JustStranger: sharded by hash.
    dist: 'cht.tt01253_dist',
    local: 'cht.tt01253',
    key: { column: 'hash', type: 'UInt64', function: 'identity' },
    columns: 'date Date, text String, hash UInt64',
    orderBy: '(hash, date)',
    rows: [{ date: '2020-04-20', text: 'Hello', hash: 123 }],
  },
  {
    // 02175_distributed_join_current_database: system.one copied into a table of one node.
    dist: 'cht.one1_dist',
    local: 'cht.one1',
    key: { column: 'dummy', type: 'UInt8', function: 'identity' },
    columns: 'dummy UInt8',
    orderBy: 'tuple()',
    rows: [{ dummy: 0 }],
  },
  {
    // 01756_optimize_skip_unused_shards_rewrite_in: data_01756_str (key String) holding '0' and '1'.
    dist: 'cht.str01756_dist',
    local: 'cht.str01756',
    key: { column: 'key', type: 'String', function: 'xxHash64' },
    columns: 'key String',
    orderBy: 'tuple()',
    rows: [{ key: '0' }, { key: '1' }],
  },
  {
    // 01825_type_json_distributed: a JSON column (its row as two local shards read it), and values whose
    // type only the JSON column keeps: an Int64 and the String "1", a Float64, a Bool, arrays, null.
    dist: 'cht.json_dist',
    local: 'cht.json',
    key: { column: 'id', type: 'UInt32', function: 'identity' },
    columns: 'id UInt32, j JSON',
    orderBy: 'id',
    newer: true,
    rows: [
      { k1: 2, k2: { k3: 'qqq', k4: [44, 55] } },
      { k1: 2, k2: { k3: 'qqq', k4: [44, 55] } },
      { a: 1, b: { c: 2 } },
      { a: 'x', b: { d: 3 } },
      { a: 1, b: { c: 2 } },
      { a: '1' },
      {},
      { a: [1, 2], e: null },
      { a: 1.5, f: true },
      { a: 2, b: { c: 'two' } },
    ].map((j, id) => ({ id, j })),
  },
  // 02933_paste_join: test1 and test2 (a Int32, MergeTree ORDER BY a), each numbers(2).
  ...['cht.paste1_dist', 'cht.paste2_dist'].map(
    (dist): ChtTable => ({
      dist,
      local: dist.replace(/_dist$/, ''),
      key: { column: 'a', type: 'Int32', function: 'identity' },
      columns: 'a Int32',
      orderBy: 'a',
      rows: range(2).map((a) => ({ a })),
    }),
  ),
];

/** A table of one UInt64 column `number` holding these values, placed by the value. */
function numberTable(dist: string, values: number[]): ChtTable {
  return {
    dist,
    local: dist.replace(/_dist$/, ''),
    key: { column: 'number', type: 'UInt64', function: 'identity' },
    columns: 'number UInt64',
    orderBy: 'number',
    rows: values.map((number) => ({ number })),
  };
}

export const CHT_DATABASE = 'cht';

export const WEIGHTS = [1, 2, 1, 1] as const;

export function chtTopology(replicas: (shard: number) => Array<{ embedded: string } | { url: string }>): Topology {
  return topologySchema.parse({
    cluster: 'cht',
    shards: WEIGHTS.map((weight, i) => ({ weight, replicas: replicas(i) })),
    tables: Object.fromEntries(CHT_TABLES.map((t) => [t.dist, { local: t.local, shardingKey: t.key }])),
  });
}

export const createChtTable = (t: ChtTable, name = t.local) => `CREATE TABLE ${name} (${t.columns}) ENGINE = MergeTree ORDER BY ${t.orderBy}`;

/** The corpus's SQL over the Distributed names, for an engine holding every row under the local names. */
export function toChtLocalNames(sql: string): string {
  let out = sql;
  for (const t of CHT_TABLES) out = out.replace(new RegExp(`\\b${t.dist.replace('.', '\\.')}\\b`, 'g'), t.local);
  return out;
}
