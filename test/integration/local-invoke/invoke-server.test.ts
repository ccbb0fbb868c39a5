// The local Invoke endpoint through the REAL @aws-sdk/client-lambda (endpoint = local URL,
// dummy static credentials, maxAttempts 1), with plain functions and with shard host
// processes over embedded engines: success, Unhandled errors, 404, 429, a crashed runtime and
// its restart, fault delays, ARNs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { startInvokeServer, type InvokeServer } from '../../../local/invoke-server.js';
import { ShardHost, startShardHosts, type ShardHosts } from '../../../local/shard-host.js';
import type { ShardFailure, ShardRequest, ShardSuccess } from '../../../shared/core/protocol/shard-wire.js';

let dir: string;
let hosts: ShardHosts;
let server: InvokeServer;
let plain: InvokeServer;
let lambda: LambdaClient;
let lambdaPlain: LambdaClient;

const client = (url: string) =>
  new LambdaClient({ endpoint: url, region: 'eu-west-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, maxAttempts: 1 });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'h5-invoke-'));
  hosts = await startShardHosts(
    {
      shards: [
        { weight: 1, internalReplication: false, replicas: [{ embedded: 's0' }] },
        {
          weight: 1,
          internalReplication: false,
          replicas: [
            { embedded: 's1r0', fault: { error: 'boom' } },
            { embedded: 's1r1', fault: { delayMs: 400 } },
          ],
        },
        { weight: 1, internalReplication: false, replicas: [{ embedded: 's2', fault: { crash: true } }] },
      ],
    },
    { baseDir: dir },
  );
  server = await startInvokeServer({ functions: hosts.functions });
  plain = await startInvokeServer({
    functions: {
      echo: async (p) => ({ echoed: p }),
      slow: async () => {
        await sleep(300);
        return 'done';
      },
      throws: async () => {
        throw new TypeError('bad input');
      },
      huge: async () => 'x'.repeat(7 * 1024 * 1024),
    },
    concurrency: { slow: 1 },
  });
  lambda = client(server.url);
  lambdaPlain = client(plain.url);
});

