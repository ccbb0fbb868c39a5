// The local stack (`ch-scatter dev`): what AWS runs, on one machine.
//   shard hosts      the shard function per (shard, replica) with its adapter and the replica's
//                    `fault` config: a child process for an embedded (chdb) replica, in this
//                    process for an HTTP one (shard-host.ts, in-process-host.ts);
//   exchange         s3rver on loopback, the bucket large stage-one answers go through (exchange-server.ts);
//   Invoke endpoint  POST /2015-03-31/functions/{name}/invocations, answering like Lambda;
//   coordinator      the SAME handler as the Lambda, reached through api-server.ts, whose query
//                    invoker is the one AWS runs (the lean signed node:http client by default,
//                    @aws-sdk/client-lambda with CH_SCATTER_INVOKER=sdk) pointed at the local endpoint.
// Differences from AWS: a local shard host serves overlapping invocations itself (one chdb
// directory per process), where Lambda would start more execution environments; and the
// coordinator runs in this process, so its warm state lives as long as the stack.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError, loadTopology } from '../shared/core/config/load.js';
import type { Topology } from '../shared/core/config/schema.js';
import { createCoordinatorHandler, createTools } from '../functions/coordinator/handler.js';
import { createQueryInvoker, loadDefaultDeps, queryInvokerKind, type CoordinatorDeps, type QueryInvokerKind } from '../functions/coordinator/deps.js';
import { shardFunctionNames } from '../shared/adapters/aws/lambda-invoker.js';
import type { ShardInvoker } from '../shared/core/scatter/invoker.js';
import { createAdminAccess } from '../shared/core/scatter/shard-admin-access.js';
import { lambdaContext, startApiServer, type CoordinatorFn } from './api-server.js';
import { startInvokeServer, type LocalFunction } from './invoke-server.js';
import { startShardHosts } from './shard-host.js';
import { startLocalExchange, type LocalExchange } from './exchange-server.js';
import { loadDemo } from './demo.js';
import { claimDataDirs } from './data-dir-holders.js';
import { embeddedDirs, withDataDir, type DataDirChoice } from './data-dir.js';
import { PLAY_PAGE_ENV } from '../functions/coordinator/play-page.js';
import { usersFromEnv } from '../functions/coordinator/users-env.js';
import { serveStreaming } from '../functions/coordinator/stream-handler.js';
import { replicaProgress } from '../shared/adapters/clickhouse/replica-progress.js';
import { startStreamServer } from './stream-server.js';

/** The web console's page (GET /play): always served by the local stack. */
export const PLAY_PAGE_FILE = fileURLToPath(new URL('./play/index.html', import.meta.url));

/** The coordinator's function name on the local Invoke endpoint. */
export const LOCAL_COORDINATOR_FUNCTION = 'ch-scatter-coordinator';

export interface LocalStackOptions extends LocalShardsOptions {
  configFile?: string;
  /** A topology already loaded (tests); relative embedded paths resolve against `baseDir` (else refused). */
  topo?: Topology;
  port?: number;
  demo?: boolean;
  /** Rows for --demo (default DEMO_ROWS). */
  demoRows?: number;
  /** Coordinator log level (default $CH_SCATTER_LOG_LEVEL, as the shard hosts', else WARN: stdout stays clean for the `ready` line). */
  logLevel?: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'SILENT';
  /** Run `rate(...)` schedules of the config on timers, as EventBridge would (dev does; tests fire them by hand). */
  runSchedules?: boolean;
  /** Where schedule runs are reported (default: stderr). */
  log?: (line: string) => void;
  /** Coordinator Lambda timeout for context.getRemainingTimeInMillis() (default 30 s). */
  lambdaTimeoutMs?: number;
  /** A users file (salted password hashes) the ClickHouse interface checks credentials against; none: no check. */
  usersFile?: string;
  /** Embedded replicas' data elsewhere than the config says (a second stack on the same config). */
  dataDir?: DataDirChoice;
  /** The streaming front door's port (0: any free one; false: none). Default: none. */
  streamPort?: number | false;
}

