// Lambda's InvokeWithResponseStream on the local Invoke endpoint (local/invoke-server.ts) with
// handlers run as the Node runtime runs them (awslambda.streamifyResponse, local/response-stream.mjs):
// the real @aws-sdk/client-lambda reads the event stream, and both invokers' streaming invoke
// (lean SigV4 node:http and SDK) come out the same: chunks as written, the completion's error as
// an InvokeError, a cut stream as a failure (never a shorter answer), abort mid-stream, the caps.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { InvokeCommand, InvokeWithResponseStreamCommand } from '@aws-sdk/client-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { awslambda, type ResponseStream } from '../../../functions/common/awslambda-global.mjs';
import { startInvokeServer, type InvokeServer } from '../../../local/invoke-server.js';
import { invokeHandler } from '../../../local/response-stream.mjs';
import { createLambdaClient, createLambdaInvoker } from '../../../shared/adapters/aws/lambda-invoker.js';
import { encodePayloadChunk } from '../../../shared/adapters/aws/response-stream-wire.js';
import { createSignedHttpInvoker } from '../../../shared/adapters/aws/signed-http-invoker.js';
import { InvokeError, type ShardInvoker, type ShardStreamAnswer } from '../../../shared/core/scatter/invoker.js';
import type { ShardFailure, ShardRequest } from '../../../shared/core/protocol/shard-wire.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(cond: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await sleep(5);
  }
}
/** `n` chunks of `size` bytes, chunk i filled with byte i. */
const pattern = (n: number, size: number) => Buffer.concat(Array.from({ length: n }, (_, i) => Buffer.alloc(size, i % 251)));

const write = (s: ResponseStream, b: Uint8Array) => new Promise<void>((r) => (s.write(b) ? r() : s.once('drain', r)));

// What the functions saw: whether a stream was closed under a writer (the caller went away).
const seen = { parkedClosed: 0, parkedStarted: 0 };

const streamer = awslambda.streamifyResponse(async (event: { n: number; size: number }, stream: ResponseStream) => {
  for (let i = 0; i < event.n; i++) {
    await write(stream, Buffer.alloc(event.size, i % 251));
    await new Promise((r) => setImmediate(r));
  }
  stream.end();
});
const failsMid = awslambda.streamifyResponse(async (_e: unknown, stream: ResponseStream) => {
  await write(stream, Buffer.from('first rows\n'));
  throw new RangeError('engine went away');
});
const httpStream = awslambda.streamifyResponse(async (_e: unknown, stream: ResponseStream) => {
  const s = awslambda.HttpResponseStream.from(stream, { statusCode: 201, headers: { 'x-a': 'b' } });
  s.end('body');
});
const parked = awslambda.streamifyResponse(async (_e: unknown, stream: ResponseStream) => {
  seen.parkedStarted++;
  await write(stream, Buffer.from('a'));
  await new Promise<void>((r) => stream.once('close', r));
  seen.parkedClosed++;
});
const shardFailure: ShardFailure = { ok: false, shard: 0, replica: 0, error: { kind: 'error', code: 'SHARD_ERROR', chCode: 62, message: 'Syntax error' } };
const refuses = awslambda.streamifyResponse(async (_e: unknown, stream: ResponseStream) => {
  stream.setContentType('application/json');
  stream.end(JSON.stringify(shardFailure));
});

const NAMES = ['streamer', 'fails-mid', 'http', 'parked', 'refuses', 'buffered', 'cut', 'capped'];
const SHARD = Object.fromEntries(NAMES.map((n, i) => [n, i])) as Record<string, number>;
let server: InvokeServer;
let small: InvokeServer;
let cutServer: http.Server;
let cutUrl: string;

