// The shard function: middy wiring around the core shard execution (shared/scatter/shard-exec.ts).
// It parses the Invoke payload, picks (and caches, per warm container) the ClickHouse access
// for the replica named in the payload, and answers with a ShardResponse. It never throws for a
// bad request or a ClickHouse failure: those are typed failures the coordinator can merge.
//
// In AWS: `handler`, configured by CH_SCATTER_SHARD = JSON {shard, replicas:[{url, secretArn?}],
// secretArn?, database?}; credentials come from Secrets Manager (cached). The local stack hosts
// the same code through `createShardHandler(deps)` with the embedded adapter.
// Logs carry ids, sizes, timings and error kinds: never row data, SQL literals or credentials.
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { z } from 'zod';
import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { Tracer } from '@aws-lambda-powertools/tracer';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import type { ClickHouseAccess } from '../../shared/clickhouse/port.js';
import { createAccess, type Credentials } from '../../shared/clickhouse/factory.js';
import { executeShardRequest } from '../../shared/scatter/shard-exec.js';
import type { ShardFailure, ShardResponse } from '../../shared/scatter/protocol.js';

export interface ShardHandlerDeps {
  /** The access for replica `i` of this shard; called per request, so cache inside. */
  getAccess(replica: number): Promise<ClickHouseAccess>;
  /** This function's shard: requests for another shard are refused (mis-routed). */
  shard?: number;
  /** How many replicas this shard has: a payload naming another one is refused. */
  replicaCount?: number;
  allowAdmin?: boolean;
  now?: () => number;
  logger?: Logger;
  metrics?: Metrics;
  maxResponseBytes?: number;
  /** Stop this long before the Lambda's own timeout, so the answer still gets out. */
  lambdaSafetyMarginMs?: number;
}

export type ShardHandlerFn = (event: unknown, context?: Partial<Context>) => Promise<ShardResponse>;

export function createShardHandler(deps: ShardHandlerDeps): ShardHandlerFn {
  const now = deps.now ?? Date.now;
  const logger = deps.logger ?? new Logger({ serviceName: 'ch-scatter-shard' });
  return async (event, context) => {
    const ev = (typeof event === 'object' && event !== null ? { ...(event as Record<string, unknown>) } : event) as Record<string, unknown> | unknown;
    const shard = num((ev as { shard?: unknown })?.shard);
    const replica = num((ev as { replica?: unknown })?.replica);
    const queryId = typeof (ev as { queryId?: unknown })?.queryId === 'string' ? String((ev as { queryId: string }).queryId).slice(0, 256) : undefined;
    if (queryId) logger.appendKeys({ queryId });
    try {
      if (deps.shard !== undefined && shard !== undefined && shard !== deps.shard) {
        return count(refuse(shard, replica, `request for shard ${shard} reached the function of shard ${deps.shard}`), logger, deps.metrics);
      }
      if (replica !== undefined && deps.replicaCount !== undefined && replica >= deps.replicaCount) {
        return count(refuse(shard, replica, `replica ${replica} does not exist (this shard has ${deps.replicaCount})`), logger, deps.metrics);
      }
      // The Lambda's own remaining time caps the deadline: answer before the runtime is killed.
      const remaining = context?.getRemainingTimeInMillis?.();
      if (remaining !== undefined && typeof ev === 'object' && ev !== null && typeof (ev as { deadline?: unknown }).deadline === 'number') {
        const cap = now() + remaining - (deps.lambdaSafetyMarginMs ?? 250);
        const e = ev as { deadline: number };
        if (cap < e.deadline) e.deadline = cap;
      }
      let access: ClickHouseAccess;
      try {
        access = await deps.getAccess(replica ?? 0);
      } catch (e) {
        const f: ShardFailure = {
          ok: false,
          shard: shard ?? -1,
          replica: replica ?? -1,
          error: { kind: 'unavailable', code: 'UNAVAILABLE', message: `cannot set up ClickHouse access: ${(e as Error)?.message ?? String(e)}` },
        };
        logger.error('shard access setup failed', { shard, replica, error: f.error.message });
        return count(f, logger, deps.metrics);
      }
      const t0 = now();
      const res = await executeShardRequest(ev, access, {
        now,
        allowAdmin: deps.allowAdmin,
        maxResponseBytes: deps.maxResponseBytes,
        onEvent: (e) => {
          if (e.event !== 'start') logger.warn(`shard query ${e.event}`, { chQueryId: e.chQueryId, detail: e.message });
        },
      });
      const elapsedMs = now() - t0;
      if (res.ok) {
        logger.info('shard request done', { shard, replica, attempt: (ev as { attempt?: unknown }).attempt, rows: res.rows.length, elapsedMs, rowsRead: res.statistics.rowsRead });
      } else {
        logger.warn('shard request failed', { shard, replica, kind: res.error.kind, code: res.error.code, chCode: res.error.chCode, elapsedMs });
      }
      if (deps.metrics) {
        deps.metrics.addMetric('ShardLatency', MetricUnit.Milliseconds, elapsedMs);
        deps.metrics.addMetric(res.ok ? 'ShardSuccess' : res.error.kind === 'timeout' ? 'ShardTimeout' : 'ShardError', MetricUnit.Count, 1);
      }
      return res;
    } finally {
      if (queryId) logger.removeKeys(['queryId']);
    }
  };
}

