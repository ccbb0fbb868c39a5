// The demo table on three embedded chdb shard engines (rows placed by its sharding key, as the router
// places them) and one oracle engine holding every row, the real shard functions over the shards, and
// the RunDeps a two-stage integration test runs its queries with (recording what each shard was sent).
import path from 'node:path';
import { parseTopology } from '../../shared/core/config/load.js';
import type { Topology } from '../../shared/core/config/schema.js';
import { explainPlan, planQuery } from '../../shared/core/plan/index.js';
import { planTwoStage } from '../../shared/core/plan/two-stage/plan.js';
import type { ShardRequest } from '../../shared/core/protocol/shard-wire.js';
import { createHedgeState } from '../../shared/core/scatter/hedge.js';
import type { ShardInvoker } from '../../shared/core/scatter/invoker.js';
import type { PlanFn, RunDeps } from '../../shared/core/scatter/run-query.js';
import { createShardHandler } from '../../functions/shard/shard-function.js';
import { DEMO_DDL, DEMO_LOCAL, DEMO_TABLE, demoInsertFor, demoSelect } from '../../local/demo.js';
import { startEmbeddedCluster, type EmbeddedCluster } from './embedded-cluster.js';

export interface DemoChdb {
  cluster: EmbeddedCluster;
  topo: Topology;
  fns: ReturnType<typeof createShardHandler>[];
}

/**
 * `replicasPerShard: 2` names the shard's engine twice: failover is about the functions, not the data.
 * `oracleUnderDistName`: the oracle also holds the rows under the distributed table's name, as ClickHouse
 * names a column by its table (`dist.status`) where a test compares names.
 */
export async function startDemoChdb(o: { rows: number; replicasPerShard?: 1 | 2; oracleUnderDistName?: boolean }): Promise<DemoChdb> {
  const cluster = await startEmbeddedCluster({ shards: 3, withOracle: true });
  const replica = (i: number) => ({ embedded: path.join(cluster.dir, `shard-${i}`) });
  const topo = parseTopology({
    cluster: 'c',
    shards: [0, 1, 2].map((i) => ({ replicas: Array.from({ length: o.replicasPerShard ?? 1 }, () => replica(i)) })),
    tables: { [DEMO_TABLE]: { local: DEMO_LOCAL, shardingKey: { column: 'sensor', type: 'String', function: 'xxHash64' } } },
    query: { hedge: { enabled: false } },
  });
  for (const ddl of DEMO_DDL) await cluster.execAll(ddl);
  await Promise.all(cluster.shards.map((s, i) => s.exec(demoInsertFor(topo, i, o.rows))));
  await cluster.oracle!.exec(`INSERT INTO ${DEMO_LOCAL} ${demoSelect(o.rows)}`);
  if (o.oracleUnderDistName) {
    await cluster.oracle!.exec(`CREATE TABLE ${DEMO_TABLE} AS ${DEMO_LOCAL}`);
    await cluster.oracle!.exec(`INSERT INTO ${DEMO_TABLE} SELECT * FROM ${DEMO_LOCAL}`);
  }
  const fns = [0, 1, 2].map((shard) => createShardHandler({ shard, getAccess: async () => cluster.shards[shard]! }));
  return { cluster, topo, fns };
}

/** RunDeps over the shard functions, hedging off; `sent` collects every request in arrival order. */
export function demoRunDeps(d: DemoChdb, queryId: string, extra: Partial<RunDeps> = {}): RunDeps & { sent: ShardRequest[] } {
  const sent: ShardRequest[] = [];
  const invoker: ShardInvoker = {
    invoke: async (shard, payload) => {
      sent.push(payload);
      return d.fns[shard]!(payload);
    },
  };
  return {
    sent,
    topo: d.topo,
    invoker,
    planQuery: planQuery as PlanFn,
    explainPlan,
    planTwoStage,
    hedgeState: createHedgeState(),
    queryId,
    behindApiGateway: false,
    ...extra,
  };
}
