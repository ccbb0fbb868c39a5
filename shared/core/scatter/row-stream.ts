// A row query streamed from the shards to the client: each shard runs its rewritten SELECT in the
// client's format over the streaming hop (shard-streams.ts: the one fan-out, so replicas, hedging,
// retries and the deadline hold up to a shard's first byte) and its bytes are written on as they
// come (the formats that concatenate: the first shard writes the *WithNames header, the others the
// bare rows). Line formats are interleaved at row ends, every shard at once; the others go shard
// after shard, the later shards' streams held by backpressure. A part already written cannot be
// asked again elsewhere: a shard that fails after its first byte fails the answer. The client
// leaving, a shard's error or the deadline stop every shard still running (shard-cancel.ts).
import { parseClickHouseCode } from '../clickhouse/error-codes.js';
import { setMaxListeners } from 'node:events';
import { ScatterError } from '../errors.js';
import type { Topology } from '../config/schema.js';
import type { ShardProgress } from '../protocol/stream-frames.js';
import type { QueryPlan } from '../plan/types.js';
import type { ShardRequest } from '../protocol/shard-wire.js';
import type { ShardOutcome } from './call-shard.js';
import { createLimiter } from './fanout.js';
import { shardCallFor } from './gather.js';
import type { HedgeState } from './hedge.js';
import type { ShardInvoker } from './invoker.js';
import { cancelLoser } from './shard-cancel.js';
import { openShardStreams, type ShardStream } from './shard-streams.js';

/** What a shard has read so far (its engine's progress), reported as it grows. */
export type ReadProgress = ShardProgress;

export interface RowStreamInput {
  topo: Topology;
  plan: QueryPlan;
  invoker: ShardInvoker;
  hedgeState: HedgeState;
  queryId: string;
  deadlineAt: number;
  now(): number;
  /**
   * The first queried shard's format (with the header) and the others' (bare rows); `lineRows`: every
   * newline ends a row, so parts read at once are interleaved at row ends (the header first).
   */
  formats: { first: string; rest: string; lineRows?: { headerLines: number } };
  /** Settings for the shards' engines besides the plan's (the client's format settings). */
  formatSettings?: ShardRequest['settings'];
  /** The client went away. */
  signal?: AbortSignal;
  /** Writes one piece to the client; resolves when it may take more. */
  write(chunk: Uint8Array): Promise<void>;
  /**
   * The shards' rows and bytes read so far, summed, each time one grows: the shards are then asked
   * for their progress beside their bytes (stream-frames.ts).
   */
  onRead?(total: ReadProgress): void;
}

interface OpenPart {
  stream: ShardStream;
  iterator: AsyncIterator<Uint8Array>;
  next: Promise<IteratorResult<Uint8Array>>;
  done: boolean;
}

/** A shard that is missing, or whose stream failed, as the error the interfaces render. */
function shardError(shard: number, status: ShardOutcome['status'] | 'failed', message: string, chCode?: number): ScatterError {
  // After its first byte a shard's failure is text only: ClickHouse's code is read from it.
  const code = chCode ?? parseClickHouseCode(message);
  if (status === 'timeout') return new ScatterError('TIMEOUT', `shard ${shard}: ${message}`, { details: { clickhouse: { code: code ?? 159 } } });
  return new ScatterError('QUERY_ERROR', `shard ${shard}: ${message}`, code !== undefined ? { details: { clickhouse: { code } } } : {});
}

