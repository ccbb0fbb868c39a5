// The oracle harness: the same generated rows in N embedded shards (placed by the router, each
// shard its own chdb process) and in ONE embedded node holding every row. A query runs both
// ways: planQuery -> each shard's SQL on its shard -> Merger.add in a shuffled arrival order ->
// finalize; and as written (Distributed name -> local name) on the single node.
import type { Topology } from '../../../shared/core/config/schema.js';
import { topologySchema } from '../../../shared/core/config/schema.js';
import type { ClickHouseAccess, QueryResult } from '../../../shared/core/clickhouse/port.js';
import { planQuery } from '../../../shared/core/plan/index.js';
import type { FinalResult } from '../../../shared/core/partials/types.js';
import { routeRows } from '../../../shared/core/router/index.js';
import { createPlacement } from '../../../shared/core/sharding/index.js';
import { startEmbeddedCluster, type EmbeddedCluster } from '../../support/embedded-cluster.js';
import { ddl, generateRows } from './data.js';

export const SHARDS = 5;
/** Distributed name -> local table; `ev` is keyed by uid (identity), `evs` by sensor (xxHash64). */
export const TABLES = {
  'oracle.ev': { local: 'oracle.ev_local', shardingKey: { column: 'uid', type: 'UInt32', function: 'identity' as const } },
  'oracle.evs': { local: 'oracle.evs_local', shardingKey: { column: 'sensor', type: 'String', function: 'xxHash64' as const } },
};

export interface Oracle {
  cluster: EmbeddedCluster;
  topo: Topology;
  rows: Record<string, unknown>[];
  perShard: Record<string, number[]>;
  scatter(sql: string, order?: number[], opts?: { cursor?: string; cursorKey?: Buffer }): Promise<FinalResult>;
  single(sql: string): Promise<QueryResult>;
  stop(): Promise<void>;
}

export function toLocal(sql: string): string {
  return sql.replace(/\boracle\.evs\b/g, 'oracle.evs_local').replace(/\boracle\.ev\b/g, 'oracle.ev_local');
}

export async function startOracle(rowCount: number): Promise<Oracle> {
  const cluster = await startEmbeddedCluster({ shards: SHARDS, withOracle: true });
  const topo = topologySchema.parse({
    cluster: 'oracle',
    shards: Array.from({ length: SHARDS }, (_, i) => ({ weight: 1, replicas: [{ embedded: `shard-${i}` }] })),
    tables: TABLES,
    // These oracles check the fast path's own merges, its shard_size top-k included (opted into here;
    // by default such a query goes to the general path).
    query: { topCount: 'shard_size' },
  });
  await cluster.execAll('CREATE DATABASE IF NOT EXISTS oracle');
  await cluster.execAll(ddl('oracle.ev_local'));
  await cluster.execAll(ddl('oracle.evs_local'));
  const rows = generateRows(rowCount);
  const perShard: Record<string, number[]> = {};
  for (const [dist, t] of Object.entries(TABLES)) {
    const placement = await createPlacement(topo.shards, t.shardingKey);
    const routed = routeRows(rows, dist, topo, placement);
    if (routed.bad.length) throw new Error(`router refused rows: ${JSON.stringify(routed.bad[0])}`);
    perShard[dist] = routed.batches.map((b) => b.length);
    await Promise.all(routed.batches.map((b, i) => (b.length ? cluster.shards[i]!.insert(t.local, b) : Promise.resolve())));
    await cluster.oracle!.insert(t.local, rows);
  }
  return {
    cluster,
    topo,
    rows,
    perShard,
    async scatter(sql, order, opts = {}) {
      const plan = await planQuery(sql, topo, { ...(opts.cursor ? { cursor: opts.cursor } : {}), ...(opts.cursorKey ? { cursorKey: opts.cursorKey } : {}) });
      const merger = plan.createMerger();
      const live = plan.shards.filter((s) => !s.skipped);
      const results = await Promise.all(live.map((s) => cluster.shards[s.shard]!.query(s.sql!, { settings: { ...plan.settings, ...SHARD_JSON } })));
      const idx = order ? order.filter((i) => i < live.length) : live.map((_s, i) => i);
      for (const i of idx) merger.add(live[i]!.shard, results[i]!.rows, results[i]!.meta);
      return merger.finalize();
    },
    single: (sql) => cluster.oracle!.query(toLocal(sql), { settings: API_JSON }),
    stop: () => cluster.stop(),
  };
}

/** What the shard function adds to every query (shared/core/shard/execute.ts): nan/inf as strings. */
const SHARD_JSON = { output_format_json_quote_denormals: 1 };
/** The single node answers in the API's JSON spellings (docs/architecture.md#the-value-model). */
const API_JSON = { output_format_json_quote_denormals: 1, output_format_json_quote_decimals: 1 };

export type { ClickHouseAccess };
