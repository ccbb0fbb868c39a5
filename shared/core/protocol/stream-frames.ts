// A streamed shard answer that carries the engine's progress beside its bytes (a request with
// `stream` and `progress`): the function's stream is a sequence of frames, one kind byte, a 4-byte
// big-endian length, the payload. `d`: a piece of the answer's bytes; `p`: what the shard's query has
// read so far (JSON); `r`: the ShardResponse (JSON), when no byte of the answer was written (a
// failure before the first byte, or an empty answer). The reader waits for the first `d` or the `r`
// before it calls the answer started, so retries and hedges keep their meaning up to the first byte.
import type { QueryStatistics } from '../clickhouse/port.js';

export const FRAMED_CONTENT_TYPE = 'application/vnd.ch-scatter.frames';

/** What a shard's query has read so far. */
export type ShardProgress = Pick<QueryStatistics, 'rowsRead' | 'bytesRead'>;

export type StreamFrame = { kind: 'data'; bytes: Uint8Array } | { kind: 'progress'; progress: ShardProgress } | { kind: 'response'; json: unknown };

const KINDS = { data: 0x64, progress: 0x70, response: 0x72 } as const;
const HEAD = 5;
/** Larger than any piece a shard writes (an engine block): a length past it is a broken stream. */
const MAX_FRAME = 256 * 1024 * 1024;

function frame(kind: keyof typeof KINDS, payload: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(HEAD + payload.byteLength);
  out[0] = KINDS[kind];
  out.writeUInt32BE(payload.byteLength, 1);
  out.set(payload, HEAD);
  return out;
}

export const dataFrame = (bytes: Uint8Array): Buffer => frame('data', bytes);
export const progressFrame = (p: ShardProgress): Buffer =>
  frame('progress', Buffer.from(JSON.stringify({ rowsRead: p.rowsRead, bytesRead: p.bytesRead }), 'utf8'));
export const responseFrame = (response: unknown): Buffer => frame('response', Buffer.from(JSON.stringify(response), 'utf8'));

export class StreamFrameError extends Error {
  override name = 'StreamFrameError';
}

function progressOf(payload: Buffer): ShardProgress {
  const o = JSON.parse(payload.toString('utf8')) as Partial<ShardProgress>;
  const rowsRead = Number(o.rowsRead);
  const bytesRead = Number(o.bytesRead);
  if (!Number.isFinite(rowsRead) || !Number.isFinite(bytesRead)) throw new StreamFrameError('a progress frame without rowsRead and bytesRead');
  return { rowsRead, bytesRead };
}

/** The frames of a framed stream as they complete; a stream that ends inside a frame throws. */
export async function* readFrames(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<StreamFrame> {
  let held: Buffer = Buffer.alloc(0);
  for await (const c of chunks) {
    held = held.length === 0 ? Buffer.from(c.buffer, c.byteOffset, c.byteLength) : Buffer.concat([held, c]);
    while (held.length >= HEAD) {
      const kind = held[0]!;
      const length = held.readUInt32BE(1);
      if (length > MAX_FRAME) throw new StreamFrameError(`a frame of ${length} bytes`);
      if (held.length < HEAD + length) break;
      const payload = held.subarray(HEAD, HEAD + length);
      held = held.subarray(HEAD + length);
      if (kind === KINDS.data) yield { kind: 'data', bytes: payload };
      else if (kind === KINDS.progress) yield { kind: 'progress', progress: progressOf(payload) };
      else if (kind === KINDS.response) yield { kind: 'response', json: JSON.parse(payload.toString('utf8')) };
      else throw new StreamFrameError(`an unknown frame kind ${kind}`);
    }
  }
  if (held.length > 0) throw new StreamFrameError(`the stream ended inside a frame (${held.length} bytes left)`);
}
