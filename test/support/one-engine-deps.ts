// runQuery's dependencies for tests that put every shard and replica on one ClickHouse engine:
// two shards of two replicas, each shard's function the real shard handler over `access`. Every
// request the coordinator sends is recorded in `sent` (after `edit`, which may change it on its way).
import type { ClickHouseAccess } from '../../shared/core/clickhouse/port.js';
import { parseTopology } from '../../shared/core/config/load.js';
import { explainPlan, planQuery } from '../../shared/core/plan/index.js';
import type { ShardRequest } from '../../shared/core/protocol/shard-wire.js';
import { createHedgeState } from '../../shared/core/scatter/hedge.js';
import type { ShardInvoker } from '../../shared/core/scatter/invoker.js';
import type { PlanFn, RunDeps } from '../../shared/core/scatter/run-query.js';
import { createShardHandler } from '../../functions/shard/shard-function.js';

export interface OneEngineTable {
  cluster: string;
  /** The distributed table's name, its local table and sharding key, as in the topology config. */
  table: string;
  local: string;
  shardingKey: { column: string; type: string; function: 'xxHash64' | 'identity' };
}

export function oneEngineDeps(
  t: OneEngineTable,
  access: () => ClickHouseAccess,
  sent: ShardRequest[],
  edit?: (p: ShardRequest) => ShardRequest,
  query: Record<string, unknown> = {},
): RunDeps {
  const topo = parseTopology({
    cluster: t.cluster,
    shards: [0, 1].map(() => ({ replicas: [{ url: 'http://a:8123' }, { url: 'http://b:8123' }] })),
    tables: { [t.table]: { local: t.local, shardingKey: t.shardingKey } },
    query: { hedge: { enabled: false }, ...query },
  });
  const fns = [0, 1].map((shard) => createShardHandler({ shard, getAccess: async () => access() }));
  const invoker: ShardInvoker = {
    invoke: async (shard, payload) => {
      const p = edit ? edit(payload) : payload;
      sent.push(p);
      return fns[shard]!(p);
    },
  };
  return { topo, invoker, planQuery: planQuery as PlanFn, explainPlan, hedgeState: createHedgeState(), queryId: 'q' };
}
