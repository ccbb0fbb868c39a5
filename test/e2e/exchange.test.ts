// The local stack end to end with its exchange bucket: `startLocalStack` starts s3rver itself, its
// shard hosts (chdb, one process each) write stage-one answers over the inline threshold to it, and
// the final stage's host reads them, behind POST /query as in AWS. The answers equal one engine
// holding every row; the objects are gone once the query ended.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalStack, type LocalStack } from '../../local/stack.js';
import { spawnEngine, type EngineProcess } from '../support/engine-process/engine-process.js';
import { storedObjects } from '../support/exchange-harness.js';
import { e2eTopology, post, tempDir } from './support.js';

const ROWS = 300_000;
const DDL = 'CREATE TABLE default.hits (WatchID UInt64, ClientIP UInt32, IsRefresh UInt8, ResolutionWidth UInt16) ENGINE = MergeTree ORDER BY WatchID';
// Every shard gets the same rows (one statement through /admin/exec); the reference holds three copies.
const FILL = `INSERT INTO default.hits SELECT intHash64(number % 250000), toUInt32(number % 5000), toUInt8(number % 2), toUInt16(number % 2000) FROM numbers(${ROWS})`;
const JSON_SETTINGS = { output_format_json_quote_64bit_integers: 1, output_format_json_quote_denormals: 1 };

let stack: LocalStack;
let oracle: EngineProcess;

beforeAll(async () => {
  const dir = tempDir('exchange');
  const topo = e2eTopology(
    dir,
    [{ replicas: [{}] }, { replicas: [{}] }, { replicas: [{}] }],
    { maxRowsToTransfer: 0, timeoutMs: 25_000 },
    {
      tables: { hits: { local: 'default.hits', shardingKey: { column: 'WatchID', type: 'UInt64', function: 'identity' } } },
    },
  );
  [stack, oracle] = await Promise.all([startLocalStack({ topo, logLevel: 'SILENT' }), spawnEngine({ path: path.join(dir, 'oracle') })]);
  for (const sql of [DDL, FILL]) {
    const r = await fetch(`${stack.url}/admin/exec`, { method: 'POST', body: JSON.stringify({ sql }) });
    expect(r.status, await r.text()).toBe(200);
  }
  await oracle.exec(DDL);
  for (let i = 0; i < 3; i++) await oracle.exec(FILL);
}, 240_000);
afterAll(async () => {
  await Promise.all([stack?.stop(), oracle?.close()]);
});

async function reference(sql: string): Promise<unknown[]> {
  const r = await oracle.queryRaw(sql, { format: 'JSON', settings: JSON_SETTINGS });
  return (JSON.parse(r.bytes.toString('utf8')) as { data: unknown[] }).data;
}

describe('the local stack with its exchange (s3rver started by the stack)', () => {
  it("ClickBench's high-cardinality GROUP BY ... ORDER BY c DESC LIMIT 10 on the general path: each shard's states through the exchange", async () => {
    expect(stack.exchange).toBeDefined();
    const sql =
      'SELECT WatchID, ClientIP, count() AS c, sum(IsRefresh), avg(ResolutionWidth) FROM hits GROUP BY WatchID, ClientIP ORDER BY c DESC, WatchID, ClientIP LIMIT 10';
    const r = await post(`${stack.url}/query`, { sql, requireComplete: true, settings: { ch_scatter_path: 'general' } });
    expect(r.status, JSON.stringify(r.body).slice(0, 500)).toBe(200);
    expect(r.body.path).toBe('general');
    expect(r.body.partial).toBe(false);
    expect(r.body.data).toEqual(await reference(sql.replace('FROM hits', 'FROM default.hits')));
    const fin = r.body.statistics.finalStage;
    expect(fin.exchangedBytes).toBeGreaterThan(6 * 1024 * 1024);
    expect(fin.requestBytes).toBeLessThan(64 * 1024);
    await expect.poll(() => storedObjects(stack.exchange!.directory).length, { timeout: 10_000 }).toBe(0);
  }, 120_000);
});
