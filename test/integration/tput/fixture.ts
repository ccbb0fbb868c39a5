// Shared by the TPUT tests: a table of events whose rows a test places on the shards however it
// likes (any split is a valid input to TPUT: no query here filters on the sharding key), the same
// rows on one engine as the reference, and a runQuery wired to shard functions over the engines,
// with per-shard delays so answers arrive in any order.
import { PLANNERS } from '../../../shared/core/scatter/planners.js';
import { expect } from 'vitest';
import { parseTopology } from '../../../shared/core/config/load.js';
import type { Topology } from '../../../shared/core/config/schema.js';
import type { ClickHouseAccess } from '../../../shared/core/clickhouse/port.js';
import type { ShardRequest, ShardResponse } from '../../../shared/core/protocol/shard-wire.js';
import { createHedgeState } from '../../../shared/core/scatter/hedge.js';
import type { ShardInvoker } from '../../../shared/core/scatter/invoker.js';
import { runQuery, type QueryResponse, type RunDeps } from '../../../shared/core/scatter/run-query.js';
import type { TopCountMemory } from '../../../shared/core/scatter/tput/memory.js';
import { createShardHandler, type ShardHandlerFn } from '../../../functions/shard/shard-function.js';

export const DIST = 'default.tput_ev_dist';
export const LOCAL = 'default.tput_ev';
export const DDL = [
  `DROP TABLE IF EXISTS ${LOCAL}`,
  `CREATE TABLE ${LOCAL} (id UInt64, user UInt32, name String, day Date, ts DateTime, flag UInt8, amount UInt32, delta Int32) ENGINE = MergeTree ORDER BY id`,
];
export const JSON_SETTINGS = { output_format_json_quote_64bit_integers: 1, output_format_json_quote_denormals: 1 };

export interface Ev {
  id: number;
  user: number;
  name: string;
  day: string;
  ts: string;
  flag: number;
  amount: number;
  delta: number;
}

export function topologyFor(shards: number, replica: (i: number) => Record<string, unknown>): Topology {
  return parseTopology({
    cluster: 'c',
    shards: Array.from({ length: shards }, (_, i) => ({ replicas: [replica(i)] })),
    tables: { [DIST]: { local: LOCAL, shardingKey: { column: 'id', type: 'UInt64', function: 'identity' } } },
    query: { hedge: { enabled: false }, timeoutMs: 20_000 },
  });
}

/** Rows of a skewed (`user` ~ a power law) or uniform distribution, deterministic from `seed`. */
export function events(n: number, kind: 'skewed' | 'uniform', seed = 1): Ev[] {
  let x = seed;
  const rnd = () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648;
  };
  const names = ['alpha', "o'brien", 'béta', 'gamma\\x', '', 'delta', 'tab\there', 'zeta'];
  return Array.from({ length: n }, (_, id) => {
    const r = rnd();
    const user = kind === 'skewed' ? Math.floor(1 / (r * 0.999 + 0.001)) : Math.floor(r * 400);
    return {
      id,
      user,
      name: names[Math.floor(rnd() * names.length)]!,
      day: `2024-01-${String(1 + Math.floor(rnd() * 5)).padStart(2, '0')}`,
      ts: `2024-01-01 00:00:${String(Math.floor(rnd() * 20)).padStart(2, '0')}`,
      flag: rnd() < 0.3 ? 1 : 0,
      amount: Math.floor(rnd() * 100),
      delta: Math.floor(rnd() * 100) - 50,
    };
  });
}

const sqlString = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\t/g, '\\t')}'`;
export function insertSql(rows: Ev[]): string {
  return `INSERT INTO ${LOCAL} VALUES ${rows.map((r) => `(${r.id}, ${r.user}, ${sqlString(r.name)}, '${r.day}', '${r.ts}', ${r.flag}, ${r.amount}, ${r.delta})`).join(', ')}`;
}

/** Anything that runs a statement: an engine, or a server over HTTP. */
export interface Execer {
  exec(sql: string): Promise<unknown>;
}

/** Replace every shard's rows (and the reference's: `oracleTable` on `oracle`) with `rows` split by `shardOf`. */
export async function load(shards: Execer[], oracle: Execer, rows: Ev[], shardOf: (r: Ev, i: number) => number, oracleTable = LOCAL): Promise<void> {
  await Promise.all([...shards.map((e) => e.exec(`TRUNCATE TABLE ${LOCAL}`)), oracle.exec(`TRUNCATE TABLE ${oracleTable}`)]);
  const parts = shards.map((_, s) => rows.filter((r, i) => shardOf(r, i) === s));
  await Promise.all(parts.map((p, s) => (p.length ? shards[s]!.exec(insertSql(p)) : Promise.resolve())));
  if (rows.length) await oracle.exec(insertSql(rows).replace(LOCAL, oracleTable));
}

export interface Wiring {
  /** Delay (ms) before shard `s` answers a request; may throw to fail it. */
  delay?: (s: number, req: ShardRequest) => number;
  fail?: (s: number, req: ShardRequest) => Error | undefined;
  /** One coordinator's memory across several deps (without it, nothing is remembered past a request). */
  memory?: TopCountMemory;
}

/** Shard functions over engines (chdb), or given (18.16 servers: the HTTP adapter). */
export function depsFor(topo: Topology, engines: ClickHouseAccess[] | ShardHandlerFn[], wiring: Wiring = {}): RunDeps & { sent: ShardRequest[] } {
  const fns = engines.map((e, shard) => (typeof e === 'function' ? e : createShardHandler({ shard, getAccess: async () => e })));
  const sent: ShardRequest[] = [];
  const invoker: ShardInvoker = {
    invoke: async (shard, payload): Promise<ShardResponse> => {
      sent.push(payload);
      const bad = wiring.fail?.(shard, payload);
      if (bad) throw bad;
      const ms = wiring.delay?.(shard, payload) ?? 0;
      if (ms > 0) await new Promise((r) => setTimeout(r, ms));
      return fns[shard]!(payload);
    },
  };
  return {
    sent,
    topo,
    invoker,
    ...PLANNERS,
    hedgeState: createHedgeState(),
    ...(wiring.memory ? { topCountMemory: wiring.memory } : {}),
    queryId: 'q-tput',
    behindApiGateway: false,
  };
}

/** The answer of one engine holding every row. */
export type Reference = (sql: string) => Promise<Record<string, unknown>[]>;

export const chdbReference =
  (oracle: ClickHouseAccess): Reference =>
  async (sql) => {
    const r = await oracle.queryRaw(sql.replaceAll(DIST, LOCAL), { format: 'JSON', settings: JSON_SETTINGS });
    return JSON.parse(r.bytes.toString('utf8')).data;
  };

const digits = (rows: Record<string, unknown>[]) =>
  JSON.parse(JSON.stringify(rows, (_, v) => (typeof v === 'number' && !Number.isInteger(v) ? Number(v.toPrecision(9)) : v)));

/** Run `sql` with ch_scatter_top_count = `method`; the answer must equal the reference. */
export async function expectExact(deps: RunDeps, reference: Reference, sql: string, settings: Record<string, string> = {}): Promise<QueryResponse> {
  const r = await runQuery({ sql, settings }, deps);
  expect(r.status, JSON.stringify(r.body).slice(0, 500)).toBe(200);
  const b = r.body as QueryResponse;
  expect(b.partial).toBe(false);
  expect(b.approximate).toBeUndefined();
  expect(digits(b.data), sql).toEqual(digits(await reference(sql)));
  return b;
}
