// The streaming port: one shard request whose answer (the engine's bytes in `payload.format`) is
// read as it is produced, never held whole. A streaming Lambda invoke plugs in here; until an
// invoker streams, `wholeAnswerStreamer` serves the same port over an ordinary invoke (each
// shard's part whole, at most a Lambda payload).
import { ScatterError } from '../errors.js';
import type { QueryStatistics } from '../clickhouse/port.js';
import type { ShardRequest } from '../protocol/shard-wire.js';
import type { ShardInvoker } from './invoker.js';

/** What a shard has read so far (its engine's progress), reported as it grows. */
export type ReadProgress = Pick<QueryStatistics, 'rowsRead' | 'bytesRead'>;

export interface ShardStreamer {
  /**
   * True when a part is read in pieces as the shard writes it (the coordinator holds one piece per
   * shard); false when each part arrives whole (then parts are asked one after another).
   */
  readonly incremental: boolean;
  /**
   * Run `payload` on its replica; yields the answer's bytes in order. Rejects (or throws from the
   * iteration) with the shard's error; `signal` abandons the read. `onRead` gets the shard's total
   * rows and bytes read each time they grow.
   */
  open(shard: number, payload: ShardRequest, signal: AbortSignal, onRead?: (p: ReadProgress) => void): AsyncIterable<Uint8Array>;
}

/** A shard's own failure as the error the interfaces render (its ClickHouse code when it has one). */
export function shardStreamError(shard: number, e: { message: string; chCode?: number | undefined }): ScatterError {
  return new ScatterError('QUERY_ERROR', `shard ${shard}: ${e.message}`, e.chCode !== undefined ? { details: { clickhouse: { code: e.chCode } } } : {});
}

/** The port over an invoker that answers whole: one invoke per part, its bytes yielded at once. */
export function wholeAnswerStreamer(invoker: ShardInvoker): ShardStreamer {
  return {
    incremental: false,
    async *open(shard, payload, signal, onRead) {
      const r = await invoker.invoke(shard, payload, signal);
      if (!r.ok) throw shardStreamError(shard, r.error);
      onRead?.({ rowsRead: r.statistics.rowsRead, bytesRead: r.statistics.bytesRead });
      if (r.raw) yield Buffer.from(r.raw, 'base64');
    },
  };
}