export interface LocalStack {
  url: string;
  /** The streaming front door (ClickHouse's interface, answers written as produced), when asked for. */
  streamUrl?: string;
  invokeUrl: string;
  topo: Topology;
  /** The coordinator's query invoker (LocalStackOptions.invoker, else CH_SCATTER_INVOKER, else 'http'). */
  invokerKind: QueryInvokerKind;
  demo?: { rows: number; ms: number };
  /** Invocations of the coordinator function through the Invoke endpoint (sub-coordinator requests). */
  coordinatorInvocations(): number;
  /** The exchange bucket's server, when started. */
  exchange?: LocalExchange;
  stop(): Promise<void>;
}

export interface LocalShards {
  /** The coordinator's query invoker (of `invokerKind`), pointed at the local Invoke endpoint. */
  invoker: ShardInvoker & { close(): void };
  invokerKind: QueryInvokerKind;
  invokeUrl: string;
  /** Serve one more function on the Invoke endpoint (the coordinator itself, for the aggregation tree). */
  register(name: string, fn: LocalFunction): void;
  /** Name the stack's URL in its data directories, for a second stack started on them to report. */
  announce(url: string): void;
  /** The exchange bucket's server, when started. */
  exchange?: LocalExchange;
  /** The process serving each shard function, by shard and replica (this one for an in-process host). */
  hostPids(): number[][];
  stop(): Promise<void>;
}

export type { LocalFunction };

export interface LocalShardsOptions {
  /**
   * Directory that relative `embedded` paths of a `topo` resolve against (default: the config file's
   * directory, as loadTopology does). Without one, a relative path is refused rather than quietly
   * resolved against the process's working directory (a different data directory per shell).
   */
  baseDir?: string;
  /** Max in-flight invokes per shard function (all, or by function name) before 429, like reserved concurrency. */
  shardConcurrency?: number | Record<string, number>;
  /** Tests: replace or wrap shard functions (a malformed answer, an injected stall) before they are served. */
  wrapFunctions?: (fns: Record<string, LocalFunction>) => Record<string, LocalFunction>;
  /** Start the exchange bucket (s3rver) for large stage-one answers, as the CDK app deploys one. Default true. */
  exchange?: boolean;
  /**
   * The query invoker, for the coordinator and for `invoker` (default: as the coordinator in AWS
   * chooses, env CH_SCATTER_INVOKER, else the lean signed HTTP one), so the stack runs what AWS runs.
   */
  invoker?: QueryInvokerKind;
  /** Serve HTTP replicas in this process (default true); false gives every shard function a process of its own. */
  inProcessHttp?: boolean;
}

/** `topo` with every embedded replica path absolute: resolved against baseDir, or refused (ConfigError). */
export function withAbsoluteEmbedded(topo: Topology, baseDir: string | undefined): Topology {
  const problems: string[] = [];
  const shards = topo.shards.map((s, i) => ({
    ...s,
    replicas: s.replicas.map((r, j) => {
      if (!r.embedded || path.isAbsolute(r.embedded)) return r;
      if (!baseDir) {
        problems.push(
          `$.shards[${i}].replicas[${j}].embedded: "${r.embedded}" is relative; give the local stack a config file, a baseDir, or an absolute path`,
        );
        return r;
      }
      return { ...r, embedded: path.resolve(baseDir, r.embedded) };
    }),
  }));
  if (problems.length) throw new ConfigError(problems);
  return { ...topo, shards };
}