export async function streamRows(input: RowStreamInput): Promise<ReadProgress & { bytes: number }> {
  const { plan, topo, now } = input;
  const queried = plan.shards.filter((s) => !s.skipped);
  if (queried.length === 0) throw new ScatterError('INTERNAL', 'a streamed row query with no shard to ask');
  const asks = queried.map((sp, i) => {
    const ask = shardCallFor(plan, sp, topo, input.queryId, input.deadlineAt, { format: i === 0 ? input.formats.first : input.formats.rest });
    return {
      shard: sp.shard,
      how: {
        replicaCount: ask.replicaCount,
        request: (replica: number, attempt: ShardRequest['attempt']) => {
          const base = ask.request(replica, attempt);
          return { ...base, settings: { ...base.settings, ...input.formatSettings }, ...(input.onRead ? { progress: true } : {}) };
        },
      },
    };
  });
  const read = new Map<number, ReadProgress>();
  const report = () => {
    let rowsRead = 0;
    let bytesRead = 0;
    for (const r of read.values()) {
      rowsRead += r.rowsRead;
      bytesRead += r.bytesRead;
    }
    input.onRead?.({ rowsRead, bytesRead });
    return { rowsRead, bytesRead };
  };
  const streams = openShardStreams(
    {
      invoker: input.invoker,
      limiter: createLimiter(topo.query.maxConcurrency),
      deadlineAt: input.deadlineAt,
      now,
      hedge: topo.query.hedge,
      state: input.hedgeState,
      ...(input.signal ? { signal: input.signal } : {}),
    },
    asks,
    input.onRead
      ? (shard, _attempt, p) => {
          // Per shard its attempts' largest reading: a hedge reads beside its primary, the same rows.
          if (p.rowsRead <= (read.get(shard)?.rowsRead ?? 0)) return;
          read.set(shard, p);
          report();
        }
      : undefined,
  );
  // Every part's read and write waits on this one signal at once: by design, not a leak.
  setMaxListeners(0, streams.signal);
  const deadlineFell = () => streams.signal.aborted && !streams.stopped.aborted;
  const parts: (OpenPart | undefined)[] = [];
  /** The i-th shard's stream once its answer started; a shard missing before that fails the answer. */
  const opened = async (i: number): Promise<OpenPart> => {
    const stream = await abortable(streams.shards[i]!, streams.signal);
    const o = stream.outcome;
    if (o.status !== 'ok') throw shardError(stream.shard, o.status, o.message ?? o.status, o.chCode);
    const iterator = stream.chunks[Symbol.asyncIterator]();
    const part: OpenPart = { stream, iterator, next: iterator.next(), done: false };
    part.next.catch(() => undefined); // awaited below, or dropped when an earlier part failed
    parts[i] = part;
    return part;
  };
  const nextOf = (part: OpenPart) =>
    abortable(part.next, streams.signal).catch((e: unknown) => {
      if (deadlineFell() || streams.stopped.aborted) throw e;
      throw shardError(part.stream.shard, 'failed', `the shard's stream failed after it started: ${e instanceof Error ? e.message : String(e)}`);
    });
  let bytes = 0;
  try {
    const lines = input.formats.lineRows;
    if (lines) {
      await interleaved(queried.length, opened, nextOf, lines.headerLines, input.write, streams.signal, (n) => {
        bytes += n;
      });
      return { ...report(), bytes };
    }
    for (let i = 0; i < queried.length; i++) {
      const part = await opened(i);
      for (;;) {
        const r = await nextOf(part);
        if (r.done) break;
        bytes += r.value.byteLength;
        await abortable(input.write(r.value), streams.signal);
        part.next = part.iterator.next();
      }
      part.done = true;
    }
    return { ...report(), bytes };
  } catch (e) {
    const why = streams.signal.aborted ? streams.signal.reason : e;
    const timedOut = deadlineFell();
    // In AWS a closed stream is not promised to reach the shard: every attempt that may still run
    // (started or still computing its first block, read or not yet reached) is asked to KILL on its
    // replica, first thing, before the streams are torn down.
    for (const sent of streams.unfinished()) cancelLoser(input.invoker, sent, now);
    streams.stop(why);
    if (timedOut)
      throw new ScatterError('TIMEOUT', `the query's deadline passed after ${bytes} bytes of the answer were sent`, {
        details: { clickhouse: { code: 159 } },
      });
    throw why;
  } finally {
    streams.close();
    for (const p of parts) if (p && !p.done) p.iterator.return?.().catch(() => undefined);
  }
}

/**
 * Every part read at once, each written up to its last complete row as it arrives (one write at a
 * time, so rows never mix), the first part's header lines before any other part's rows: the
 * shards stream in parallel, as a Distributed table reads them.
 */
async function interleaved(
  count: number,
  opened: (i: number) => Promise<OpenPart>,
  nextOf: (part: OpenPart) => Promise<IteratorResult<Uint8Array>>,
  headerLines: number,
  write: (c: Uint8Array) => Promise<void>,
  signal: AbortSignal,
  written: (n: number) => void,
) {
  let queue: Promise<void> = Promise.resolve();
  const put = (c: Uint8Array) => {
    queue = queue.then(() => abortable(write(c), signal));
    written(c.byteLength);
    return queue;
  };
  let headerSeen!: () => void;
  const header = headerLines === 0 ? Promise.resolve() : new Promise<void>((r) => (headerSeen = r));
  let headerLeft = headerLines;
  await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const part = await opened(i);
      let carry: Buffer = Buffer.alloc(0);
      if (i > 0) await abortable(header, signal);
      for (;;) {
        const r = await nextOf(part);
        if (r.done) break;
        const buf = carry.length ? Buffer.concat([carry, r.value]) : Buffer.from(r.value.buffer, r.value.byteOffset, r.value.byteLength);
        const cut = buf.lastIndexOf(10) + 1;
        carry = buf.subarray(cut);
        if (cut > 0) {
          const rows = buf.subarray(0, cut);
          if (i === 0 && headerLeft > 0) {
            for (let at = rows.indexOf(10); at >= 0 && headerLeft > 0; at = rows.indexOf(10, at + 1)) headerLeft--;
            await put(rows);
            if (headerLeft === 0) headerSeen();
          } else await put(rows);
        }
        part.next = part.iterator.next();
      }
      if (carry.length) await put(carry);
      if (i === 0 && headerLeft > 0) headerSeen?.();
      part.done = true;
    }),
  );
}

/** `p`, or the signal's reason as soon as it fires. */
function abortable<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
