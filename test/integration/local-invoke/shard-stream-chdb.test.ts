// Streamed shard answers from shard host processes over embedded engines (chdb answers whole; the
// host hands the bytes on as one stream), through the local InvokeWithResponseStream endpoint and
// the lean invoker: an answer over 6 MB, a query error before the first byte, and a hop cut
// mid-stream (fault cutStreamAfterBytes) that fails as Runtime.ExitError, never a shorter answer.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInvokeServer, type InvokeServer } from '../../../local/invoke-server.js';
import { startShardHosts, type ShardHosts } from '../../../local/shard-host.js';
import { createSignedHttpInvoker } from '../../../shared/adapters/aws/signed-http-invoker.js';
import type { ShardRequest } from '../../../shared/core/protocol/shard-wire.js';
import { InvokeError, type ShardStreamAnswer } from '../../../shared/core/scatter/invoker.js';

let dir: string;
let hosts: ShardHosts;
let server: InvokeServer;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chs-stream-chdb-'));
  hosts = await startShardHosts(
    {
      shards: [
        { weight: 1, internalReplication: false, replicas: [{ embedded: 's0' }] },
        { weight: 1, internalReplication: false, replicas: [{ embedded: 's1', fault: { cutStreamAfterBytes: 1000 } }] },
      ],
    },
    { baseDir: dir },
  );
  server = await startInvokeServer({ functions: hosts.functions });
}, 120_000);

afterAll(async () => {
  await server?.close();
  await hosts?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const req = (shard: number, sql: string): ShardRequest => ({
  type: 'query',
  queryId: `q${shard}-${Date.now()}`,
  shard,
  replica: 0,
  sql,
  deadline: Date.now() + 30_000,
  settings: {},
  external: [],
  attempt: 'primary',
  format: 'TabSeparated',
});

async function bytesOf(a: ShardStreamAnswer): Promise<Buffer> {
  if (!a.ok) throw new Error(`shard failed: ${a.error.message}`);
  const parts: Buffer[] = [];
  for await (const c of a.chunks) parts.push(Buffer.from(c));
  return Buffer.concat(parts);
}

describe('streamed answers from embedded shard hosts', () => {
  it('an answer over 6 MB arrives whole; a query error is the shard failure; a cut hop fails', async () => {
    const inv = createSignedHttpInvoker(2, { endpoint: server.url });
    try {
      const sql = 'SELECT number, toString(number * 7919) AS s FROM system.numbers LIMIT 700000';
      const got = await bytesOf(await inv.invokeStream!(0, req(0, sql), AbortSignal.timeout(30_000)));
      expect(got.length).toBeGreaterThan(6 * 1024 * 1024);
      const lines = got.toString().split('\n');
      expect(lines.length).toBe(700_001);
      expect(lines[699_999]).toBe(`699999\t${699_999 * 7919}`);

      const refused = await inv.invokeStream!(0, req(0, 'SELECT no_such_column FROM system.one'), AbortSignal.timeout(10_000));
      expect(refused).toMatchObject({ ok: false, shard: 0, error: { chCode: 47 } });

      const cut = await inv.invokeStream!(1, req(1, sql), AbortSignal.timeout(30_000));
      const e = await bytesOf(cut).then(
        () => undefined,
        (x: unknown) => x,
      );
      expect(e).toBeInstanceOf(InvokeError);
      expect([(e as InvokeError).kind, (e as InvokeError).errorType]).toEqual(['unhandled', 'Runtime.ExitError']);
    } finally {
      inv.close();
    }
  });
});
