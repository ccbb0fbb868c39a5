// The Lambda adapter through the REAL @aws-sdk/client-lambda against a tiny node:http server that
// answers the Invoke API the way Lambda does (as observed against the SDK): status codes, error
// headers, payloads.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InvokeCommand } from '@aws-sdk/client-lambda';
import { addUserAgentMiddleware } from '@aws-lambda-powertools/commons';
import { createLambdaClient, createLambdaInvoker, shardFunctionNames } from '../../../shared/adapters/aws/lambda-invoker.js';
import { InvokeError } from '../../../shared/core/scatter/invoker.js';
import type { ShardRequest } from '../../../shared/core/protocol/shard-wire.js';

let server: Server;
let url = '';
const seen: string[] = [];
const auths: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const m = /^\/2015-03-31\/functions\/([^/]+)\/invocations/.exec(req.url ?? '');
    const name = decodeURIComponent(m?.[1] ?? '');
    seen.push(name);
    auths.push(String(req.headers.authorization ?? ''));
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const p = JSON.parse(body) as ShardRequest;
      const reply = (status: number, payload: string, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(payload);
      };
      switch (name) {
        case 'ok':
          return reply(
            200,
            JSON.stringify({
              ok: true,
              shard: p.shard,
              replica: p.replica,
              meta: [{ name: 'c', type: 'UInt64' }],
              rows: [{ c: '1' }],
              statistics: { elapsedMs: 1, rowsRead: 1, bytesRead: 8 },
            }),
          );
        case 'throttled':
          return reply(429, JSON.stringify({ message: 'Rate Exceeded.', Type: 'User' }), { 'x-amzn-errortype': 'TooManyRequestsException' });
        case 'crash':
          return reply(200, JSON.stringify({ errorType: 'Runtime.ExitError', errorMessage: 'RequestId: x Error: Runtime exited with error: signal: killed' }), {
            'x-amz-function-error': 'Unhandled',
          });
        case 'malformed':
          return reply(200, JSON.stringify({ rows: 'not a response' }));
        case 'notjson':
          return reply(200, 'Internal Server Err');
        case 'slow':
          return setTimeout(() => reply(200, '{}'), 5_000).unref();
        default:
          return reply(404, JSON.stringify({ Type: 'User', message: `Function not found: ${name}` }), { 'x-amzn-errortype': 'ResourceNotFoundException' });
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const req = (shard: number): ShardRequest => ({
  type: 'query',
  queryId: 'q',
  shard,
  replica: 0,
  sql: 'SELECT 1',
  deadline: Date.now() + 1000,
  settings: {},
  external: [],
  attempt: 'primary',
});
const names = ['ok', 'throttled', 'crash', 'malformed', 'notjson', 'slow', 'missing'];

async function failure(p: Promise<unknown>): Promise<InvokeError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(InvokeError);
    return e as InvokeError;
  }
  throw new Error('expected a failure');
}

describe('lambda invoker', () => {
  it('maps every Lambda answer to a result or a typed failure', async () => {
    const inv = createLambdaInvoker(names.length, { endpoint: url, functionNames: names });
    const sig = () => AbortSignal.timeout(3000);
    const ok = await inv.invoke(0, req(0), sig());
    expect(ok).toMatchObject({ ok: true, rows: [{ c: '1' }] });
    const t0 = Date.now();
    expect((await failure(inv.invoke(1, req(1), sig()))).kind).toBe('throttled');
    expect(Date.now() - t0).toBeLessThan(500); // maxAttempts 1: no SDK backoff
    const crash = await failure(inv.invoke(2, req(2), sig()));
    expect([crash.kind, crash.errorType]).toEqual(['unhandled', 'Runtime.ExitError']);
    expect((await failure(inv.invoke(3, req(3), sig()))).kind).toBe('malformed');
    expect((await failure(inv.invoke(4, req(4), sig()))).kind).toBe('malformed');
    expect((await failure(inv.invoke(6, req(6), sig()))).kind).toBe('unavailable');
    inv.close();
  });

  it('aborts promptly at the signal', async () => {
    const inv = createLambdaInvoker(names.length, { endpoint: url, functionNames: names });
    const t0 = Date.now();
    const e = await failure(inv.invoke(5, req(5), AbortSignal.timeout(100)));
    expect(e.kind).toBe('aborted');
    expect(Date.now() - t0).toBeLessThan(600);
    inv.close();
  });

  it('keeps the SDK middleware cache in use and aborts only the call whose signal fired', async () => {
    const client = createLambdaClient({ endpoint: url });
    const inv = createLambdaInvoker(names.length, { client, functionNames: names });
    const a = new AbortController();
    const b = new AbortController();
    const t0 = Date.now();
    const slowA = failure(inv.invoke(5, req(5), a.signal));
    const slowB = inv.invoke(5, req(5), b.signal).then(
      () => 'answered',
      (e: InvokeError) => e.kind,
    );
    const ok = inv.invoke(0, req(0), AbortSignal.timeout(3000));
    setTimeout(() => a.abort(), 100);
    expect((await slowA).kind).toBe('aborted');
    expect(Date.now() - t0).toBeLessThan(1500);
    expect(await ok).toMatchObject({ ok: true });
    // B's signal has not fired: it is still waiting on the slow function.
    expect(await Promise.race([slowB, new Promise((r) => setTimeout(() => r('pending'), 200))])).toBe('pending');
    b.abort();
    expect(await slowB).toBe('aborted');
    // The SDK resolved the InvokeCommand stack once and reused it (send() without options).
    const handlers = (client as unknown as { handlers?: WeakMap<object, unknown> }).handlers;
    expect(handlers?.has(InvokeCommand)).toBe(true);
    // Still SigV4-signed with the reused signer (the signature differs per request body).
    const last = auths.slice(-3);
    for (const a of last)
      expect(a).toMatch(/^AWS4-HMAC-SHA256 Credential=local\/\d{8}\/us-east-1\/lambda\/aws4_request, SignedHeaders=.*, Signature=[0-9a-f]{64}$/);
    inv.close();
  });

  it('still sends once Powertools positions its user-agent middleware after the SDK one (the tracer does in Lambda)', async () => {
    const client = createLambdaClient({ endpoint: url });
    addUserAgentMiddleware(client, 'tracer'); // what Tracer.captureAWSv3Client does to the client
    const inv = createLambdaInvoker(names.length, { client, functionNames: names });
    expect(await inv.invoke(0, req(0), AbortSignal.timeout(3000))).toMatchObject({ ok: true });
    inv.close();
  });

  it('function names come from CH_SCATTER_SHARD_FUNCTIONS or default to ch-scatter-shard-<i>', () => {
    expect(shardFunctionNames(2, {})).toEqual(['ch-scatter-shard-0', 'ch-scatter-shard-1']);
    expect(shardFunctionNames(2, { CH_SCATTER_SHARD_FUNCTIONS: '["a","arn:aws:lambda:us-east-1:1:function:b"]' })).toEqual([
      'a',
      'arn:aws:lambda:us-east-1:1:function:b',
    ]);
    expect(() => shardFunctionNames(3, { CH_SCATTER_SHARD_FUNCTIONS: '["a"]' })).toThrow(/3 shards/);
  });
});
