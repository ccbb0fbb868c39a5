// The Function URL's sink over Lambda's response stream (functions/coordinator/stream-handler.ts):
// the prelude (status, headers) goes once, at the first byte, with the last progress header kept;
// backpressure is waited for; a stream that closes early (the client left) aborts `closed`.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { lambdaSink } from '../../../functions/coordinator/stream-handler.js';

function fakeStream(highWaterMark = 16) {
  const raw = new PassThrough({ highWaterMark });
  const preludes: { statusCode: number; headers: Record<string, string> }[] = [];
  const from = (s: PassThrough, prelude: { statusCode: number; headers: Record<string, string> }) => {
    preludes.push(prelude);
    return s;
  };
  return { raw, preludes, from };
}

describe('the Function URL sink', () => {
  it('one prelude at the first byte, with the last progress header; the body in order', async () => {
    const { raw, preludes, from } = fakeStream(1 << 20);
    const sink = lambdaSink(raw as never, from as never);
    sink.begin(200, { 'x-clickhouse-format': 'TSV' });
    sink.header('X-ClickHouse-Progress', '{"read_rows":"1"}');
    sink.header('X-ClickHouse-Progress', '{"read_rows":"2"}');
    expect(preludes).toEqual([]);
    await sink.write(Buffer.from('a\n'));
    await sink.write(Buffer.from('b\n'));
    sink.end();
    expect(preludes).toEqual([{ statusCode: 200, headers: { 'x-clickhouse-format': 'TSV', 'x-clickhouse-progress': '{"read_rows":"2"}' } }]);
    expect(raw.read().toString()).toBe('a\nb\n');
    expect(sink.closed.aborted).toBe(false);
  });

  it('waits for drain, and a stream closed early aborts closed', async () => {
    const { raw, from } = fakeStream(4);
    const sink = lambdaSink(raw as never, from as never);
    sink.begin(200, {});
    let done = false;
    const w = sink.write(Buffer.from('0123456789')).then(() => {
      done = true;
    });
    await new Promise((r) => setImmediate(r));
    expect(done).toBe(false);
    raw.read();
    await w;
    expect(done).toBe(true);
    raw.destroy();
    await expect.poll(() => sink.closed.aborted).toBe(true);
  });
});