beforeAll(async () => {
  server = await startInvokeServer({
    functions: {
      streamer: (p) => invokeHandler(streamer, p),
      'fails-mid': (p) => invokeHandler(failsMid, p),
      http: (p) => invokeHandler(httpStream, p),
      parked: (p) => invokeHandler(parked, p),
      refuses: (p) => invokeHandler(refuses, p),
      buffered: async (p) => ({ echoed: p }),
    },
  });
  // Lambda's caps, scaled down: a 256 KiB burst then 1 MiB/s, 1 MiB at most.
  small = await startInvokeServer({
    functions: { streamer: (p) => invokeHandler(streamer, p), capped: (p) => invokeHandler(streamer, p) },
    streamBurstBytes: 256 * 1024,
    streamBytesPerSecond: 1024 * 1024,
    maxStreamBytes: 1024 * 1024,
  });
  // A hop cut mid-stream: one PayloadChunk, then the connection drops (no InvokeComplete).
  cutServer = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'x-amz-executed-version': '$LATEST' });
      res.write(encodePayloadChunk(Buffer.from('partial')));
      setTimeout(() => res.destroy(), 20);
    });
  });
  await new Promise<void>((r) => cutServer.listen(0, '127.0.0.1', r));
  cutUrl = `http://127.0.0.1:${(cutServer.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await server?.close();
  await small?.close();
  await new Promise((r) => cutServer?.close(r));
});

describe('the real SDK against the local InvokeWithResponseStream', () => {
  const sdk = () => createLambdaClient({ endpoint: server.url });

  it('reads a streaming function as PayloadChunk events and an InvokeComplete without error', async () => {
    const client = sdk();
    const out = await client.send(
      new InvokeWithResponseStreamCommand({ FunctionName: 'streamer', Payload: Buffer.from(JSON.stringify({ n: 5, size: 1000 })) }),
    );
    expect([out.StatusCode, out.ExecutedVersion, out.ResponseStreamContentType]).toEqual([200, '$LATEST', 'application/octet-stream']);
    const chunks: Buffer[] = [];
    const completes: unknown[] = [];
    for await (const e of out.EventStream!) {
      if (e.PayloadChunk) chunks.push(Buffer.from(e.PayloadChunk.Payload!));
      if (e.InvokeComplete) completes.push(e.InvokeComplete);
    }
    expect(Buffer.concat(chunks).equals(pattern(5, 1000))).toBe(true);
    expect(chunks.length).toBeGreaterThan(1);
    expect(completes).toEqual([{}]);
    client.destroy();
  });

  it('a buffered function answers its JSON as one chunk; an error mid-stream is InvokeComplete.ErrorCode', async () => {
    const client = sdk();
    const read = async (name: string, payload: unknown) => {
      const out = await client.send(new InvokeWithResponseStreamCommand({ FunctionName: name, Payload: Buffer.from(JSON.stringify(payload)) }));
      const chunks: Buffer[] = [];
      let complete: unknown;
      for await (const e of out.EventStream!) {
        if (e.PayloadChunk) chunks.push(Buffer.from(e.PayloadChunk.Payload!));
        if (e.InvokeComplete) complete = e.InvokeComplete;
      }
      return { type: out.ResponseStreamContentType, chunks: chunks.map((c) => c.toString()), complete };
    };
    expect(await read('buffered', { a: 1 })).toEqual({ type: 'application/json', chunks: ['{"echoed":{"a":1}}'], complete: {} });
    expect(await read('fails-mid', {})).toEqual({
      type: 'application/octet-stream',
      chunks: ['first rows\n'],
      complete: { ErrorCode: 'RangeError', ErrorDetails: 'engine went away' },
    });
    // HttpResponseStream.from: its content type, then the JSON prelude and 8 null bytes before the body.
    const h = await read('http', {});
    expect(h.type).toBe('application/vnd.awslambda.http-integration-response');
    expect(h.chunks.join('')).toBe(`{"statusCode":201,"headers":{"x-a":"b"}}${'\0'.repeat(8)}body`);
    client.destroy();
  });

  it('Invoke (buffered) of a streaming function answers its bytes whole', async () => {
    const client = sdk();
    const out = await client.send(new InvokeCommand({ FunctionName: 'streamer', Payload: Buffer.from(JSON.stringify({ n: 3, size: 10 })) }));
    expect([out.StatusCode, out.FunctionError]).toEqual([200, undefined]);
    expect(Buffer.from(out.Payload!).equals(pattern(3, 10))).toBe(true);
    // Past the buffered 6 MB the stream is cut there and the answer is Lambda's size error.
    const big = await client.send(new InvokeCommand({ FunctionName: 'streamer', Payload: Buffer.from(JSON.stringify({ n: 7, size: 1024 * 1024 })) }));
    expect(big.FunctionError).toBe('Unhandled');
    expect(JSON.parse(Buffer.from(big.Payload!).toString())).toMatchObject({ errorType: 'Function.ResponseSizeTooLarge' });
    client.destroy();
  });
});

const req = (shard: number, extra: Record<string, unknown> = {}): ShardRequest => ({
  type: 'query',
  queryId: `q-${shard}`,
  shard,
  replica: 0,
  sql: 'SELECT 1',
  deadline: Date.now() + 10_000,
  settings: {},
  external: [],
  attempt: 'primary',
  format: 'TabSeparated',
  ...(extra as object),
});

async function bytesOf(a: ShardStreamAnswer): Promise<Buffer> {
  if (!a.ok) throw new Error(`shard failed: ${a.error.message}`);
  const parts: Buffer[] = [];
  for await (const c of a.chunks) parts.push(Buffer.from(c));
  return Buffer.concat(parts);
}
async function rejection(p: Promise<unknown>): Promise<InvokeError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(InvokeError);
  return e as InvokeError;
}

type Make = (endpoint: string) => ShardInvoker & { close(): void };
const INVOKERS: { kind: string; make: Make }[] = [
  { kind: 'http (signed node:http)', make: (endpoint) => createSignedHttpInvoker(NAMES.length, { endpoint, functionNames: NAMES }) },
  { kind: 'sdk (@aws-sdk/client-lambda)', make: (endpoint) => createLambdaInvoker(NAMES.length, { endpoint, functionNames: NAMES }) },
];

describe.each(INVOKERS)('$kind: invokeStream against the local endpoint', ({ make }) => {
  let inv: ShardInvoker & { close(): void };
  beforeAll(() => {
    inv = make(server.url);
  });
  afterAll(() => inv?.close());

  it('passes a raw stream through as its chunks, the request marked stream', async () => {
    const a = await inv.invokeStream!(SHARD.streamer!, req(0, { n: 40, size: 4096 }), AbortSignal.timeout(5_000));
    expect(a).toMatchObject({ ok: true, shard: 0, replica: 0 });
    expect((await bytesOf(a)).equals(pattern(40, 4096))).toBe(true);
  });

  it("a shard's typed failure before the first byte is its ShardFailure", async () => {
    expect(await inv.invokeStream!(SHARD.refuses!, req(4), AbortSignal.timeout(5_000))).toEqual(shardFailure);
  });

  it('an error after the first byte rejects the chunks as unhandled, with its errorType', async () => {
    const a = await inv.invokeStream!(SHARD['fails-mid']!, req(1), AbortSignal.timeout(5_000));
    const e = await rejection(bytesOf(a));
    expect([e.kind, e.errorType]).toEqual(['unhandled', 'RangeError']);
    expect(e.message).toContain('engine went away');
  });

  it('a stream cut on the way (no InvokeComplete) rejects, never ends short', async () => {
    const cut = make(cutUrl);
    try {
      const a = await cut.invokeStream!(SHARD.cut!, req(6), AbortSignal.timeout(5_000));
      const e = await rejection(bytesOf(a));
      expect(e.kind).toBe('unavailable');
    } finally {
      cut.close();
    }
  });

  it("an abort mid-stream rejects at once, and the function's stream is closed under it", async () => {
    const closed = seen.parkedClosed;
    const started = seen.parkedStarted;
    const ac = new AbortController();
    const a = await inv.invokeStream!(SHARD.parked!, req(3), ac.signal);
    expect(seen.parkedStarted).toBe(started + 1);
    const reading = bytesOf(a);
    await sleep(20);
    const t0 = Date.now();
    ac.abort();
    const e = await rejection(reading);
    expect(e.kind).toBe('aborted');
    expect(Date.now() - t0).toBeLessThan(200);
    await until(() => seen.parkedClosed === closed + 1);
  });
});

describe.each(INVOKERS)("$kind: Lambda's streaming caps on the local endpoint (scaled down)", ({ make }) => {
  let inv: ShardInvoker & { close(): void };
  beforeAll(() => {
    inv = make(small.url);
  });
  afterAll(() => inv?.close());

  it('past the burst the stream is held to the bandwidth', async () => {
    const t0 = Date.now();
    const a = await inv.invokeStream!(SHARD.streamer!, req(0, { n: 48, size: 16 * 1024 }), AbortSignal.timeout(10_000));
    expect((await bytesOf(a)).length).toBe(48 * 16 * 1024);
    // 768 KiB: 256 KiB at full speed, then 512 KiB at 1 MiB/s (a last chunk may still be in flight).
    expect(Date.now() - t0).toBeGreaterThanOrEqual(450);
  });

  it('a stream over the response cap ends with Function.ResponseSizeTooLarge', async () => {
    const a = await inv.invokeStream!(SHARD.capped!, req(7, { n: 80, size: 16 * 1024 }), AbortSignal.timeout(10_000));
    const e = await rejection(bytesOf(a));
    expect([e.kind, e.errorType]).toEqual(['unhandled', 'Function.ResponseSizeTooLarge']);
  });
});
