// The shard function's logic without the Lambda wiring: parse the payload, pick the replica's
// access, run the core shard execution, log (ids, sizes, timings, error kinds; never row data,
// SQL literals or credentials) and count. handler.ts wraps it with middy + Powertools for AWS;
// the local stack's shard hosts call it directly (no middy/tracer to load per host process).
// createStreamingShardHandler is the same logic as a streaming handler (awslambda.streamifyResponse):
// a request with `stream` gets the engine's bytes as they are read, with no 6 MB cap.
import type { Context } from 'aws-lambda';
import { Logger } from '@aws-lambda-powertools/logger';
import { MetricUnit, type Metrics } from '@aws-lambda-powertools/metrics';
import type { ClickHouseAccess } from '../../shared/core/clickhouse/port.js';
import type { ExchangeStore } from '../../shared/core/shard/exchange.js';
import { executeShardRequest } from '../../shared/core/shard/execute.js';
import { InflightAttempts } from '../../shared/core/shard/inflight.js';
import type { ShardFailure, ShardResponse } from '../../shared/core/protocol/shard-wire.js';
import { dataFrame, FRAMED_CONTENT_TYPE, progressFrame, responseFrame, type ShardProgress } from '../../shared/core/protocol/stream-frames.js';
import { METRIC as ALL } from '../common/metric-names.js';
import { isQueryFault } from '../../shared/core/clickhouse/error-codes.js';
import { awslambda, type ResponseStream, type StreamingHandler } from '../common/awslambda-global.mjs';

const METRIC = ALL.shard;

export interface ShardHandlerDeps {
  /** The access for replica `i` of this shard; called per request, so cache inside. */
  getAccess(replica: number): Promise<ClickHouseAccess>;
  /** This function's shard: requests for another shard are refused (mis-routed). */
  shard?: number;
  /** How many replicas this shard has: a payload naming another one is refused. */
  replicaCount?: number;
  allowAdmin?: boolean;
  /** Local tables an insert request may write without allowAdmin (CH_SCATTER_WRITABLE_TABLES). */
  writableTables?: ReadonlySet<string>;
  now?: () => number;
  logger?: Logger;
  metrics?: Metrics;
  maxResponseBytes?: number;
  /** The exchange bucket's store (functions/shard/exchange-env.ts); none: every answer inline. */
  exchange?: () => Promise<ExchangeStore | undefined>;
  /** CH_SCATTER_MAX_EXCHANGE_BYTES: the largest answer or final-stage input held for the exchange. */
  maxExchangeBytes?: number;
  /** Stop this long before the Lambda's own timeout, so the answer still gets out. */
  lambdaSafetyMarginMs?: number;
}

/** `sink`: where a streamed raw answer's bytes go (the streaming handler's response stream). */
/** `signal`: the caller went away (the streaming handler's response stream closed). */
/** `onProgress`: where a streamed query's progress goes (a framed stream's progress frames). */
export type ShardHandlerFn = (
  event: unknown,
  context?: Partial<Context>,
  sink?: (chunks: AsyncIterable<Uint8Array>) => Promise<void>,
  signal?: AbortSignal,
  onProgress?: (p: ShardProgress) => void,
) => Promise<ShardResponse>;

export function createShardHandler(deps: ShardHandlerDeps): ShardHandlerFn {
  const now = deps.now ?? Date.now;
  const logger = deps.logger ?? new Logger({ serviceName: 'ch-scatter-shard' });
  // One per handler: a cancel request finds the attempts this process runs (the local stack's hosts).
  const inflight = new InflightAttempts();
  return async (event, context, sink, signal, onProgress) => {
    const request = (typeof event === 'object' && event !== null ? { ...(event as Record<string, unknown>) } : event) as Record<string, unknown> | unknown;
    const shard = num((request as { shard?: unknown })?.shard);
    const replica = num((request as { replica?: unknown })?.replica);
    const queryId =
      typeof (request as { queryId?: unknown })?.queryId === 'string' ? String((request as { queryId: string }).queryId).slice(0, 256) : undefined;
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
      if (remaining !== undefined && typeof request === 'object' && request !== null && typeof (request as { deadline?: unknown }).deadline === 'number') {
        const cap = now() + remaining - (deps.lambdaSafetyMarginMs ?? 250);
        const timed = request as { deadline: number };
        if (cap < timed.deadline) timed.deadline = cap;
      }
      let access: ClickHouseAccess;
      try {
        access = await deps.getAccess(replica ?? 0);
      } catch (e) {
        const failure: ShardFailure = {
          ok: false,
          shard: shard ?? -1,
          replica: replica ?? -1,
          error: { kind: 'unavailable', code: 'UNAVAILABLE', message: `cannot set up ClickHouse access: ${(e as Error)?.message ?? String(e)}` },
        };
        logger.error('shard access setup failed', { shard, replica, error: failure.error.message });
        return count(failure, logger, deps.metrics);
      }
      let exchange: ExchangeStore | undefined;
      try {
        exchange = await deps.exchange?.();
      } catch (e) {
        // Answers still go inline (within the response limit); only the exchange is out of reach.
        logger.error('exchange setup failed', { error: (e as Error)?.message ?? String(e) });
      }
      const t0 = now();
      const res = await executeShardRequest(request, access, {
        ...(exchange ? { exchange } : {}),
        ...(deps.maxExchangeBytes ? { maxExchangeBytes: deps.maxExchangeBytes } : {}),
        now,
        allowAdmin: deps.allowAdmin,
        writableTables: deps.writableTables,
        maxResponseBytes: deps.maxResponseBytes,
        inflight,
        ...(sink ? { sink } : {}),
        ...(signal ? { signal } : {}),
        ...(onProgress ? { onProgress } : {}),
        onEvent: (e) => {
          if (e.event !== 'start') logger.warn(`shard query ${e.event}`, { chQueryId: e.chQueryId, detail: e.message });
        },
      });
      const elapsedMs = now() - t0;
      // ClickHouse rejecting the query itself (the client's SQL) is the query's error, not this shard's.
      const queryError = !res.ok && res.error.chCode !== undefined && isQueryFault(res.error.chCode, res.error.message);
      if (res.ok) {
        logger.info('shard request done', {
          shard,
          replica,
          attempt: (request as { attempt?: unknown }).attempt,
          rows: res.rows.length,
          elapsedMs,
          rowsRead: res.statistics.rowsRead,
        });
      } else {
        const line = { shard, replica, kind: res.error.kind, chCode: res.error.chCode, elapsedMs };
        if (queryError) logger.info('shard request answered: query error', line);
        else logger.warn('shard request failed', { ...line, code: res.error.code });
      }
      if (deps.metrics) {
        deps.metrics.addMetric(METRIC.latency, MetricUnit.Milliseconds, elapsedMs);
        const outcome = res.ok ? METRIC.success : queryError ? METRIC.queryError : res.error.kind === 'timeout' ? METRIC.timeout : METRIC.error;
        deps.metrics.addMetric(outcome, MetricUnit.Count, 1);
      }
      return res;
    } finally {
      if (queryId) logger.removeKeys(['queryId']);
    }
  };
}

