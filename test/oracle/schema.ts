// The oracle's tables: three sharded tables over four shards (weights 1, 2, 1, 1, as the demo).
//   oracle.events_dist          keyed by xxHash64(user_id): events of users, every type the suite needs
//   oracle.users_dist           keyed by xxHash64(user_id) too: a user's events and row share a shard,
//                               so `user_id IN (SELECT user_id FROM users)` is exact run locally
//   analytics.sensor_events_dist the demo's table, keyed by xxHash64(sensor); its rows avoid shard 3,
//                               which stays EMPTY
// Queries name the Distributed tables; the single node holds every row under the local names.
import type { Topology } from '../../shared/core/config/schema.js';
import { topologySchema } from '../../shared/core/config/schema.js';

export const WEIGHTS = [1, 2, 1, 1] as const;
/** The shard of the sensor table that holds no row. */
export const EMPTY_SENSOR_SHARD = 3;

export interface Column {
  name: string;
  /** The type on ClickHouse 26 (chdb). */
  type: string;
  /** The type on 18.16, when it differs; `null`: 18.16 has no such type, the column is left out there. */
  type18?: string | null;
}

export interface OracleTable {
  /** The name queries use. */
  dist: string;
  /** The table on every shard and on the single node. */
  local: string;
  key: { column: string; type: string; function: 'xxHash64' };
  columns: Column[];
  orderBy: string;
}

export const EVENTS: OracleTable = {
  dist: 'oracle.events_dist',
  local: 'oracle.events',
  key: { column: 'user_id', type: 'UInt32', function: 'xxHash64' },
  orderBy: '(user_id, event_id)',
  columns: [
    { name: 'event_id', type: 'UInt64' },
    { name: 'user_id', type: 'UInt32' },
    { name: 'ts', type: "DateTime('Europe/Berlin')" },
    { name: 'ts_ms', type: "DateTime64(3, 'Asia/Tokyo')", type18: null },
    { name: 'day', type: 'Date' },
    { name: 'event', type: 'LowCardinality(String)' },
    { name: 'page', type: 'String' },
    { name: 'duration', type: 'Float64' },
    { name: 'odd', type: 'Float64' },
    { name: 'ratio', type: 'Nullable(Float32)' },
    { name: 'amount', type: 'Decimal(18, 4)' },
    { name: 'total', type: 'Decimal(38, 10)' },
    { name: 'qty', type: 'Int32' },
    { name: 'score', type: 'Nullable(Int64)' },
    { name: 'tag', type: 'Nullable(String)' },
    { name: 'tags', type: 'Array(String)' },
    { name: 'nums', type: 'Array(UInt16)' },
    { name: 'flag', type: 'UInt8' },
  ],
};

export const USERS: OracleTable = {
  dist: 'oracle.users_dist',
  local: 'oracle.users',
  key: { column: 'user_id', type: 'UInt32', function: 'xxHash64' },
  orderBy: 'user_id',
  columns: [
    { name: 'user_id', type: 'UInt32' },
    { name: 'name', type: 'String' },
    { name: 'country', type: 'LowCardinality(String)' },
    { name: 'signup', type: 'Date' },
    { name: 'plan', type: 'Nullable(String)' },
    { name: 'age', type: 'Nullable(UInt8)' },
    { name: 'credit', type: 'Decimal(12, 2)' },
    { name: 'last_seen', type: "DateTime('America/New_York')" },
  ],
};

/** The demo's columns (local/demo.ts), so the demo's queries read it unchanged. */
export const SENSORS: OracleTable = {
  dist: 'analytics.sensor_events_dist',
  local: 'analytics.sensor_events',
  key: { column: 'sensor', type: 'String', function: 'xxHash64' },
  orderBy: '(sensor, ts)',
  columns: [
    { name: 'ts', type: 'DateTime' },
    { name: 'sensor', type: 'String' },
    { name: 'site', type: 'String' },
    { name: 'metric', type: 'String' },
    { name: 'value', type: 'Float64' },
    { name: 'status', type: 'UInt16' },
  ],
};

export const TABLES: readonly OracleTable[] = [EVENTS, USERS, SENSORS];

export type Engine = 'chdb' | 'ch18';

export function columnsFor(t: OracleTable, engine: Engine): Column[] {
  return engine === 'chdb' ? t.columns : t.columns.filter((c) => c.type18 !== null);
}

/** CREATE statements for one table under `local` (or another name, e.g. a reordered copy). */
export function createTable(t: OracleTable, engine: Engine, name = t.local): string {
  const cols = columnsFor(t, engine)
    .map((c) => `${c.name} ${engine === 'ch18' && c.type18 ? c.type18 : c.type}`)
    .join(', ');
  return `CREATE TABLE ${name} (${cols}) ENGINE = MergeTree() ORDER BY ${t.orderBy}`;
}

export const DATABASES = ['oracle', 'analytics'] as const;

/** The topology of the oracle's cluster: what the router and a local stack are configured with. */
export function oracleTopology(replicas: (shard: number) => Array<{ embedded: string } | { url: string }>): Topology {
  return topologySchema.parse({
    cluster: 'oracle',
    shards: WEIGHTS.map((weight, i) => ({ weight, replicas: replicas(i) })),
    tables: Object.fromEntries(TABLES.map((t) => [t.dist, { local: t.local, shardingKey: t.key }])),
  });
}

/** The corpus's SQL (Distributed names) for an engine holding every row under the local names. */
export function toLocalNames(sql: string, rename: (t: OracleTable) => string = (t) => t.local): string {
  let out = sql;
  for (const t of TABLES) out = out.replace(new RegExp(`\\b${t.dist.replace('.', '\\.')}\\b`, 'g'), rename(t));
  return out;
}
