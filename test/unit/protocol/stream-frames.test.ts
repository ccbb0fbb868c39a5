// The framed shard stream (progress beside the answer's bytes): any frames, cut into chunks anywhere,
// read back as written; a stream cut inside a frame, or a frame of an unknown kind, is an error, never
// a shorter answer. The reader's side (shardStreamAnswer): progress before the first byte is reported
// and the answer starts at its first data frame; a response frame is the shard's typed failure.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dataFrame, FRAMED_CONTENT_TYPE, progressFrame, readFrames, responseFrame, type StreamFrame } from '../../../shared/core/protocol/stream-frames.js';
import { shardStreamAnswer } from '../../../shared/adapters/aws/invoke-result.js';

async function* chunksOf(bytes: Buffer, cuts: number[]): AsyncGenerator<Uint8Array> {
  let at = 0;
  for (const c of [...new Set(cuts.map((x) => x % (bytes.length + 1)))].sort((a, b) => a - b)) {
    yield bytes.subarray(at, c);
    at = c;
  }
  yield bytes.subarray(at);
}

async function all(frames: AsyncIterable<StreamFrame>): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const f of frames) out.push(f.kind === 'data' ? { kind: 'data', bytes: Buffer.from(f.bytes).toString('hex') } : f);
  return out;
}

const frameArb: fc.Arbitrary<Written> = fc.oneof(
  fc.uint8Array({ maxLength: 300 }).map((b) => ({ kind: 'data' as const, bytes: Buffer.from(b).toString('hex') })),
  fc.record({ rowsRead: fc.nat(), bytesRead: fc.nat() }).map((progress) => ({ kind: 'progress' as const, progress })),
  fc.record({ ok: fc.boolean(), n: fc.integer() }).map((json) => ({ kind: 'response' as const, json })),
);
type Written = { kind: 'data'; bytes: string } | { kind: 'progress'; progress: { rowsRead: number; bytesRead: number } } | { kind: 'response'; json: unknown };
const encode = (f: Written): Buffer =>
  f.kind === 'data' ? dataFrame(Buffer.from(f.bytes, 'hex')) : f.kind === 'progress' ? progressFrame(f.progress) : responseFrame(f.json);

describe('stream frames', () => {
  it('read back as written, however the stream is cut into chunks', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(frameArb, { maxLength: 12 }), fc.array(fc.nat(), { maxLength: 8 }), async (frames, cuts) => {
        const bytes = Buffer.concat(frames.map(encode));
        expect(await all(readFrames(chunksOf(bytes, cuts)))).toEqual(frames);
      }),
    );
  });

  it('a stream cut inside a frame, or an unknown kind, throws', async () => {
    const whole = Buffer.concat([progressFrame({ rowsRead: 1, bytesRead: 2 }), dataFrame(Buffer.from('abcdef'))]);
    for (let cut = 1; cut < whole.length; cut++) {
      if (cut === progressFrame({ rowsRead: 1, bytesRead: 2 }).length) continue; // a frame boundary: a shorter stream of whole frames
      await expect(all(readFrames(chunksOf(whole.subarray(0, cut), [])))).rejects.toThrow(/ended inside a frame/);
    }
    await expect(all(readFrames(chunksOf(Buffer.from([0x78, 0, 0, 0, 0]), [])))).rejects.toThrow(/unknown frame kind/);
  });
});

describe('shardStreamAnswer over a framed stream', () => {
  const framed = (...parts: Buffer[]) => ({ contentType: FRAMED_CONTENT_TYPE, chunks: chunksOf(Buffer.concat(parts), [3, 7, 11]) });

  it('progress before and after the first byte goes to onProgress; the bytes are the data frames', async () => {
    const seen: number[] = [];
    const a = await shardStreamAnswer(
      1,
      0,
      framed(
        progressFrame({ rowsRead: 10, bytesRead: 100 }),
        dataFrame(Buffer.from('a\n')),
        progressFrame({ rowsRead: 20, bytesRead: 200 }),
        dataFrame(Buffer.from('b\n')),
      ),
      (p) => seen.push(p.rowsRead),
    );
    expect(seen).toEqual([10]); // the answer started at its first byte: the rest comes as it is read
    if (!a.ok) throw new Error('expected an answer');
    const parts: string[] = [];
    for await (const c of a.chunks) parts.push(Buffer.from(c).toString());
    expect(parts.join('')).toBe('a\nb\n');
    expect(seen).toEqual([10, 20]);
  });

  it("a response frame before any byte is the shard's failure, as a JSON answer would be", async () => {
    const failure = { ok: false, shard: 1, replica: 0, error: { kind: 'error', code: 'QUERY_ERROR', message: 'Code: 47. DB::Exception: nope', chCode: 47 } };
    expect(await shardStreamAnswer(1, 0, framed(progressFrame({ rowsRead: 1, bytesRead: 1 }), responseFrame(failure)))).toEqual(failure);
  });

  it('a framed stream that ends with no answer is malformed', async () => {
    await expect(shardStreamAnswer(1, 0, framed(progressFrame({ rowsRead: 1, bytesRead: 1 })))).rejects.toMatchObject({ kind: 'malformed' });
  });
});