/** Shard hosts + the Invoke endpoint + the query invoker: what the CLI needs to reach shards with --config. */
export async function startLocalShards(topoIn: Topology, opts: LocalShardsOptions = {}): Promise<LocalShards> {
  const topo = withAbsoluteEmbedded(topoIn, opts.baseDir);
  // The SDK version is pinned on purpose (later releases need Node 22); its Node 22 notice is noise on
  // a dev terminal.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const cleanups: Array<() => Promise<void>> = [];
  const stop = async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
  };
  try {
    // Before any shard process: a directory another stack serves is reported once, naming that stack.
    const claim = claimDataDirs(embeddedDirs(topo));
    cleanups.push(async () => claim.release());
    const exchange = opts.exchange === false ? undefined : await startLocalExchange();
    if (exchange) cleanups.push(() => exchange.stop());
    const hosts = await startShardHosts(topo, {
      ...(exchange ? { exchange: exchange.env } : {}),
      ...(opts.inProcessHttp !== undefined ? { inProcessHttp: opts.inProcessHttp } : {}),
    });
    cleanups.push(() => hosts.stop());
    // A copy the endpoint reads per request, so register() can add functions after it starts.
    const functions: Record<string, LocalFunction> = { ...(opts.wrapFunctions ? opts.wrapFunctions({ ...hosts.functions }) : hosts.functions) };
    const invoke = await startInvokeServer({ port: 0, functions, ...(opts.shardConcurrency ? { concurrency: opts.shardConcurrency } : {}) });
    cleanups.push(() => invoke.close());
    const invokerKind = opts.invoker ?? queryInvokerKind(process.env);
    const invoker = await createQueryInvoker(invokerKind, topo.shards.length, {
      endpoint: invoke.url,
      functionNames: shardFunctionNames(topo.shards.length, {}),
    });
    cleanups.push(async () => invoker.close());
    const register = (name: string, fn: LocalFunction) => {
      if (Object.hasOwn(functions, name)) throw new Error(`function ${name} is already served`);
      functions[name] = fn;
    };
    const hostPids = () => hosts.hosts.map((replicas) => replicas.map((h) => h.pid));
    return { invoker, invokerKind, invokeUrl: invoke.url, register, announce: claim.announce, ...(exchange ? { exchange } : {}), hostPids, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

export async function startLocalStack(opts: LocalStackOptions): Promise<LocalStack> {
  // A config file's relative embedded paths are relative to the file (loadTopology resolves them);
  // a topology object's to opts.baseDir, defaulting to the config file's directory when one is named.
  const baseDir = opts.baseDir ?? (opts.configFile ? path.dirname(path.resolve(opts.configFile)) : undefined);
  const configured = withAbsoluteEmbedded(opts.topo ?? loadTopology(requireConfig(opts.configFile)), baseDir);
  const topo = opts.dataDir ? withDataDir(configured, opts.dataDir) : configured;
  // Metrics go to CloudWatch in AWS; locally EMF lines would only clutter the terminal.
  process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
  const cleanups: Array<() => Promise<void>> = [];
  const stop = async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
  };
  try {
    const shards = await startLocalShards(topo, { ...opts, baseDir });
    cleanups.push(() => shards.stop());
    const invoke = { url: shards.invokeUrl };

    const env = coordinatorEnv(topo, shards, opts.usersFile);
    const tools = createTools({ logLevel: opts.logLevel ?? envLogLevel(process.env.CH_SCATTER_LOG_LEVEL) ?? 'WARN' });
    // The coordinator's deps, once loaded: /admin/insert tells its statistics what it wrote (as the router's other callers do).
    let coordinator: CoordinatorDeps | undefined;
    const handler = createCoordinatorHandler(async () => (coordinator = await loadDefaultDeps(env, tools.tracer)), tools);
    // Registered whether or not the tree is configured: what Lambda would serve under this name. A
    // sub-coordinator request runs the SAME handler (its own deps, cached like a warm container).
    const lambdaTimeoutMs = opts.lambdaTimeoutMs ?? 30_000;
    let selfInvocations = 0;
    shards.register(LOCAL_COORDINATOR_FUNCTION, (payload) => {
      selfInvocations++;
      return (handler as unknown as (e: unknown, c: unknown) => Promise<unknown>)(payload, lambdaContext(lambdaTimeoutMs));
    });
    const adminInvoker = shards.invoker;
    const api = await startApiServer({
      port: opts.port ?? 0,
      handler: handler as unknown as CoordinatorFn,
      topo,
      invoker: adminInvoker,
      lambdaTimeoutMs: opts.lambdaTimeoutMs,
      onWritten: (table) => coordinator?.statistics?.invalidate(table),
      ...usersFromEnv(env),
    });
    cleanups.push(() => api.close());
    shards.announce(api.url);

    let streamUrl: string | undefined;
    if (opts.streamPort !== undefined && opts.streamPort !== false) {
      const door = await startStreamingDoor(env, tools, topo, opts.streamPort, lambdaTimeoutMs);
      cleanups.push(() => door.close());
      streamUrl = door.url;
    }

    if (opts.runSchedules) {
      const log = opts.log ?? ((l: string) => process.stderr.write(l + '\n'));
      for (const sch of topo.schedules) {
        const every = rateMs(sch.schedule);
        if (every === undefined) {
          log(`schedule ${sch.name}: ${sch.schedule} is not run locally (only rate(...)); fire it with POST /admin/schedule?name=${sch.name}`);
          continue;
        }
        const timer = setInterval(() => {
          void api
            .runSchedule(sch.name)
            .then(([status, out]) => log(`schedule ${sch.name}: ${status === 200 ? JSON.stringify(out) : `FAILED ${JSON.stringify(out)}`}`));
        }, every);
        timer.unref();
        cleanups.push(async () => clearInterval(timer));
      }
    }

    let demo: LocalStack['demo'];
    if (opts.demo) demo = await loadDemo(topo, (s, r) => createAdminAccess({ invoker: adminInvoker, shard: s, replica: r }), opts.demoRows);
    return {
      url: api.url,
      ...(streamUrl ? { streamUrl } : {}),
      invokeUrl: invoke.url,
      topo,
      invokerKind: shards.invokerKind,
      demo,
      coordinatorInvocations: () => selfInvocations,
      ...(shards.exchange ? { exchange: shards.exchange } : {}),
      stop,
    };
  } catch (e) {
    await stop();
    throw e;
  }
}

/** The coordinator's environment on the local stack: the topology, the shards' Invoke endpoint, the exchange. */
export function coordinatorEnv(topo: Topology, shards: Pick<LocalShards, 'invokeUrl' | 'invokerKind' | 'exchange'>, usersFile?: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    CH_SCATTER_TOPOLOGY: JSON.stringify(topo),
    CH_SCATTER_LAMBDA_ENDPOINT: shards.invokeUrl,
    // The aggregation tree invokes the coordinator itself through the Invoke endpoint (below).
    CH_SCATTER_SELF_FUNCTION: LOCAL_COORDINATOR_FUNCTION,
    CH_SCATTER_INVOKER: shards.invokerKind,
    [PLAY_PAGE_ENV]: PLAY_PAGE_FILE,
    ...(usersFile ? { CH_SCATTER_USERS_FILE: path.resolve(usersFile) } : {}),
    // The coordinator deletes a query's exchange objects itself, as in AWS.
    ...(shards.exchange ? { CH_SCATTER_EXCHANGE: JSON.stringify(shards.exchange.env) } : {}),
  };
  delete env.CH_SCATTER_SHARD_FUNCTIONS; // local names are ch-scatter-shard-<i>
  return env;
}

