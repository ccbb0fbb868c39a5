// Shard hosts whose replicas are real clickhouse-server 18.16 instances (HTTP adapter), behind
// the local Invoke endpoint and the real Lambda SDK: a healthy replica answers, a replica whose
// server is down answers `unavailable`, and a slow query is KILLed at the deadline. HTTP replicas
// are served in the stack's own process (no IPC hop) with their faults applied there, except a
// replica with fault.crash (only a process can die mid-invoke) or when inProcessHttp is false.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { startInvokeServer, type InvokeServer } from '../../local/invoke-server.js';
import { startShardHosts, type ShardHosts } from '../../local/shard-host.js';
import type { ShardFailure, ShardRequest, ShardSuccess } from '../../shared/core/protocol/shard-wire.js';
import { chRows, useChServers } from '../support/ch-servers.js';

const servers = useChServers({ n: 1, portBase: 19230 });
let hosts: ShardHosts;
let server: InvokeServer;
let lambda: LambdaClient;

beforeAll(async () => {
  hosts = await startShardHosts({
    shards: [{ weight: 1, internalReplication: false, replicas: [{ url: servers.current.urls[0]! }, { url: 'http://127.0.0.1:19297' }] }],
  });
  server = await startInvokeServer({ functions: hosts.functions });
  lambda = new LambdaClient({ endpoint: server.url, region: 'eu-west-1', credentials: { accessKeyId: 'l', secretAccessKey: 'l' }, maxAttempts: 1 });
});
afterAll(async () => {
  lambda?.destroy();
  await server?.close();
  await hosts?.stop();
});

const invoke = async (payload: ShardRequest) => {
  const r = await lambda.send(new InvokeCommand({ FunctionName: 'ch-scatter-shard-0', Payload: Buffer.from(JSON.stringify(payload)) }));
  expect(r.FunctionError).toBeUndefined();
  return JSON.parse(Buffer.from(r.Payload!).toString('utf8')) as ShardSuccess | ShardFailure;
};
const q = (over: Partial<ShardRequest>): ShardRequest => ({
  type: 'query',
  queryId: 'hh',
  shard: 0,
  replica: 0,
  sql: 'SELECT count() AS c FROM numbers(1234)',
  deadline: Date.now() + 5000,
  settings: {},
  external: [],
  attempt: 'primary',
  ...over,
});

describe('shard hosts over clickhouse-server 18.16', () => {
  it('answers from the healthy replica', async () => {
    const r = (await invoke(q({}))) as ShardSuccess;
    expect(r.rows).toEqual([{ c: '1234' }]);
  });

  it('answers a batch over the Invoke hop: one invocation, each item its own answer', async () => {
    const r = await lambda.send(
      new InvokeCommand({
        FunctionName: 'ch-scatter-shard-0',
        Payload: Buffer.from(
          JSON.stringify({
            type: 'batch',
            queryId: 'hh-batch',
            shard: 0,
            replica: 0,
            deadline: Date.now() + 5000,
            attempt: 'primary',
            requests: [{ sql: 'SELECT count() AS c FROM numbers(12)' }, { sql: 'SELECT count() AS c FROM numbers(34)' }, { sql: 'SELECT nope' }],
          }),
        ),
      }),
    );
    expect(r.FunctionError).toBeUndefined();
    const b = JSON.parse(Buffer.from(r.Payload!).toString('utf8')) as ShardSuccess;
    expect(b.batch?.map((x) => (x.ok ? x.rows : x.error.chCode))).toEqual([[{ c: '12' }], [{ c: '34' }], 47]);
  });

  it('answers unavailable for a replica whose server is down', async () => {
    const r = (await invoke(q({ replica: 1 }))) as ShardFailure;
    expect([r.ok, r.replica, r.error.kind]).toEqual([false, 1, 'unavailable']);
  });

  it('KILLs a query that outlives the deadline, across the Invoke hop', async () => {
    const t0 = Date.now();
    const r = (await invoke(q({ queryId: 'hh-slow', sql: 'SELECT count() FROM system.numbers', deadline: t0 + 700 }))) as ShardFailure;
    expect(r.error.kind).toBe('timeout');
    expect(Date.now() - t0).toBeLessThan(1200);
    const left = async () =>
      Number((await chRows<{ c: string }>(servers.current.urls[0]!, "SELECT count() AS c FROM system.processes WHERE query_id LIKE 'hh-slow-%'"))[0]!.c);
    await expect.poll(left, { timeout: 500, interval: 25 }).toBe(0);
  });
});

describe('where HTTP replicas are served', () => {
  it('in this process, faults applied; a crash replica and inProcessHttp: false get host processes', async () => {
    const url = servers.current.urls[0]!;
    const local = await startShardHosts({
      shards: [
        { weight: 1, internalReplication: false, replicas: [{ url }, { url, fault: { error: 'injected boom' } }, { url, fault: { delayMs: 400 } }] },
        { weight: 1, internalReplication: false, replicas: [{ url, fault: { crash: true } }] },
      ],
    });
    const separate = await startShardHosts({ shards: [{ weight: 1, internalReplication: false, replicas: [{ url }] }] }, { inProcessHttp: false });
    try {
      const pids = local.hosts.map((rs) => rs.map((h) => h.pid));
      expect(pids[0]).toEqual([process.pid, process.pid, process.pid]);
      expect(pids[1]![0]).not.toBe(process.pid);
      expect(separate.hosts[0]![0]!.pid).not.toBe(process.pid);

      const fn = local.functions['ch-scatter-shard-0']!;
      expect(((await fn(q({}))) as ShardSuccess).rows).toEqual([{ c: '1234' }]);
      expect(((await separate.functions['ch-scatter-shard-0']!(q({}))) as ShardSuccess).rows).toEqual([{ c: '1234' }]);
      await expect(fn(q({ replica: 1 }))).rejects.toThrow('injected boom');
      const t0 = Date.now();
      const late = (await fn(q({ replica: 2, deadline: t0 + 150 }))) as ShardFailure;
      expect(Date.now() - t0).toBeGreaterThanOrEqual(390);
      expect([late.ok, late.error.kind]).toEqual([false, 'timeout']);
      await expect(local.functions['ch-scatter-shard-1']!(q({ shard: 1 }))).rejects.toMatchObject({ name: 'Runtime.ExitError' });
    } finally {
      await local.stop();
      await separate.stop();
    }
  });
});
