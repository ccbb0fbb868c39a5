// The shard function: middy wiring around the core shard execution (shared/core/shard/execute.ts).
// It parses the Invoke payload, picks (and caches, per warm container) the ClickHouse access
// for the replica named in the payload, and answers with a ShardResponse. It never throws for a
// bad request or a ClickHouse failure: those are typed failures the coordinator can merge.
//
// In AWS: `handler`, configured by CH_SCATTER_SHARD = JSON {shard, replicas:[{url, secretArn?}],
// secretArn?, database?}; credentials come from Secrets Manager (cached). CH_SCATTER_WRITABLE_TABLES
// (comma-separated local tables, set by the CDK stack to the schedule destinations) are the only
// tables an `insert` admin request may write; `exec` is always refused here. The local stack hosts
// the same code through `createShardHandler(deps)` with the embedded adapter.
// Logs carry ids, sizes, timings and error kinds: never row data, SQL literals or credentials.
import type { Logger } from '@aws-lambda-powertools/logger';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import type { ClickHouseAccess } from '../../shared/core/clickhouse/port.js';
import { createAccess, type Credentials } from '../../shared/adapters/clickhouse/factory.js';
import { parseWritableTables } from '../../shared/core/shard/execute.js';
import { createTools, withPowertools } from '../common/powertools.js';
import { createShardHandler, createStreamingShardHandler, type ShardHandlerDeps } from './shard-function.js';
import { parseShardEnv, type ShardEnv } from './env.js';
import { createExchangeStore, parseExchangeEnv, parseMaxExchangeBytes } from './exchange-env.js';
import type { ExchangeStore } from '../../shared/core/shard/exchange.js';

export { createShardHandler, createStreamingShardHandler, type ShardHandlerDeps, type ShardHandlerFn } from './shard-function.js';

// ---- AWS wiring ---------------------------------------------------------------------------

export { parseShardEnv, shardEnvSchema, type ShardEnv } from './env.js';

/**
 * Credentials from Secrets Manager ({"username","password"} JSON), cached by Powertools. Parsed here,
 * not by Powertools' json transform: a JSON parse error quotes the start of its input, which for a
 * secret stored as a bare password is the password, and this message is logged and answered.
 */
export async function loadCredentials(secretArn: string): Promise<Credentials> {
  const { getSecret } = await import('@aws-lambda-powertools/parameters/secrets');
  const raw = await getSecret(secretArn, { maxAge: 300 });
  let secretValue: { username?: unknown; password?: unknown } | undefined;
  try {
    secretValue = typeof raw === 'string' ? (JSON.parse(raw) as typeof secretValue) : undefined;
  } catch {
    secretValue = undefined;
  }
  if (!secretValue || typeof secretValue.username !== 'string' || typeof secretValue.password !== 'string') {
    throw new Error(`secret ${secretArn} must be JSON {"username": "...", "password": "..."}`);
  }
  return { username: secretValue.username, password: secretValue.password };
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
  let exchange: Promise<ExchangeStore | undefined> | undefined;
  const maxExchangeBytes = parseMaxExchangeBytes(env.CH_SCATTER_MAX_EXCHANGE_BYTES);
  const deps: ShardHandlerDeps = {
    logger,
    metrics,
    writableTables: parseWritableTables(env.CH_SCATTER_WRITABLE_TABLES),
    exchange: () => {
      exchange ??= (async () => {
        const cfg = parseExchangeEnv(env.CH_SCATTER_EXCHANGE);
        return cfg ? createExchangeStore(cfg) : undefined;
      })();
      exchange.catch(() => (exchange = undefined)); // a failed setup is retried on the next request
      return exchange;
    },
    ...(maxExchangeBytes ? { maxExchangeBytes } : {}),
    get shard() {
      return tryCfg()?.shard;
    },
    get replicaCount() {
      return tryCfg()?.replicas.length;
    },
    getAccess(replica: number) {
      const shardEnv = cfg();
      const replicaEnv = shardEnv.replicas[replica];
      if (!replicaEnv) return Promise.reject(new Error(`replica ${replica} does not exist`));
      let access = cache.get(replica);
      if (!access) {
        const secret = replicaEnv.secretArn ?? shardEnv.secretArn;
        access = (async () => createAccess({ url: replicaEnv.url }, secret ? await loadCredentials(secret) : undefined, { database: shardEnv.database }))();
        access.catch(() => cache.delete(replica)); // a failed setup is retried on the next request
        cache.set(replica, access);
      }
      return access;
    },
  };
  return deps;
}

// The same Powertools setup and middleware order as the coordinator (functions/common/powertools.ts).
const tools = createTools('ch-scatter-shard');

export const handler = withPowertools(createShardHandler(envShardDeps(process.env, tools.logger, tools.metrics)), tools);

/**
 * The same function as a streaming handler (Handler `index.streamingHandler`, deployed with the
 * streaming door): raw answers asked with `stream` leave as the engine's bytes, with no 6 MB cap;
 * a plain Invoke gets the JSON answer. Its own deps (a warm container caches its accesses once per
 * handler); no middy around a stream, so its metrics are flushed after each invocation here.
 */
export const streamingHandler = createStreamingShardHandler(envShardDeps(process.env, tools.logger, tools.metrics), () => tools.metrics.publishStoredMetrics());
