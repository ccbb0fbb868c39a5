// executeShardRequest with a `format`: the engine's bytes in base64, stage tables read by the
// query, the response-size limit on the base64 text, and format names checked by the schema.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createEmbeddedAccess } from '../../../shared/adapters/clickhouse/embedded.js';
import type { ClickHouseAccess } from '../../../shared/core/clickhouse/port.js';
import { executeShardRequest } from '../../../shared/core/shard/execute.js';
import type { ShardFailure, ShardRequest, ShardSuccess } from '../../../shared/core/protocol/shard-wire.js';

let dir: string;
let ch: ClickHouseAccess;
const now = () => Date.now();

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shard-exec-raw-'));
  ch = await createEmbeddedAccess({ path: dir });
  await ch.exec('CREATE TABLE ev (sensor String, v UInt64) ENGINE = MergeTree ORDER BY sensor');
  await ch.exec("INSERT INTO ev SELECT concat('s-', toString(number % 5)), number FROM numbers(1000)");
});
afterAll(async () => {
  await ch?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const req = (over: Partial<ShardRequest> = {}): ShardRequest => ({
  type: 'query',
  queryId: 'q-raw',
  shard: 0,
  replica: 0,
  sql: 'SELECT sensor, uniqState(v) AS u FROM ev GROUP BY sensor ORDER BY sensor',
  deadline: Date.now() + 5000,
  settings: {},
  external: [],
  attempt: 'primary',
  ...over,
});

describe('executeShardRequest with a format', () => {
  it('answers the engine bytes in base64, with empty meta and rows', async () => {
    const r = (await executeShardRequest(req({ format: 'TabSeparatedWithNamesAndTypes' }), ch, { now })) as ShardSuccess;
    expect(r.ok).toBe(true);
    expect([r.meta, r.rows]).toEqual([[], []]);
    const bytes = Buffer.from(r.raw!, 'base64');
    expect(bytes.subarray(0, bytes.indexOf(0x0a, bytes.indexOf(0x0a) + 1)).toString()).toBe('sensor\tu\nString\tAggregateFunction(uniq, UInt64)');
  });

  it('reads stage tables shipped with the request, under readonly=2', async () => {
    const tsv = Buffer.from('a\t1\nb\t2\na\t3\n');
    const r = (await executeShardRequest(
      req({
        sql: 'SELECT k, sum(x) AS s FROM _stage0 GROUP BY k ORDER BY k',
        format: 'TabSeparated',
        tables: [
          {
            name: '_stage0',
            columns: [
              { name: 'k', type: 'String' },
              { name: 'x', type: 'UInt32' },
            ],
            tsvBase64: tsv.toString('base64'),
          },
        ],
      }),
      ch,
      { now },
    )) as ShardSuccess;
    expect(Buffer.from(r.raw!, 'base64').toString()).toBe('a\t4\nb\t2\n');
  });

  it('refuses an answer over the response limit as TOO_LARGE', async () => {
    const r = (await executeShardRequest(req({ sql: 'SELECT v FROM ev', format: 'TabSeparated' }), ch, { now, maxResponseBytes: 100 })) as ShardFailure;
    expect(r.ok).toBe(false);
    expect(r.error.code).toBe('TOO_LARGE');
  });

  // ClickHouse's initiator cuts its answer at max_result_rows with break: a request that is the answer
  // (the final stage, both stages on one shard) may ask for it; a partial may not (it would pass for whole).
  it('takes result_overflow_mode = break for the answer only, cut as the engine cuts it', async () => {
    const settings = { max_result_rows: 10, result_overflow_mode: 'break', max_block_size: 10 };
    const sql = 'SELECT number FROM numbers(1000)';
    const partial = (await executeShardRequest(req({ sql, format: 'TabSeparated', settings }), ch, { now })) as ShardFailure;
    expect([partial.ok, partial.error.code, partial.error.message]).toEqual([false, 'BAD_REQUEST', expect.stringMatching(/result_overflow_mode = 'break'/)]);
    const answer = (await executeShardRequest(req({ sql, format: 'TabSeparated', settings, answer: true }), ch, { now })) as ShardSuccess;
    const lines = Buffer.from(answer.raw!, 'base64').toString().trim().split('\n');
    const engine = (await ch.queryRaw(sql, { format: 'TabSeparated', settings: { ...settings, readonly: 2 } })).bytes.toString().trim().split('\n');
    expect(lines).toEqual(engine);
    expect(lines.length).toBeLessThan(1000);
    const other = (await executeShardRequest(req({ sql, format: 'TabSeparated', settings: { read_overflow_mode_leaf: 'break' }, answer: true }), ch, {
      now,
    })) as ShardFailure;
    expect(other.error.code).toBe('BAD_REQUEST');
  });

  it('refuses a format name that is not an identifier as BAD_REQUEST', async () => {
    const r = (await executeShardRequest(req({ format: 'JSON FORMAT Native' }), ch, { now })) as ShardFailure;
    expect(r.error.code).toBe('BAD_REQUEST');
  });
});