/**
 * The streaming front door: the same coordinator code with deps of its own (a second function in
 * AWS), reading the shards through the shard functions' streaming hop as in AWS. The shards'
 * progress is polled from their `url` replicas (replica-progress.ts). Exported for a door in a
 * process of its own (the benches measure its memory alone).
 */
export async function startStreamingDoor(env: NodeJS.ProcessEnv, tools: ReturnType<typeof createTools>, topo: Topology, port: number, lambdaTimeoutMs: number) {
  let ready: ReturnType<typeof loadDefaultDeps> | undefined;
  const progress = replicaProgress((shard) => topo.shards[shard]?.replicas ?? []);
  return startStreamServer({
    port,
    handler: async (input, sink, arrivedAt) => {
      ready ??= loadDefaultDeps(env, tools.tracer);
      const deps = await ready;
      await serveStreaming(deps, progress, input, sink, { arrivedAt, lambdaRemainingMs: lambdaContext(lambdaTimeoutMs).getRemainingTimeInMillis() });
    },
  });
}

/** Milliseconds of an EventBridge rate() expression, undefined for cron(). */
export function rateMs(expr: string): number | undefined {
  const m = /^rate\((\d+)\s+(minute|minutes|hour|hours|day|days)\)$/.exec(expr.trim());
  if (!m) return undefined;
  const unit = m[2]!.startsWith('minute') ? 60_000 : m[2]!.startsWith('hour') ? 3_600_000 : 86_400_000;
  return Number(m[1]) * unit;
}

const LOG_LEVELS = ['DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT'] as const;

function envLogLevel(v: string | undefined): (typeof LOG_LEVELS)[number] | undefined {
  return LOG_LEVELS.find((l) => l === v?.toUpperCase());
}

function requireConfig(file: string | undefined): string {
  if (!file) throw new Error('startLocalStack needs a configFile or a topo');
  return file;
}
