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
];

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
