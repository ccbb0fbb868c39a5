// What the coordinator needs, built once per container: topology, the Lambda invoker (with a
// keep-alive agent that survives across invocations), the planner, the warm hedge state, the
// router for scheduled inserts, and the Distributed parity guard. Heavy modules load lazily so a
// cold start pays only for what this invocation uses: on the default path (the lean query invoker,
// credentials and endpoint from Lambda's environment) the AWS SDK's Lambda client is never loaded;
// it is made on first use, by admin requests, the tree, or CH_SCATTER_INVOKER=sdk. Everything that
// touches ClickHouse goes through the shard functions: the coordinator holds no database credentials.
import { PLANNERS } from '../../shared/core/scatter/planners.js';
import type { Topology } from '../../shared/core/config/schema.js';
import type { ClickHouseAccess } from '../../shared/core/clickhouse/port.js';
import type { ShardInvoker } from '../../shared/core/scatter/invoker.js';
import type { Tracer } from '@aws-lambda-powertools/tracer';
import type { LambdaClient } from '@aws-sdk/client-lambda';
import type { TreeInvoker } from '../../shared/core/scatter/tree.js';
import { lazyInvoker } from '../../shared/adapters/aws/lazy-invoker.js';
import { shardFunctionNames } from '../../shared/adapters/aws/shard-function-names.js';
import { createSignedHttpInvoker } from '../../shared/adapters/aws/signed-http-invoker.js';
import { createHedgeState, type HedgeState } from '../../shared/core/scatter/hedge.js';
import { createTopCountMemory, type TopCountMemory } from '../../shared/core/scatter/tput/memory.js';
import { createTableColumns, type TableColumns } from '../../shared/core/scatter/table-columns.js';
import type { PlanFn } from '../../shared/core/scatter/run-query.js';
import type { TwoStagePlanner } from '../../shared/core/scatter/two-stage/path.js';
import type { QueryPlan } from '../../shared/core/plan/types.js';
import { createAdminAccess } from '../../shared/core/scatter/shard-admin-access.js';
// Static, not import(): this module is itself loaded on the first invocation (handler.ts), and every
// first invocation runs these; one lazy boundary instead of several keeps the bundle's shared chunks
// few (each module file costs the import a read, a compile and a source map of its own).
import { cursorKeyOf } from '../../shared/core/partials/cursor.js';
import { assertParityAtStartup, checkColumnParity } from '../../shared/core/sharding/parity.js';
import { createShardReadAccess } from '../../shared/core/scatter/shard-read-access.js';
import { createStatisticsCache, type StatisticsCache } from '../../shared/core/scatter/table-statistics.js';
import { ScatterError } from '../../shared/core/errors.js';
import type { RowWriter } from './schedule.js';
import { topologyFromEnv } from './topology-env.js';
import { playPageFromEnv, type PlayPage } from './play-page.js';
import { catalogEngine, routerInsert, type ClickHouseRouteDeps } from './clickhouse-route.js';
import { createRunningQueries } from '../../shared/core/clickhouse-http/running-queries.js';
import { usersFromEnv } from './users-env.js';
import type { ExchangeCleaner } from '../../shared/core/shard/exchange.js';
import { parseExchangeEnv } from '../shard/exchange-env.js';

export interface CoordinatorDeps {
  topo: Topology;
  invoker: ShardInvoker;
  planQuery: PlanFn;
  explainPlan: (plan: QueryPlan) => unknown;
  /** The general (two-stage) path's planner: what the fast path refuses runs there (docs/architecture.md#two-stage-runtime). */
  planTwoStage?: TwoStagePlanner;
  hedgeState: HedgeState;
  /** What TPUT's pre-pass remembers between queries, for this coordinator's lifetime. */
  topCountMemory?: TopCountMemory;
  /** The cursor signing key every coordinator of the deployment shares; absent: the process's own. */
  cursorKey?: Buffer;
  /** Per-shard table statistics, kept for this coordinator's lifetime (statistics pruning, coverage). */
  statistics?: StatisticsCache;
  /** The distributed tables' columns, read from a shard when a query needs them spelled out, for this coordinator's lifetime. */
  tableColumns?: TableColumns;
  /** Router sink for scheduled runs (and the local stack's /admin/insert). */
  writeRows?: RowWriter;
  /** Sub-coordinators (this same function) when query.treeFanoutAbove > 0 and the cluster is wider. */
  tree?: TreeInvoker & { close?(): void };
  /** GET /play's page (play-page.ts), when this deployment serves it. */
  playPage?: () => PlayPage;
  /** ClickHouse's HTTP interface (`/`, `/ping`): one shard's engine for catalog answers, the router for INSERT, the users list. */
  clickhouse?: Omit<ClickHouseRouteDeps, 'topo'>;
  /** Deletes a query's exchange objects when it ends (CH_SCATTER_EXCHANGE; the coordinator may only delete there). */
  exchange?: ExchangeCleaner;
}

