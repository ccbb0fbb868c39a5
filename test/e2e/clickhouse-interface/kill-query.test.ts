// KILL QUERY on the local stack: a distributed query waits on a slow shard (5 s), a KILL from the
// same user names its query id, and the query answers 394 at once instead of after the slow shard.
// (That another user's KILL stops nothing: test/unit/clickhouse-http/handle.test.ts.)
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTopology } from '../../../shared/core/config/load.js';
import { startLocalStack, type LocalStack } from '../../../local/stack.js';
import { tempDir } from '../support.js';
import { raw } from './support.js';

const SLOW_MS = 5000;
let dir: string;
let stack: LocalStack;

beforeAll(async () => {
  dir = tempDir('kill');
  const topo = parseTopology({
    cluster: 'kill',
    shards: [
      { replicas: [{ embedded: path.join(dir, 's0') }] },
      { replicas: [{ embedded: path.join(dir, 's1'), fault: { delayMs: SLOW_MS, delayProbability: 1 } }] },
    ],
    tables: { 'db.t_dist': { local: 'db.t', shardingKey: { column: 'k', type: 'String', function: 'xxHash64' } } },
    query: { timeoutMs: 20_000, hedge: { enabled: false, afterQuantile: 0.95, maxExtraPercent: 5 } },
  });
  stack = await startLocalStack({ topo, logLevel: 'SILENT', lambdaTimeoutMs: 60_000 });
  for (const sql of ['CREATE DATABASE IF NOT EXISTS db', 'CREATE TABLE db.t (k String) ENGINE = MergeTree ORDER BY k']) {
    const r = await fetch(`${stack.url}/admin/exec`, { method: 'POST', body: JSON.stringify({ sql }) });
    expect(r.status, await r.clone().text()).toBe(200);
  }
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const kill = () => raw(stack.url, { headers: { 'x-clickhouse-user': 'cube' }, body: "KILL QUERY WHERE query_id = 'slow-1' FORMAT JSONEachRow" });

describe('KILL QUERY', () => {
  it("stops the same user's running query at once", async () => {
    const t0 = Date.now();
    const slow = raw(stack.url, { query: { query_id: 'slow-1' }, headers: { 'x-clickhouse-user': 'cube' }, body: 'SELECT count() FROM db.t_dist' });
    // Poll until the KILL finds the query (it is registered once the request is read).
    let found = '';
    while (!found && Date.now() - t0 < SLOW_MS) found = (await kill()).body.toString();
    expect(JSON.parse(found)).toEqual({ kill_status: 'waiting', query_id: 'slow-1', user: 'cube', query: '' });
    const r = await slow;
    expect(r.headers.get('x-clickhouse-exception-code')).toBe('394');
    expect(Date.now() - t0).toBeLessThan(SLOW_MS);
  });
});
