// The CLI's reader of the streaming front door (bin/stream-read.ts) against the local door's own
// writer (local/stream-server.ts): progress headers reach it one by one while the header block is
// still open, before the first byte; the chunked body comes back byte for byte; an error answer keeps
// its status. And the export command's progress line.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStreamServer, type StreamServer } from '../../../local/stream-server.js';
import { streamRead } from '../../../bin/stream-read.js';
import { progressLine } from '../../../bin/commands/export.js';

let server: StreamServer;
/** Released by the test once it has seen the first progress header: the body cannot have started. */
let release: () => void = () => undefined;
const BODY = Buffer.from(Array.from({ length: 5000 }, (_, i) => `${i}\t\\n"x"\n`).join(''));

beforeAll(async () => {
  server = await startStreamServer({
    handler: async (input, sink) => {
      if (input.query.get('fail')) {
        sink.begin(404, { 'content-type': 'text/plain' });
        await sink.write(Buffer.from('Code: 60. DB::Exception: Unknown table. (UNKNOWN_TABLE)\n'));
        return sink.end();
      }
      sink.begin(200, { 'x-clickhouse-format': 'TabSeparated' });
      sink.header('X-ClickHouse-Progress', JSON.stringify({ read_rows: '10', read_bytes: '100' }));
      await new Promise<void>((r) => {
        release = r;
      });
      sink.header('X-ClickHouse-Progress', JSON.stringify({ read_rows: '20', read_bytes: '200' }));
      for (let at = 0; at < BODY.length; at += 777) await sink.write(BODY.subarray(at, at + 777));
      sink.end();
    },
  });
});
afterAll(async () => {
  await server?.close();
});

describe('reading the streaming door', () => {
  it('sees each progress header before the body, then the body byte for byte', async () => {
    const events: string[] = [];
    const got: Buffer[] = [];
    const status = await streamRead(`${server.url}/`, 'SELECT 1', {
      onProgress: (p) => {
        events.push(`progress ${p.read_rows}`);
        // The first header arrived while the server still holds the rest: it was read as it came.
        if (p.read_rows === '10') release();
      },
      onHead: (s, h) => events.push(`head ${s} ${h['x-clickhouse-format']}`),
      onBody: (c) => {
        if (got.length === 0) events.push('body');
        got.push(c);
      },
    });
    expect(status).toBe(200);
    expect(events).toEqual(['progress 10', 'progress 20', 'head 200 TabSeparated', 'body']);
    expect(Buffer.concat(got).equals(BODY)).toBe(true);
  });

  it('an error answer keeps its status and text', async () => {
    const got: Buffer[] = [];
    const status = await streamRead(`${server.url}/?fail=1`, 'SELECT 1', { onBody: (c) => got.push(c) });
    expect(status).toBe(404);
    expect(Buffer.concat(got).toString()).toMatch(/^Code: 60\./);
  });

  it('the progress line', () => {
    expect(progressLine({ readRows: 1234567, readBytes: 3 * 2 ** 20, received: 2 ** 19, elapsedMs: 1500 })).toBe(
      '\r1,234,567 rows, 3.0 MB read by the shards; 0.5 MB received; 1.5 s',
    );
  });
});