/**
 * The coordinator's own function name, which sub-coordinator requests are sent to:
 * CH_SCATTER_SELF_FUNCTION (the CDK stack sets it to the name it gives the function; the local stack
 * to its registered coordinator), else AWS_LAMBDA_FUNCTION_NAME (set by Lambda itself).
 */
export function selfFunctionName(env: NodeJS.ProcessEnv): string | undefined {
  return env.CH_SCATTER_SELF_FUNCTION || env.AWS_LAMBDA_FUNCTION_NAME || undefined;
}

/**
 * deps.tree: a TreeInvoker over the same Lambda client (keep-alive sockets, middleware cache)
 * invoking this coordinator function, or undefined when the tree cannot apply (treeFanoutAbove 0,
 * or no more shards than it, so no query could ever exceed it). A tree configured without a known
 * function name is a deployment error, reported rather than silently flattened. `client` may be a
 * function that makes it: it is called only when the tree applies.
 */
export async function treeDeps(topo: Topology, env: NodeJS.ProcessEnv, client: LambdaClient | (() => Promise<LambdaClient>)): Promise<CoordinatorDeps['tree']> {
  const above = topo.query.treeFanoutAbove;
  if (!(above > 0) || topo.shards.length <= above) return undefined;
  const self = selfFunctionName(env);
  if (!self)
    throw new ScatterError(
      'INTERNAL',
      `query.treeFanoutAbove is ${above} with ${topo.shards.length} shards, but the coordinator does not know its own function name (set CH_SCATTER_SELF_FUNCTION)`,
    );
  const { createTreeLambdaInvoker } = await import('../../shared/adapters/aws/tree-lambda-invoker.js');
  return createTreeLambdaInvoker({ functionName: () => self, client: typeof client === 'function' ? await client() : client });
}

/** A RowWriter over the router, writing through `getAccess(shard, replica)`. */
export function routerWriter(
  topo: Topology,
  getAccess: (shard: number, replica: number) => ClickHouseAccess | Promise<ClickHouseAccess>,
  statistics?: StatisticsCache,
): RowWriter {
  return async (table, rows) => {
    const { insertRows } = await import('../../shared/core/router/index.js');
    const result = await insertRows(rows, table, topo, getAccess, statistics ? { onWritten: (t) => statistics.invalidate(t) } : {});
    if (!result.ok) {
      const bad = result.bad.slice(0, 3).map((b) => `line ${b.line}: ${b.message}`);
      const failed =
        result.write?.shards
          .filter((s) => s.status === 'failed' || s.status === 'partial')
          .map(
            (s) =>
              `shard ${s.shard} ${s.status}: ${s.replicas
                .filter((x) => !x.ok)
                .map((x) => x.error)
                .join('; ')}`,
          ) ?? [];
      throw new ScatterError(
        'SHARD_ERROR',
        `insert into ${table} incomplete (${result.inserted} of ${rows.length} rows committed): ${[...bad, ...failed].join('; ')}`,
        {
          details: { inserted: result.inserted, perShard: result.perShard },
        },
      );
    }
    return { inserted: result.inserted, perShard: result.perShard };
  };
}

/**
 * The sink's access per replica: always through the shard function (an `insert` admin request).
 * The coordinator holds no database credentials and needs no VPC placement: in AWS the shard
 * function accepts inserts only into the tables in its CH_SCATTER_WRITABLE_TABLES (the CDK stack
 * lists the schedule destinations' local tables there); in the local stack the shard hosts serve
 * admin requests anyway (embedded replicas exist only inside them).
 */
function sinkAccess(invoker: ShardInvoker) {
  const cache = new Map<string, ClickHouseAccess>();
  return (shard: number, replica: number): ClickHouseAccess => {
    const key = `${shard}/${replica}`;
    let a = cache.get(key);
    if (!a) {
      a = createAdminAccess({ invoker, shard, replica });
      cache.set(key, a);
    }
    return a;
  };
}

