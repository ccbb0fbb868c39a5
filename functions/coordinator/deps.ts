// What the coordinator needs, built once per container: topology, the Lambda invoker (with a
// keep-alive agent that survives across invocations), the planner, the warm hedge state, the
// router for scheduled inserts, and the Distributed parity guard. Heavy modules load lazily so a
// cold start pays only for what this invocation uses.
import type { Topology, ReplicaConfig } from '../../shared/config/schema.js';
import type { ClickHouseAccess } from '../../shared/clickhouse/port.js';
import type { ShardInvoker } from '../../shared/scatter/invoker.js';
import type { Tracer } from '@aws-lambda-powertools/tracer';
import { createLambdaClient, createLambdaInvoker, shardFunctionNames } from '../../shared/scatter/lambda-invoker.js';
import { createHedgeState, type HedgeState } from '../../shared/scatter/hedge.js';
import type { PlanFn } from '../../shared/scatter/run-query.js';
import type { QueryPlan } from '../../shared/plan/types.js';
import { createAdminAccess } from '../../shared/scatter/admin-access.js';
import { ScatterError } from '../../shared/errors.js';
import type { RowWriter } from './schedule.js';
import { topologyFromEnv } from './topology-env.js';

export interface CoordinatorDeps {
  topo: Topology;
  invoker: ShardInvoker;
  planQuery: PlanFn;
  explainPlan: (plan: QueryPlan) => unknown;
  hedgeState: HedgeState;
  /** Router sink for scheduled runs (and the local stack's /admin/insert). */
  writeRows?: RowWriter;
}

/** A RowWriter over the router, writing through `getAccess(shard, replica)`. */
export function routerWriter(topo: Topology, getAccess: (shard: number, replica: number) => ClickHouseAccess | Promise<ClickHouseAccess>): RowWriter {
  return async (table, rows) => {
    const { insertRows } = await import('../../shared/router/index.js');
    const r = await insertRows(rows, table, topo, getAccess);
    if (!r.ok) {
      const bad = r.bad.slice(0, 3).map((b) => `line ${b.line}: ${b.message}`);
      const failed = r.write?.shards.filter((s) => s.status === 'failed' || s.status === 'partial').map((s) => `shard ${s.shard} ${s.status}: ${s.replicas.filter((x) => !x.ok).map((x) => x.error).join('; ')}`) ?? [];
      throw new ScatterError('SHARD_ERROR', `insert into ${table} incomplete (${r.inserted} of ${rows.length} rows committed): ${[...bad, ...failed].join('; ')}`, {
        details: { inserted: r.inserted, perShard: r.perShard },
      });
    }
    return { inserted: r.inserted, perShard: r.perShard };
  };
}

/**
 * The sink's access per replica. In AWS the coordinator writes to ClickHouse over HTTP (it runs
 * in the VPC); in the local stack (CH_SCATTER_ADMIN_VIA_INVOKE=1) embedded replicas exist only
 * inside shard host processes, so writes travel as admin requests through the shard function.
 */
function sinkAccess(topo: Topology, invoker: ShardInvoker, env: NodeJS.ProcessEnv) {
  const cache = new Map<string, Promise<ClickHouseAccess>>();
  return (shard: number, replica: number): Promise<ClickHouseAccess> => {
    const key = `${shard}/${replica}`;
    let a = cache.get(key);
    if (!a) {
      a = env.CH_SCATTER_ADMIN_VIA_INVOKE === '1'
        ? Promise.resolve(createAdminAccess({ invoker, shard, replica }))
        : createReplicaAccess(topo.shards[shard]!.replicas[replica]!);
      cache.set(key, a);
    }
    return a;
  };
}

async function createReplicaAccess(replica: ReplicaConfig): Promise<ClickHouseAccess> {
  const { createAccess } = await import('../../shared/clickhouse/factory.js');
  return createAccess(replica, replica.secret ? await secretCredentials(replica.secret) : undefined);
}

/** {"username","password"} from Secrets Manager (cached 5 min), as the shard functions read it. */
async function secretCredentials(secret: string): Promise<{ username: string; password: string }> {
  const { getSecret } = await import('@aws-lambda-powertools/parameters/secrets');
  const v = (await getSecret(secret, { transform: 'json', maxAge: 300 })) as { username?: unknown; password?: unknown } | undefined;
  if (!v || typeof v.username !== 'string' || typeof v.password !== 'string') throw new Error(`secret ${secret} must be JSON {"username": "...", "password": "..."}`);
  return { username: v.username, password: v.password };
}

export async function loadDefaultDeps(env: NodeJS.ProcessEnv, tracer?: Tracer): Promise<CoordinatorDeps> {
  const topo = topologyFromEnv(env);
  const [{ planQuery }, { explainPlan }] = await Promise.all([import('../../shared/plan/index.js'), import('../../shared/plan/explain.js')]);
  const client = createLambdaClient({ maxSockets: Math.max(64, topo.query.maxConcurrency * 2), endpoint: env.CH_SCATTER_LAMBDA_ENDPOINT });
  // X-Ray: one subsegment per shard invoke (a no-op outside Lambda, where tracing is off).
  if (tracer?.isTracingEnabled()) tracer.captureAWSv3Client(client);
  const invoker = createLambdaInvoker(topo.shards.length, { client, functionNames: shardFunctionNames(topo.shards.length, env) });
  if (topo.distributedCheck) await parityGuard(topo);
  return {
    topo,
    invoker,
    planQuery: planQuery as PlanFn,
    explainPlan: explainPlan as (plan: QueryPlan) => unknown,
    hedgeState: createHedgeState(),
    writeRows: routerWriter(topo, sinkAccess(topo, invoker, env)),
  };
}

/** The first invocation refuses to serve when the topology disagrees with ClickHouse's cluster. */
async function parityGuard(topo: Topology): Promise<void> {
  const check = topo.distributedCheck!;
  if (!check.endpoint) throw new ScatterError('CONFIG_INVALID', 'distributedCheck needs an "endpoint" for the coordinator to run the parity guard', { status: 500 });
  const [{ assertParityAtStartup }, { createHttpAccess }] = await Promise.all([import('../../shared/sharding/parity.js'), import('../../shared/clickhouse/http.js')]);
  const access = await createHttpAccess({ url: check.endpoint });
  try {
    await assertParityAtStartup(topo, access);
  } catch (e) {
    throw new ScatterError('INTERNAL', `Distributed parity check failed, refusing to serve: ${(e as Error).message}`, { cause: e });
  } finally {
    await access.close().catch(() => undefined);
  }
}