/**
 * The shard function as a streaming handler. A raw answer asked with `stream` is written as the
 * engine's bytes (application/octet-stream) as they are read; any other answer, and a failure
 * before the first byte, is the ShardResponse as JSON (application/json). A failure after the first
 * byte fails the invocation (the caller's hop fails: the answer is missing, never shorter).
 * A request asking `progress` gets the same as frames (stream-frames.ts): progress frames from the
 * start, the bytes as data frames, the ShardResponse as a response frame when no byte was written.
 */
export function createStreamingShardHandler(deps: ShardHandlerDeps, flushMetrics?: () => void): StreamingHandler {
  const handle = createShardHandler(deps);
  return awslambda.streamifyResponse(async (event: unknown, responseStream: ResponseStream, context) => {
    let wrote = false;
    // The caller went away (locally the Invoke endpoint closes the stream at once): the attempt
    // is cancelled and its ClickHouse query KILLed, not read to its end.
    const gone = new AbortController();
    const onClose = () => {
      if (!responseStream.writableFinished) gone.abort();
    };
    responseStream.once('close', onClose);
    const framed = (event as { stream?: unknown; progress?: unknown } | null)?.stream === true && (event as { progress?: unknown }).progress === true;
    if (framed) responseStream.setContentType(FRAMED_CONTENT_TYPE);
    const sink = async (chunks: AsyncIterable<Uint8Array>) => {
      for await (const c of chunks) {
        wrote = true;
        if (!responseStream.write(framed ? dataFrame(c) : c)) await drained(responseStream);
      }
    };
    // Progress goes out as it grows; what the stream cannot take at once it buffers (a few bytes a reading).
    const onProgress = framed
      ? (p: ShardProgress) => {
          if (!responseStream.destroyed && !responseStream.writableEnded) responseStream.write(progressFrame(p));
        }
      : undefined;
    const res = await handle(event, context, sink, gone.signal, onProgress).finally(() => {
      responseStream.off('close', onClose);
      flushMetrics?.();
    });
    if (!wrote) {
      if (framed) return void responseStream.end(responseFrame(res));
      responseStream.setContentType('application/json');
      responseStream.end(JSON.stringify(res));
      return;
    }
    if (!res.ok)
      throw Object.assign(new Error(`the shard's answer failed after its first bytes: ${res.error.message}`), { name: res.error.code ?? 'SHARD_ERROR' });
    responseStream.end();
  });
}

/** The stream took what was written; rejects if it closed first (its reader went away). */
function drained(stream: ResponseStream): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (stream.destroyed) return reject(new Error('the response stream closed before it took the answer'));
    const done = (e?: Error) => {
      stream.off('drain', onDrain);
      stream.off('close', onClose);
      stream.off('error', onClose);
      if (e) reject(e);
      else resolve();
    };
    const onDrain = () => done();
    const onClose = (e?: Error) => done(e instanceof Error ? e : new Error('the response stream closed before it took the answer'));
    stream.on('drain', onDrain);
    stream.on('close', onClose);
    stream.on('error', onClose);
  });
}

function count(failure: ShardFailure, logger: Logger, metrics?: Metrics): ShardFailure {
  if (failure.error.code === 'BAD_REQUEST') logger.warn('shard request refused', { shard: failure.shard, replica: failure.replica, code: failure.error.code });
  metrics?.addMetric(METRIC.error, MetricUnit.Count, 1);
  return failure;
}

function refuse(shard: number | undefined, replica: number | undefined, message: string): ShardFailure {
  return { ok: false, shard: shard ?? -1, replica: replica ?? -1, error: { kind: 'error', code: 'BAD_REQUEST', message } };
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : undefined;
}