/**
 * Which invoker carries the query fan-out (shards and, from sub-coordinators, their shards):
 * `http` (default), the lean SigV4-signed node:http client (signed-http-invoker.ts: a fraction
 * of the SDK's CPU per call, docs/benchmarks.md#2-fan-out-overhead-fanout), or `sdk`, @aws-sdk/client-lambda's
 * InvokeCommand (createLambdaInvoker). Env CH_SCATTER_INVOKER; anything else is refused.
 */
export type QueryInvokerKind = 'http' | 'sdk';
export function queryInvokerKind(env: NodeJS.ProcessEnv): QueryInvokerKind {
  const v = env.CH_SCATTER_INVOKER?.trim() || 'http';
  if (v === 'http' || v === 'sdk') return v;
  throw new ScatterError('INTERNAL', `CH_SCATTER_INVOKER is "${v}": expected "http" (the default) or "sdk"`);
}

/**
 * The query invoker of that kind. The lean one resolves credentials and (in AWS) the endpoint from
 * the environment where it decides alone, else through a LambdaClient (`client`, or its own); the SDK
 * one uses `client`, or makes its own. The SDK modules load only for the SDK invoker or that fallback.
 */
export async function createQueryInvoker(
  kind: QueryInvokerKind,
  shardCount: number,
  opts: { client?: LambdaClient; endpoint?: string; functionNames?: string[]; maxSockets?: number },
): Promise<ShardInvoker & { close(): void }> {
  if (kind === 'http') return createSignedHttpInvoker(shardCount, opts);
  const { createLambdaInvoker } = await import('../../shared/adapters/aws/lambda-invoker.js');
  return createLambdaInvoker(shardCount, opts);
}

/**
 * The coordinator's LambdaClient (keep-alive agents sized for the fan-out, X-Ray capture when tracing
 * is on), made on the first call and shared by every later one.
 */
function lazyLambdaClient(opts: { maxSockets: number; endpoint?: string; tracer?: Tracer }): () => Promise<LambdaClient> {
  let client: Promise<LambdaClient> | undefined;
  return () =>
    (client ??= import('../../shared/adapters/aws/lambda-invoker.js').then(({ createLambdaClient }) => {
      const c = createLambdaClient({ maxSockets: opts.maxSockets, endpoint: opts.endpoint });
      // X-Ray: one AWS subsegment per SDK invoke (a no-op outside Lambda, where tracing is off). The lean
      // query invoker does not go through the SDK client: the Tracer's node:http/https capture traces its
      // invokes as plain HTTP subsegments instead (test/unit/scatter/signed-http-invoker-xray.test.ts).
      if (opts.tracer?.isTracingEnabled()) opts.tracer.captureAWSv3Client(c);
      return c;
    }));
}

/**
 * The cursor signing key: CH_SCATTER_CURSOR_KEY (the value), or CH_SCATTER_CURSOR_SECRET_ARN (a Secrets
 * Manager secret, what the CDK stack sets; read without the SDK where the environment decides the
 * endpoint and credentials, shared/adapters/aws/secret-value.ts); without either, a random key per process.
 */
export async function cursorKeyFromEnv(env: NodeJS.ProcessEnv): Promise<{ source: 'env' | 'secret' | 'random'; key?: Buffer }> {
  if (env.CH_SCATTER_CURSOR_KEY) return { source: 'env', key: cursorKeyOf(env.CH_SCATTER_CURSOR_KEY) };
  if (env.CH_SCATTER_CURSOR_SECRET_ARN) {
    const { readSecretString } = await import('../../shared/adapters/aws/secret-value.js');
    const v = await readSecretString(env.CH_SCATTER_CURSOR_SECRET_ARN, env);
    if (typeof v !== 'string' || v.length < 16) throw new ScatterError('INTERNAL', 'the cursor key secret is missing or shorter than 16 characters');
    return { source: 'secret', key: cursorKeyOf(v) };
  }
  return { source: 'random' };
}

