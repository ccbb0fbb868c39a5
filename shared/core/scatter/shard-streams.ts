// Raw answers that stream from the shards (a row query's bytes in the client's format), asked
// through the one fan-out primitive, so replicas, hedging, retries and the deadline keep their
// meaning up to a shard's first byte. Each shard's answer is then an async iterable of its chunks
// as they arrive, for a consumer that passes them on (the client-facing door). A hop that fails
// after its first byte (the function failed mid-stream, the stream was cut, the deadline fell)
// rejects that shard's chunks: the shard is missing, never a shorter answer (pipeShardStreams).
import type { ShardFailure, ShardRequest, ShardResponse, ShardSuccess } from '../protocol/shard-wire.js';
import { oneChunk } from '../protocol/byte-chunks.js';
import type { ShardProgress } from '../protocol/stream-frames.js';
import type { ShardOutcome } from './call-shard.js';
import { summarizeShards } from './completeness.js';
import type { MissingShard } from './gather.js';
import type { ShardsSummary } from './query-types.js';
import type { ShardInvoker } from './invoker.js';
import { openFanOut, type FanOutInput, type ShardAsk } from './shard-fanout.js';

export interface ShardStream {
  shard: number;
  /** 'ok' once the shard's answer started; otherwise why it is missing (it has no chunks then). */
  outcome: ShardOutcome;
  /** The engine's bytes as they arrive. Rejects when the hop fails after its start. */
  chunks: AsyncIterable<Uint8Array>;
  /** The attempt whose answer this is (to cancel it where it runs), once it started streaming. */
  sent?: ShardRequest;
}

export interface ShardStreams {
  /** One per asked shard, settled when its answer starts (or is missing). */
  shards: Promise<ShardStream>[];
  /** Fires at the deadline, on stop(), or with the parent signal: every open stream ends then. */
  signal: AbortSignal;
  /** Fires on stop() or with the parent (not at the deadline). */
  stopped: AbortSignal;
  /** Abandon every stream still open (the consumer went away). */
  stop(reason: unknown): void;
  /**
   * The attempts sent that may still run where they were sent: not read to their end, not answered
   * with a failure, not superseded by another attempt of their shard (callShard cancels those).
   */
  unfinished(): ShardRequest[];
  /** Clear the deadline timer; call once every stream was read or given up. */
  close(): void;
}

async function* none(): AsyncGenerator<Uint8Array> {}

/**
 * The invoker the fan-out asks: a shard's streamed answer opens as a ShardSuccess (its bytes kept
 * aside for streamOf), each bound to the fan-out's signal as well as its attempt's, so the deadline
 * and stop() end a stream after callShard has settled. An invoker that cannot stream answers
 * buffered (its raw bytes as one chunk, under the 6 MB limit).
 */
function streamOpening(inner: ShardInvoker, fanOutSignal: () => AbortSignal, onProgress?: (shard: number, attempt: ShardRequest, p: ShardProgress) => void) {
  const streams = new WeakMap<ShardSuccess, { chunks: AsyncIterable<Uint8Array>; sent: ShardRequest }>();
  const live = new Set<ShardRequest>();
  const invoker: ShardInvoker = {
    ...inner,
    async invoke(shard: number, payload: ShardRequest, signal: AbortSignal): Promise<ShardResponse> {
      if (!inner.invokeStream) return inner.invoke(shard, payload, signal);
      const sent: ShardRequest = { ...payload, stream: true };
      live.add(sent);
      let a: Awaited<ReturnType<NonNullable<ShardInvoker['invokeStream']>>>;
      try {
        a = await inner.invokeStream(shard, sent, AbortSignal.any([signal, fanOutSignal()]), onProgress && ((p) => onProgress(shard, sent, p)));
      } catch (e) {
        // Cut off by the fan-out (the consumer left, the deadline): it may still run there.
        if (!fanOutSignal().aborted) live.delete(sent);
        throw e;
      }
      if (!a.ok) {
        live.delete(sent);
        return a satisfies ShardFailure;
      }
      const opened: ShardSuccess = {
        ok: true,
        shard: a.shard,
        replica: a.replica,
        meta: [],
        rows: [],
        statistics: { elapsedMs: 0, rowsRead: 0, bytesRead: 0 },
      };
      streams.set(opened, { chunks: finishing(a.chunks, () => live.delete(sent)), sent });
      return opened;
    },
  };
  const streamOf = (r: ShardSuccess | undefined): { chunks: AsyncIterable<Uint8Array>; sent?: ShardRequest } =>
    (r && streams.get(r)) ?? { chunks: r?.raw !== undefined ? oneChunk(Buffer.from(r.raw, 'base64')) : none() };
  return { invoker, streamOf, unfinished: () => [...live] };
}

/** `chunks`, calling `done` once they were read to their end. */
async function* finishing(chunks: AsyncIterable<Uint8Array>, done: () => void): AsyncGenerator<Uint8Array> {
  yield* chunks;
  done();
}

/**
 * Ask each shard for its raw answer as a stream (the requests carry `format`); with `onProgress`,
 * each attempt's readings of what its shard has read (requests asking `progress`).
 */
export function openShardStreams(
  input: FanOutInput,
  asks: readonly { shard: number; how: ShardAsk }[],
  onProgress?: (shard: number, attempt: ShardRequest, p: ShardProgress) => void,
): ShardStreams {
  let signal: AbortSignal | undefined;
  const opening = streamOpening(input.invoker, () => signal!, onProgress);
  const fan = openFanOut({ ...input, invoker: opening.invoker });
  signal = fan.signal;
  const shards = asks.map(async ({ shard, how }) => {
    let opened: { chunks: AsyncIterable<Uint8Array>; sent?: ShardRequest } = { chunks: none() };
    const outcome = await fan.ask(shard, how, (o) => {
      if (o.status === 'ok') opened = opening.streamOf(o.response);
    });
    return { shard, outcome, ...opened };
  });
  return {
    shards,
    signal: fan.signal,
    stopped: fan.stopped,
    stop: (reason) => fan.stop(reason),
    close: () => fan.close(),
    unfinished: opening.unfinished,
  };
}

/**
 * Drain each shard's stream into `onChunk` (in arrival order per shard) and judge it with the one
 * verdict (completeness.ts summarizeShards): a shard whose answer did not start, or whose stream
 * failed after it started, is missing ('timeout' when the deadline cut it, 'error' otherwise).
 */
export async function pipeShardStreams(
  streams: ShardStreams,
  total: number,
  onChunk: (shard: number, chunk: Uint8Array) => void | Promise<void>,
): Promise<ShardsSummary> {
  const deadlineFell = () => streams.signal.aborted && !streams.stopped.aborted;
  const outcomes: ShardOutcome[] = [];
  const missing: MissingShard[] = [];
  await Promise.all(
    streams.shards.map(async (p) => {
      const s = await p;
      let outcome = s.outcome;
      if (outcome.status === 'ok') {
        try {
          for await (const c of s.chunks) await onChunk(s.shard, c);
        } catch (e) {
          const why = e instanceof Error ? e.message : String(e);
          outcome = { ...outcome, status: deadlineFell() ? 'timeout' : 'error', message: `the shard's stream failed after it started: ${why}` };
        }
      }
      outcomes.push(outcome);
      if (outcome.status !== 'ok') missing.push({ shard: s.shard, reason: outcome.status, message: outcome.message ?? outcome.status });
    }),
  );
  missing.sort((a, b) => a.shard - b.shard);
  return summarizeShards(total, 0, outcomes, missing);
}