afterAll(async () => {
  lambda?.destroy();
  lambdaPlain?.destroy();
  await server?.close();
  await plain?.close();
  await hosts?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const invoke = async (c: LambdaClient, name: string, payload: unknown) => {
  const r = await c.send(new InvokeCommand({ FunctionName: name, Payload: Buffer.from(JSON.stringify(payload)) }));
  return { status: r.StatusCode, functionError: r.FunctionError, body: JSON.parse(Buffer.from(r.Payload ?? []).toString('utf8') || 'null') as unknown };
};

const q = (shard: number, replica: number, over: Partial<ShardRequest> = {}): ShardRequest => ({
  type: 'query',
  queryId: `t-${shard}-${replica}`,
  shard,
  replica,
  sql: 'SELECT count() AS c, sum(k) AS s FROM t',
  deadline: Date.now() + 10_000,
  settings: {},
  external: [],
  attempt: 'primary',
  ...over,
});

describe('local Invoke endpoint (plain functions)', () => {
  it('returns the function result, also when named by a URL-encoded ARN', async () => {
    expect(await invoke(lambdaPlain, 'echo', { a: 1 })).toEqual({ status: 200, functionError: undefined, body: { echoed: { a: 1 } } });
    const arn = 'arn:aws:lambda:eu-west-1:123456789012:function:echo';
    expect((await invoke(lambdaPlain, arn, 'x')).body).toEqual({ echoed: 'x' });
  });

  it('reports a thrown error as Unhandled with errorMessage and errorType', async () => {
    const r = await invoke(lambdaPlain, 'throws', {});
    expect(r.status).toBe(200);
    expect(r.functionError).toBe('Unhandled');
    expect(r.body).toMatchObject({ errorMessage: 'bad input', errorType: 'TypeError' });
  });

  it('answers 404 ResourceNotFoundException for an unknown function', async () => {
    const e = (await invoke(lambdaPlain, 'nope', {}).catch((x: unknown) => x)) as { name: string; $metadata: { httpStatusCode: number } };
    expect(e.name).toBe('ResourceNotFoundException');
    expect(e.$metadata.httpStatusCode).toBe(404);
  });

  it('answers 429 TooManyRequestsException at the concurrency cap', async () => {
    const results = await Promise.allSettled([invoke(lambdaPlain, 'slow', {}), invoke(lambdaPlain, 'slow', {})]);
    const ok = results.filter((r) => r.status === 'fulfilled');
    const throttled = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(ok).toHaveLength(1);
    expect(throttled).toHaveLength(1);
    expect((throttled[0]!.reason as { name: string }).name).toBe('TooManyRequestsException');
    expect((throttled[0]!.reason as { $metadata: { httpStatusCode: number } }).$metadata.httpStatusCode).toBe(429);
    expect(plain.inFlight('slow')).toBe(0);
    expect((await invoke(lambdaPlain, 'slow', {})).body).toBe('done');
  });

  it('turns a result over 6 MB into Function.ResponseSizeTooLarge', async () => {
    const r = await invoke(lambdaPlain, 'huge', {});
    expect(r.functionError).toBe('Unhandled');
    expect(r.body).toMatchObject({ errorType: 'Function.ResponseSizeTooLarge' });
  });
});

describe('local Invoke endpoint (shard host processes)', () => {
  it('runs shard requests in host processes, one per replica', async () => {
    const pids = hosts.hosts.flat().map((h) => h.pid);
    expect(new Set(pids).size).toBe(4);
    expect(pids).not.toContain(process.pid);
    const exec = {
      type: 'exec',
      queryId: 'ddl',
      shard: 0,
      replica: 0,
      sql: 'CREATE TABLE t (k UInt64) ENGINE = MergeTree ORDER BY k',
      deadline: Date.now() + 10_000,
    };
    expect(((await invoke(lambda, 'ch-scatter-shard-0', exec)).body as ShardSuccess).ok).toBe(true);
    const ins = { type: 'insert', queryId: 'ins', shard: 0, replica: 0, table: 't', rows: [{ k: 1 }, { k: '2' }, { k: 39 }], deadline: Date.now() + 10_000 };
    expect(((await invoke(lambda, 'ch-scatter-shard-0', ins)).body as ShardSuccess).rows).toEqual([{ inserted: '3' }]);
    const r = await invoke(lambda, 'ch-scatter-shard-0', q(0, 0));
    expect(r.functionError).toBeUndefined();
    expect((r.body as ShardSuccess).rows).toEqual([{ c: '3', s: '42' }]);
  });

  it('routes to the replica named in the payload: error fault -> Unhandled, delay fault -> deadline', async () => {
    const r = await invoke(lambda, 'ch-scatter-shard-1', q(1, 0));
    expect(r.functionError).toBe('Unhandled');
    expect(r.body).toMatchObject({ errorMessage: 'boom', errorType: 'Error' });
    const t0 = Date.now();
    const r2 = await invoke(lambda, 'ch-scatter-shard-1', q(1, 1, { sql: 'SELECT 1 AS one', deadline: Date.now() + 150 }));
    expect(Date.now() - t0).toBeGreaterThanOrEqual(390);
    expect((r2.body as ShardFailure).error.kind).toBe('timeout');
    const r3 = await invoke(lambda, 'ch-scatter-shard-1', q(1, 1, { sql: 'SELECT 1 AS one' }));
    expect((r3.body as ShardSuccess).rows).toEqual([{ one: 1 }]);
  });

  it('answers a crashed runtime with Runtime.ExitError and restarts the host', async () => {
    const host = hosts.hosts[2]![0]!;
    const before = host.starts;
    const r = await invoke(lambda, 'ch-scatter-shard-2', q(2, 0, { sql: 'SELECT 1' }));
    expect(r.functionError).toBe('Unhandled');
    expect(r.body).toMatchObject({ errorType: 'Runtime.ExitError', errorMessage: expect.stringMatching(/Runtime exited with error: exit status 1/) });
    await expect.poll(() => host.starts, { timeout: 5000, interval: 20 }).toBe(before + 1);
  });

  it('serves again after a host process is killed (restart with its data)', async () => {
    const host = hosts.hosts[0]![0]!;
    if (!(host instanceof ShardHost)) throw new Error('shard 0 is served by a host process');
    const pid = host.pid;
    const inflight = invoke(lambda, 'ch-scatter-shard-0', q(0, 0, { sql: 'SELECT sleep(1) AS z' }));
    await expect.poll(() => host.inFlight, { timeout: 5000, interval: 10 }).toBe(1);
    host.kill();
    const r = await inflight;
    expect(r.body).toMatchObject({ errorType: 'Runtime.ExitError' });
    // The restart is a cold start (a new process opening the shard's data): slow on a loaded machine,
    // so this request's deadline is far, as the test is of the restart, not of its speed.
    const r2 = await invoke(lambda, 'ch-scatter-shard-0', q(0, 0, { deadline: Date.now() + 50_000 }));
    expect((r2.body as ShardSuccess).rows, JSON.stringify(r2.body).slice(0, 300)).toEqual([{ c: '3', s: '42' }]);
    expect(host.pid).not.toBe(pid);
  }, 60_000);

  it('refuses a request for another shard or replica with a typed failure', async () => {
    expect(((await invoke(lambda, 'ch-scatter-shard-0', q(1, 0))).body as ShardFailure).error.code).toBe('BAD_REQUEST');
    expect(((await invoke(lambda, 'ch-scatter-shard-0', q(0, 5))).body as ShardFailure).error.code).toBe('BAD_REQUEST');
  });
});