export async function loadDefaultDeps(env: NodeJS.ProcessEnv, tracer?: Tracer): Promise<CoordinatorDeps> {
  const topo = topologyFromEnv(env);
  const { key: cursorKey } = await cursorKeyFromEnv(env);
  const kind = queryInvokerKind(env);
  const maxSockets = Math.max(64, topo.query.maxConcurrency * 2);
  const endpoint = env.CH_SCATTER_LAMBDA_ENDPOINT;
  const client = lazyLambdaClient({ maxSockets, endpoint, tracer });
  const functionNames = shardFunctionNames(topo.shards.length, env);
  // The SDK invoker: admin requests (the parity guard's reads, the schedule sink's inserts), built on the first one.
  const sdkInvoker = lazyInvoker(async () => {
    const [{ createLambdaInvoker }, c] = await Promise.all([import('../../shared/adapters/aws/lambda-invoker.js'), client()]);
    return createLambdaInvoker(topo.shards.length, { client: c, functionNames });
  });
  // The query fan-out: the lean invoker unless CH_SCATTER_INVOKER=sdk.
  const invoker = kind === 'sdk' ? sdkInvoker : await createQueryInvoker(kind, topo.shards.length, { endpoint, functionNames, maxSockets });
  if (topo.distributedCheck) await parityGuard(topo, sdkInvoker);
  const tree = await treeDeps(topo, env, client);
  const playPage = playPageFromEnv(env);
  const statistics = createStatisticsCache();
  const exchange = await exchangeCleanerFromEnv(env);
  return {
    ...(exchange ? { exchange } : {}),
    ...(tree ? { tree } : {}),
    ...(playPage ? { playPage } : {}),
    topo,
    invoker,
    ...PLANNERS,
    hedgeState: createHedgeState(),
    topCountMemory: createTopCountMemory(),
    tableColumns: createTableColumns(),
    ...(cursorKey ? { cursorKey } : {}),
    statistics,
    writeRows: routerWriter(topo, sinkAccess(sdkInvoker), statistics),
    clickhouse: {
      raw: catalogEngine(topo, invoker),
      insert: routerInsert(topo, sinkAccess(sdkInvoker), statistics),
      running: createRunningQueries(),
      ...usersFromEnv(env),
    },
  };
}

/** The exchange's cleaner, when this deployment has the bucket (the S3 adapter loads only then). */
export async function exchangeCleanerFromEnv(env: NodeJS.ProcessEnv): Promise<ExchangeCleaner | undefined> {
  const config = parseExchangeEnv(env.CH_SCATTER_EXCHANGE);
  if (!config) return undefined;
  const { createS3ExchangeCleaner } = await import('../../shared/adapters/aws/s3-exchange.js');
  return createS3ExchangeCleaner(config);
}

/**
 * Where the coordinator runs the parity guard's reads: the shard whose replica URL is
 * distributedCheck.endpoint (that replica first), else shard 0. The reads travel as ordinary
 * read-only ShardRequests, so the coordinator needs no credentials and no VPC. An endpoint that is
 * not a shard replica (a separate query node) is NOT contacted by the coordinator: `ch-scatter check
 * --config` connects to it directly (with CLICKHOUSE_USER/CLICKHOUSE_PASSWORD); the guard reads shard
 * 0, which holds the same remote_servers and, as usual, the Distributed table too.
 */
export function parityTarget(topo: Topology): { shard: number; replicas: number[]; endpointIsShard: boolean } {
  const endpoint = topo.distributedCheck?.endpoint?.replace(/\/+$/, '');
  for (const [i, s] of topo.shards.entries()) {
    const j = endpoint ? s.replicas.findIndex((r) => r.url?.replace(/\/+$/, '') === endpoint) : -1;
    if (j >= 0) return { shard: i, replicas: [j, ...s.replicas.map((_, k) => k).filter((k) => k !== j)], endpointIsShard: true };
  }
  return { shard: 0, replicas: topo.shards[0]!.replicas.map((_, k) => k), endpointIsShard: false };
}

/** The first invocation refuses to serve when the topology disagrees with ClickHouse's cluster. */
async function parityGuard(topo: Topology, invoker: ShardInvoker): Promise<void> {
  const target = parityTarget(topo);
  if (topo.distributedCheck?.endpoint && !target.endpointIsShard) {
    console.warn(
      `parity: distributedCheck.endpoint ${topo.distributedCheck.endpoint} is not a shard replica; the coordinator checked shard 0 through its function (run \`ch-scatter check --config\` to check the endpoint itself)`,
    );
  }
  const access = createShardReadAccess({ invoker, shard: target.shard, replicas: target.replicas });
  try {
    await assertParityAtStartup(topo, access);
    // `*` is spelled out from one shard's columns: every shard's local table must have the same.
    const columns = await checkColumnParity(topo, (shard) =>
      createShardReadAccess({ invoker, shard, replicas: topo.shards[shard]!.replicas.map((_, i) => i) }),
    );
    if (columns.length) throw new ScatterError('CONFIG_INVALID', `the shards' tables differ:\n${columns.join('\n')}`, { details: { problems: columns } });
  } catch (e) {
    throw new ScatterError('INTERNAL', `Distributed parity check failed, refusing to serve: ${(e as Error).message}`, { cause: e });
  }
}