function count(f: ShardFailure, logger: Logger, metrics?: Metrics): ShardFailure {
  if (f.error.code === 'BAD_REQUEST') logger.warn('shard request refused', { shard: f.shard, replica: f.replica, code: f.error.code });
  metrics?.addMetric('ShardError', MetricUnit.Count, 1);
  return f;
}

function refuse(shard: number | undefined, replica: number | undefined, message: string): ShardFailure {
  return { ok: false, shard: shard ?? -1, replica: replica ?? -1, error: { kind: 'error', code: 'BAD_REQUEST', message } };
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : undefined;
}

// ---- AWS wiring ---------------------------------------------------------------------------

export const shardEnvSchema = z.object({
  shard: z.number().int().nonnegative(),
  replicas: z.array(z.object({ url: z.string().url(), secretArn: z.string().min(1).optional() })).min(1),
  /** Default secret for every replica without its own. */
  secretArn: z.string().min(1).optional(),
  database: z.string().min(1).optional(),
});
export type ShardEnv = z.infer<typeof shardEnvSchema>;

export function parseShardEnv(raw: string | undefined): ShardEnv {
  if (!raw) throw new Error('CH_SCATTER_SHARD is not set');
  const r = shardEnvSchema.safeParse(JSON.parse(raw));
  if (!r.success) throw new Error(`CH_SCATTER_SHARD is invalid: ${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return r.data;
}

/** Credentials from Secrets Manager ({"username","password"} JSON), cached by Powertools. */
export async function loadCredentials(secretArn: string): Promise<Credentials> {
  const { getSecret } = await import('@aws-lambda-powertools/parameters/secrets');
  const v = (await getSecret(secretArn, { transform: 'json', maxAge: 300 })) as { username?: unknown; password?: unknown } | undefined;
  if (!v || typeof v.username !== 'string' || typeof v.password !== 'string') {
    throw new Error(`secret ${secretArn} must be JSON {"username": "...", "password": "..."}`);
  }
  return { username: v.username, password: v.password };
}

/** Deps from the environment; the parse and the accesses happen lazily (cold start), then stay cached. */
export function envShardDeps(env: NodeJS.ProcessEnv = process.env, logger?: Logger, metrics?: Metrics): ShardHandlerDeps {
  let parsed: ShardEnv | undefined;
  const cfg = () => (parsed ??= parseShardEnv(env.CH_SCATTER_SHARD));
  const cache = new Map<number, Promise<ClickHouseAccess>>();
  const tryCfg = () => {
    try {
      return cfg();
    } catch {
      return undefined; // getAccess reports the problem as 'unavailable'
    }
  };
  const deps: ShardHandlerDeps = {
    logger,
    metrics,
    get shard() {
      return tryCfg()?.shard;
    },
    get replicaCount() {
      return tryCfg()?.replicas.length;
    },
    getAccess(replica: number) {
      const c = cfg();
      const r = c.replicas[replica];
      if (!r) return Promise.reject(new Error(`replica ${replica} does not exist`));
      let p = cache.get(replica);
      if (!p) {
        const secret = r.secretArn ?? c.secretArn;
        p = (async () => createAccess({ url: r.url }, secret ? await loadCredentials(secret) : undefined, { database: c.database }))();
        p.catch(() => cache.delete(replica)); // a failed setup is retried on the next request
        cache.set(replica, p);
      }
      return p;
    },
  };
  return deps;
}

const logger = new Logger({ serviceName: 'ch-scatter-shard' });
const metrics = new Metrics({ namespace: 'ch-scatter', serviceName: 'ch-scatter-shard' });
const tracer = new Tracer({ serviceName: 'ch-scatter-shard' });

/** Wrap a shard function with the Powertools middlewares (logger context, traces, metrics). */
export function withPowertools(fn: ShardHandlerFn) {
  return middy(fn as (event: unknown, context: Context) => Promise<ShardResponse>)
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(captureLambdaHandler(tracer, { captureResponse: false }))
    .use(logMetrics(metrics));
}

export const handler = withPowertools(createShardHandler(envShardDeps(process.env, logger, metrics)));
