// The local API stops reading a body at its cap (the coordinator's 1 MiB for API routes): a larger
// declared length is a 413 before a byte is read, and a streamed body without a length is cut at
// the cap, answered 413 and the connection closed, instead of being read to 10 MiB first.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import { parseTopology } from '../../../shared/core/config/load.js';
import { startApiServer, type ApiServer } from '../../../local/api-server.js';

let api: ApiServer;
let calls = 0;
beforeAll(async () => {
  const topo = parseTopology({
    cluster: 'c',
    shards: [{ replicas: [{ url: 'http://a:8123' }] }],
    tables: { 'db.t_dist': { local: 'db.t', shardingKey: { column: 'k', type: 'UInt64', function: 'identity' } } },
  });
  api = await startApiServer({
    topo,
    invoker: { invoke: async () => Promise.reject(new Error('unused')) },
    handler: async () => {
      calls++;
      return { statusCode: 200, body: '{}' };
    },
  });
});
afterAll(async () => {
  await api?.close();
});

/** POST `total` bytes in 64 KiB chunks (chunked, no length); how many the client wrote before the answer, and the answer. */
function stream(total: number): Promise<{ status: number; body: string; written: number }> {
  return new Promise((resolve, reject) => {
    let written = 0;
    let answered = false;
    const req = http.request(`${api.url}/query`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      answered = true;
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, written }));
    });
    req.on('error', (e) => (answered ? undefined : reject(e)));
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const pump = () => {
      while (!answered && written < total) {
        written += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      if (!answered) req.end();
    };
    pump();
  });
}

describe('local API body cap', () => {
  it("the cap is the coordinator's 1 MiB: a body of exactly 1 MiB reaches the handler, one byte more is 413", async () => {
    const json = Buffer.from(JSON.stringify({ sql: 'SELECT 1' }));
    const sized = (n: number) => Buffer.concat([json, Buffer.alloc(n - json.length, 0x20)]);
    calls = 0;
    const at = await fetch(`${api.url}/query`, { method: 'POST', body: sized(1_048_576) });
    expect(at.status).toBe(200);
    expect(calls).toBe(1);
    const over = await fetch(`${api.url}/query`, { method: 'POST', body: sized(1_048_577) });
    expect(over.status).toBe(413);
    expect(calls).toBe(1);
  });

  it('a declared length over the cap: 413 at once, the handler never called', async () => {
    calls = 0;
    const r = await fetch(`${api.url}/query`, { method: 'POST', body: Buffer.alloc(2 * 1024 * 1024, 0x20) });
    expect(r.status).toBe(413);
    expect(((await r.json()) as { error: { code: string } }).error.code).toBe('TOO_LARGE');
    expect(calls).toBe(0);
  });

  it('a streamed 20 MiB body: 413 after about the cap, not after 10 MiB', async () => {
    calls = 0;
    const r = await stream(20 * 1024 * 1024);
    expect(r.status).toBe(413);
    expect(r.body).toContain('TOO_LARGE');
    // The client's socket buffers hold some more than the server read; far from 20 MiB either way.
    expect(r.written).toBeLessThan(8 * 1024 * 1024);
    expect(calls).toBe(0);
  });

  it('a body under the cap reaches the handler', async () => {
    calls = 0;
    const r = await fetch(`${api.url}/query`, { method: 'POST', body: JSON.stringify({ sql: 'SELECT 1' }) });
    expect(r.status).toBe(200);
    expect(calls).toBe(1);
  });
});
