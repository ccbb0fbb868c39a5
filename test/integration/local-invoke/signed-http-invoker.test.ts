// The coordinator's two query invokers against the project's local Lambda Invoke endpoint
// (local/invoke-server.ts, which answers as Lambda does), over real HTTP: the lean
// SigV4-signed one (createSignedHttpInvoker, the default) and the SDK one (createLambdaInvoker,
// CH_SCATTER_INVOKER=sdk). Every case runs through both and must come out the same: success,
// a thrown error (Unhandled + errorType), an unknown function (404), the concurrency cap (429),
// an abort mid-flight that leaves a sibling call alone, and a malformed answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInvokeServer, type InvokeServer } from '../../../local/invoke-server.js';
import { createLambdaInvoker } from '../../../shared/adapters/aws/lambda-invoker.js';
import { createSignedHttpInvoker } from '../../../shared/adapters/aws/signed-http-invoker.js';
import { InvokeError } from '../../../shared/core/scatter/invoker.js';
import type { ShardRequest, ShardSuccess } from '../../../shared/core/protocol/shard-wire.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const success = (p: ShardRequest): ShardSuccess => ({
  ok: true,
  shard: p.shard,
  replica: p.replica,
  meta: [{ name: 'c', type: 'UInt64' }],
  rows: [{ c: String(p.sql.length) }],
  statistics: { elapsedMs: 1, rowsRead: 1, bytesRead: 8 },
});

// Shard i is served by NAMES[i]; a full ARN reaches the same function as its name.
const NAMES = ['ok', 'arn:aws:lambda:eu-west-1:123456789012:function:ok', 'throws', 'missing', 'capped', 'slow', 'garbage', 'admin'];
const SHARD = Object.fromEntries(NAMES.map((n, i) => [n, i])) as Record<string, number>;
let server: InvokeServer;
let slowStarted = 0;

beforeAll(async () => {
  server = await startInvokeServer({
    functions: {
      ok: async (p) => success(p as ShardRequest),
      throws: async () => {
        throw new RangeError('shard fell over');
      },
      capped: async (p) => {
        await sleep(300);
        return success(p as ShardRequest);
      },
      slow: async (p) => {
        slowStarted++;
        await sleep(800);
        return success(p as ShardRequest);
      },
      garbage: async () => ({ rows: 'definitely not a shard response' }),
      admin: async (p) => ({ echoed: p }),
    },
    concurrency: { capped: 1 },
  });
});
afterAll(async () => {
  await server?.close();
});

const req = (shard: number): ShardRequest => ({
  type: 'query',
  queryId: `q-${shard}`,
  shard,
  replica: 0,
  sql: 'SELECT count() AS c FROM t',
  deadline: Date.now() + 10_000,
  settings: {},
  external: [],
  attempt: 'primary',
});
const signal = () => AbortSignal.timeout(5_000);

async function failure(p: Promise<unknown>): Promise<InvokeError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(InvokeError);
  return e as InvokeError;
}

const INVOKERS = [
  { kind: 'http (signed node:http, the default)', make: () => createSignedHttpInvoker(NAMES.length, { endpoint: server.url, functionNames: NAMES }) },
  { kind: 'sdk (@aws-sdk/client-lambda)', make: () => createLambdaInvoker(NAMES.length, { endpoint: server.url, functionNames: NAMES }) },
];

describe.each(INVOKERS)('$kind against the local Invoke endpoint', ({ make }) => {
  let inv: ReturnType<typeof make>;
  beforeAll(() => {
    inv = make();
  });
  afterAll(() => inv?.close());

  it('returns the validated ShardResponse, by name and by full ARN', async () => {
    expect(await inv.invoke(SHARD.ok!, req(0), signal())).toEqual(success(req(0)));
    expect(await inv.invoke(1, req(1), signal())).toMatchObject({ ok: true, shard: 1, rows: [{ c: String(req(1).sql.length) }] });
    expect(await inv.invokeAdmin!(SHARD.admin!, { type: 'exec', queryId: 'x', shard: 7, replica: 0, sql: 'SELECT 1', deadline: 1 }, signal())).toEqual({
      echoed: { type: 'exec', queryId: 'x', shard: 7, replica: 0, sql: 'SELECT 1', deadline: 1 },
    });
  });

  it('a thrown error is unhandled, with its errorType and message', async () => {
    const e = await failure(inv.invoke(SHARD.throws!, req(2), signal()));
    expect([e.kind, e.errorType, e.message]).toEqual(['unhandled', 'RangeError', 'shard function failed (RangeError): shard fell over']);
  });

  it('an unknown function (404) is unavailable, ResourceNotFoundException', async () => {
    const e = await failure(inv.invoke(SHARD.missing!, req(3), signal()));
    expect([e.kind, e.errorType]).toEqual(['unavailable', 'ResourceNotFoundException']);
    expect(e.message).toMatch(/^ResourceNotFoundException: Function not found: .*:function:missing$/);
  });

  it('the concurrency cap (429) is throttled, at once (no retries)', async () => {
    const t0 = Date.now();
    const [a, b] = await Promise.allSettled([inv.invoke(SHARD.capped!, req(4), signal()), sleep(50).then(() => inv.invoke(SHARD.capped!, req(4), signal()))]);
    expect(a.status).toBe('fulfilled');
    expect(b.status).toBe('rejected');
    const e = (b as PromiseRejectedResult).reason as InvokeError;
    expect([e.kind, e.errorType, e.message]).toEqual(['throttled', 'TooManyRequestsException', 'throttled: Rate Exceeded.']);
    expect(Date.now() - t0).toBeLessThan(1_500);
  });

  it('an abort mid-flight rejects that call at once; a sibling call to the same function is not aborted', async () => {
    const before = slowStarted;
    const a = new AbortController();
    const t0 = Date.now();
    const aborted = failure(inv.invoke(SHARD.slow!, req(5), a.signal)).then((e) => ({ e, ms: Date.now() - t0 }));
    const sibling = inv.invoke(SHARD.slow!, req(5), signal()).then((r) => ({ r, ms: Date.now() - t0 }));
    while (slowStarted < before + 2) await sleep(10); // both invocations are running in the function
    a.abort();
    const { e, ms } = await aborted;
    expect(e.kind).toBe('aborted');
    expect(ms).toBeLessThan(700); // before the function's 800 ms answer
    const s = await sibling;
    expect(s.r).toMatchObject({ ok: true, shard: 5 });
    expect(s.ms).toBeGreaterThanOrEqual(750);
    // An already-aborted signal never reaches the endpoint.
    const n = slowStarted;
    expect((await failure(inv.invoke(SHARD.slow!, req(5), AbortSignal.abort()))).kind).toBe('aborted');
    await sleep(50);
    expect(slowStarted).toBe(n);
  });

  it('an answer that is not a ShardResponse is malformed', async () => {
    const e = await failure(inv.invoke(SHARD.garbage!, req(6), signal()));
    expect(e.kind).toBe('malformed');
    expect(e.message).toMatch(/^malformed shard response: /);
  });

  it('a shard without a function name is unavailable', async () => {
    expect((await failure(inv.invoke(NAMES.length, req(NAMES.length), signal()))).kind).toBe('unavailable');
  });
});
