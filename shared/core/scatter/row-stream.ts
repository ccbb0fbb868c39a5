// A row query streamed from the shards to the client: each shard runs its rewritten SELECT in the
// client's format and its bytes are written on as they come (the formats that concatenate: the
// first shard writes the *WithNames header, the others the bare rows). Line formats are interleaved
// at row ends, every shard at once; the others go shard after shard, the next parts read ahead
// (bounded by backpressure), never gathered. No hedge or retry: a part already written cannot be
// asked again elsewhere. The client leaving, a shard's error or the deadline stop every shard still
// running, its ClickHouse query KILLed (shard-cancel.ts).
import { setMaxListeners } from 'node:events';
import { ScatterError } from '../errors.js';
import type { Topology } from '../config/schema.js';
import type { QueryPlan } from '../plan/types.js';
import type { ShardRequest } from '../protocol/shard-wire.js';
import { DeadlineExceeded, deadlineSignal } from './deadline.js';
import { shardCallFor } from './gather.js';
import type { ShardInvoker } from './invoker.js';
import { cancelLoser, nextAttemptId } from './shard-cancel.js';
import type { ReadProgress, ShardStreamer } from './shard-stream.js';

export interface RowStreamInput {
  topo: Topology;
  plan: QueryPlan;
  streamer: ShardStreamer;
  /** For the cancels that KILL what a shard still runs. */
  invoker: ShardInvoker;
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
  /** The shards' rows and bytes read so far, summed, each time one grows. */
  onRead?(total: ReadProgress): void;
}

interface OpenPart {
  request: ShardRequest;
  iterator: AsyncIterator<Uint8Array>;
  next: Promise<IteratorResult<Uint8Array>>;
  done: boolean;
}

export async function streamRows(input: RowStreamInput): Promise<ReadProgress & { bytes: number }> {
  const { plan, topo, now } = input;
  const queried = plan.shards.filter((s) => !s.skipped);
  if (queried.length === 0) throw new ScatterError('INTERNAL', 'a streamed row query with no shard to ask');
  const stop = new AbortController();
  // Every part's read and write waits on this one signal at once: by design, not a leak.
  setMaxListeners(0, stop.signal);
  const deadline = deadlineSignal(input.deadlineAt, now, input.signal);
  const onDeadline = () => stop.abort(deadline.signal.reason);
  deadline.signal.addEventListener('abort', onDeadline, { once: true });
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
  // Parts that arrive whole are asked one ahead only: reading every one ahead would hold them all.
  const ahead = input.streamer.incremental ? Math.max(1, topo.query.maxConcurrency) : 2;
  const parts: OpenPart[] = [];
  const open = (i: number) => {
    const sp = queried[i]!;
    const format = i === 0 ? input.formats.first : input.formats.rest;
    const ask = shardCallFor(plan, sp, topo, input.queryId, input.deadlineAt, { format });
    const base = ask.request(0, 'primary');
    const request: ShardRequest = { ...base, settings: { ...base.settings, ...input.formatSettings }, attemptId: nextAttemptId() };
    const iterator = input.streamer
      .open(sp.shard, request, stop.signal, (p) => {
        read.set(sp.shard, p);
        report();
      })
      [Symbol.asyncIterator]();
    const part: OpenPart = { request, iterator, next: iterator.next(), done: false };
    // Read ahead and maybe never awaited (an earlier part failed): its failure is reported there or dropped.
    part.next.catch(() => undefined);
    parts[i] = part;
  };
  let bytes = 0;
  const written = (n: number) => {
    bytes += n;
  };
  try {
    for (let i = 0; i < Math.min(ahead, queried.length); i++) open(i);
    const lines = input.formats.lineRows;
    if (lines && input.streamer.incremental && ahead >= queried.length) {
      await interleaved(parts, lines.headerLines, input.write, stop.signal, written);
      return { ...report(), bytes };
    }
    for (let i = 0; i < queried.length; i++) {
      const part = parts[i]!;
      for (;;) {
        const r = await abortable(part.next, stop.signal);
        if (r.done) break;
        bytes += r.value.byteLength;
        await abortable(input.write(r.value), stop.signal);
        part.next = part.iterator.next();
      }
      part.done = true;
      if (i + ahead < queried.length) open(i + ahead);
    }
    return { ...report(), bytes };
  } catch (e) {
    const why = stop.signal.aborted ? stop.signal.reason : e;
    stop.abort(why);
    for (const p of parts) if (p && !p.done) cancelLoser(input.invoker, p.request, now);
    if (why instanceof DeadlineExceeded)
      throw new ScatterError('TIMEOUT', `the query's deadline passed after ${bytes} bytes of the answer were sent`, {
        details: { clickhouse: { code: 159 } },
      });
    throw why;
  } finally {
    deadline.signal.removeEventListener('abort', onDeadline);
    deadline.dispose();
    for (const p of parts) if (p && !p.done) p.iterator.return?.().catch(() => undefined);
  }
}

/**
 * Every part read at once, each written up to its last complete row as it arrives (one write at a
 * time, so rows never mix), the first part's header lines before any other part's rows: the
 * shards stream in parallel, as a Distributed table reads them.
 */
async function interleaved(parts: OpenPart[], headerLines: number, write: (c: Uint8Array) => Promise<void>, signal: AbortSignal, written: (n: number) => void) {
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
    parts.map(async (part, i) => {
      let carry: Buffer = Buffer.alloc(0);
      if (i > 0) await abortable(header, signal);
      for (;;) {
        const r = await abortable(part.next, signal);
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
