// executeShardRequest with an exchange: an engine (chdb) and a real S3-compatible server (s3rver)
// behind the S3 adapter and zstd. Over the inline threshold an answer goes to the exchange and
// comes back as its header and a reference; a final stage reads references as inline rows; a store
// that is down, an object that is not what the reference says, an answer over the function's bound,
// are each a typed answer, never a short one; the coordinator's cleaner deletes only what the
// answering shard wrote for that query.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmbeddedAccess } from '../../../shared/adapters/clickhouse/embedded.js';
import type { ClickHouseAccess } from '../../../shared/core/clickhouse/port.js';
import { executeShardRequest } from '../../../shared/core/shard/execute.js';
import { exchangeKey, type ExchangeStore } from '../../../shared/core/shard/exchange.js';
import type { ShardFailure, ShardRequest, ShardSuccess } from '../../../shared/core/protocol/shard-wire.js';
import { createExchangeStore } from '../../../functions/shard/exchange-env.js';
import { startLocalExchange, type LocalExchange } from '../../../local/exchange-server.js';
import { createS3ExchangeCleaner } from '../../../shared/adapters/aws/s3-exchange.js';
import { releaseExchanged } from '../../../shared/core/scatter/shard-cancel.js';

let dir: string;
let ch: ClickHouseAccess;
let exchange: LocalExchange;
let store: ExchangeStore;
const now = () => Date.now();
const SQL = 'SELECT k, count() AS c, sum(v) AS s FROM ev GROUP BY k ORDER BY k';
const ROWS = 20_000;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shard-exchange-'));
  [ch, exchange] = await Promise.all([createEmbeddedAccess({ path: dir }), startLocalExchange()]);
  store = await createExchangeStore(exchange.env);
  await ch.exec('CREATE TABLE ev (k UInt32, v UInt64) ENGINE = MergeTree ORDER BY k');
  await ch.exec(`INSERT INTO ev SELECT toUInt32(number), number * 3 FROM numbers(${ROWS})`);
});
afterAll(async () => {
  await ch?.close();
  await exchange?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const req = (over: Partial<ShardRequest> = {}): ShardRequest => ({
  type: 'query',
  queryId: 'q-exchange',
  shard: 1,
  replica: 0,
  sql: SQL,
  deadline: Date.now() + 10_000,
  settings: {},
  external: [],
  attempt: 'primary',
  attemptId: '00112233aabbccdd',
  format: 'TabSeparatedWithNamesAndTypes',
  ...over,
});

async function inlineAnswer(): Promise<Buffer> {
  const r = (await executeShardRequest(req(), ch, { now, exchange: store })) as ShardSuccess;
  return Buffer.from(r.raw!, 'base64');
}

describe('a stage-one answer over the inline threshold', () => {
  it('goes to the exchange under its shard prefix, answered as the header and a checked reference', async () => {
    const whole = await inlineAnswer();
    const r = (await executeShardRequest(req({ exchange: { inlineBytes: 1024 } }), ch, { now, exchange: store })) as ShardSuccess;
    expect(r.ok).toBe(true);
    expect(Buffer.from(r.raw!, 'base64').toString()).toBe('k\tc\ts\nUInt32\tUInt64\tUInt64\n');
    const ref = r.exchanged!;
    expect(ref).toMatchObject({ shard: 1, rows: ROWS, key: exchangeKey('q-exchange', 1, '00112233aabbccdd', 'stage') });
    expect(ref.key).toMatch(/^q\/q-exchange-[0-9a-f]{12}\/s1\//);
    const body = await store.get(ref.key);
    expect(Buffer.concat([Buffer.from(r.raw!, 'base64'), body]).equals(whole)).toBe(true);
    expect(ref.bytes).toBe(body.length);
  });

  it('stays inline at or under the threshold, and without an exchange', async () => {
    const whole = await inlineAnswer();
    const at = (await executeShardRequest(req({ exchange: { inlineBytes: whole.length } }), ch, { now, exchange: store })) as ShardSuccess;
    expect(at.exchanged).toBeUndefined();
    const none = (await executeShardRequest(req({ exchange: { inlineBytes: 1024 } }), ch, { now })) as ShardSuccess;
    expect(none.exchanged).toBeUndefined();
    expect(Buffer.from(none.raw!, 'base64').equals(whole)).toBe(true);
  });

  it('over the function bound (maxExchangeBytes) is 413 TRANSFER_LIMIT naming it, nothing written', async () => {
    const r = (await executeShardRequest(req({ exchange: { inlineBytes: 1024 }, attemptId: 'aaaaaaaabbbbbbbb' }), ch, {
      now,
      exchange: store,
      maxExchangeBytes: 4096,
    })) as ShardFailure;
    expect(r.ok).toBe(false);
    expect(r.error.code).toBe('TRANSFER_LIMIT');
    expect(r.error.message).toMatch(/4096-byte exchange limit \(CH_SCATTER_MAX_EXCHANGE_BYTES/);
    await expect(store.get(exchangeKey('q-exchange', 1, 'aaaaaaaabbbbbbbb', 'stage'))).rejects.toThrow(/404|NoSuchKey/);
  });

  it('with the store down: unavailable (EXCHANGE_UNAVAILABLE), so another replica or a missing shard, never a short answer', async () => {
    const down = await createExchangeStore({ ...exchange.env, endpoint: 'http://127.0.0.1:9' });
    const r = (await executeShardRequest(req({ exchange: { inlineBytes: 1024 } }), ch, { now, exchange: down })) as ShardFailure;
    expect(r.ok).toBe(false);
    expect(r.error).toMatchObject({ kind: 'unavailable', code: 'EXCHANGE_UNAVAILABLE' });
  });
});

describe('a final stage over references', () => {
  const final = (objects: NonNullable<NonNullable<ShardRequest['tables']>[number]['objects']>, inline = '') =>
    req({
      sql: 'SELECT count() AS n, sum(c) AS c, sum(s) AS s FROM _stage0',
      format: 'TabSeparated',
      tables: [
        {
          name: '_stage0',
          columns: [
            { name: 'k', type: 'UInt32' },
            { name: 'c', type: 'UInt64' },
            { name: 's', type: 'UInt64' },
          ],
          tsvBase64: Buffer.from(inline).toString('base64'),
          objects,
        },
      ],
    });

  it('reads each object after the inline rows, as if they had been inline', async () => {
    const r = (await executeShardRequest(req({ exchange: { inlineBytes: 1024 }, attemptId: 'cccccccc00000001' }), ch, {
      now,
      exchange: store,
    })) as ShardSuccess;
    const out = (await executeShardRequest(final([r.exchanged!], '999999\t1\t5\n'), ch, { now, exchange: store })) as ShardSuccess;
    expect(out.ok).toBe(true);
    expect(Buffer.from(out.raw!, 'base64').toString()).toBe(`${ROWS + 1}\t${ROWS + 1}\t${(3 * ROWS * (ROWS - 1)) / 2 + 5}\n`);
  });

  it('an object whose checksum or length differs from its reference is EXCHANGE_LOST, naming the key', async () => {
    const r = (await executeShardRequest(req({ exchange: { inlineBytes: 1024 }, attemptId: 'cccccccc00000002' }), ch, {
      now,
      exchange: store,
    })) as ShardSuccess;
    const wrong = { ...r.exchanged!, sha256: '0'.repeat(64) };
    const out = (await executeShardRequest(final([wrong]), ch, { now, exchange: store })) as ShardFailure;
    expect(out.error).toMatchObject({ kind: 'unavailable', code: 'EXCHANGE_LOST' });
    expect(out.error.message).toContain(wrong.key);
    const short = (await executeShardRequest(final([{ ...r.exchanged!, bytes: r.exchanged!.bytes + 1 }]), ch, { now, exchange: store })) as ShardFailure;
    expect(short.error.code).toBe('EXCHANGE_LOST');
  });

  it('several objects, fetched at once, go in in order as each is ready: every row once; one lost after others went in is EXCHANGE_LOST, no table left', async () => {
    const written = await Promise.all(
      ['cccccccc00000004', 'cccccccc00000005', 'cccccccc00000006'].map(
        async (attemptId) =>
          ((await executeShardRequest(req({ exchange: { inlineBytes: 1024 }, attemptId }), ch, { now, exchange: store })) as ShardSuccess).exchanged!,
      ),
    );
    const out = (await executeShardRequest(final(written), ch, { now, exchange: store })) as ShardSuccess;
    expect(Buffer.from(out.raw!, 'base64').toString()).toBe(`${3 * ROWS}	${3 * ROWS}	${(9 * ROWS * (ROWS - 1)) / 2}
`);
    const missing = { ...written[0]!, key: exchangeKey('q-exchange', 1, 'cccccccc0000dead', 'stage') };
    const lost = (await executeShardRequest(final([written[1]!, written[2]!, missing]), ch, { now, exchange: store })) as ShardFailure;
    expect(lost.error).toMatchObject({ kind: 'unavailable', code: 'EXCHANGE_LOST' });
    expect(lost.error.message).toContain(missing.key);
    // The stage table went with the failed attempt: the next final stage sees its own rows only.
    const again = (await executeShardRequest(final([written[0]!]), ch, { now, exchange: store })) as ShardSuccess;
    expect(Buffer.from(again.raw!, 'base64').toString()).toBe(`${ROWS}	${ROWS}	${(3 * ROWS * (ROWS - 1)) / 2}
`);
  });

  it('more input than the function bound is TRANSFER_LIMIT before any object is read', async () => {
    const r = (await executeShardRequest(req({ exchange: { inlineBytes: 1024 }, attemptId: 'cccccccc00000003' }), ch, {
      now,
      exchange: store,
    })) as ShardSuccess;
    const out = (await executeShardRequest(final([r.exchanged!]), ch, { now, exchange: store, maxExchangeBytes: 1000 })) as ShardFailure;
    expect(out.error.code).toBe('TRANSFER_LIMIT');
    expect(out.error.message).toMatch(/final stage's input from the exchange/);
  });
});

describe("the coordinator's cleanup of a query's objects", () => {
  it("deletes each shard's own objects for that query with its own rights, and never a key outside the answering shard's prefix", async () => {
    const mine = (await executeShardRequest(req({ exchange: { inlineBytes: 1024 }, attemptId: 'dddddddd00000001' }), ch, {
      now,
      exchange: store,
    })) as ShardSuccess;
    const other = (await executeShardRequest(req({ shard: 2, exchange: { inlineBytes: 1024 }, attemptId: 'dddddddd00000002' }), ch, {
      now,
      exchange: store,
    })) as ShardSuccess;
    const cleaner = createS3ExchangeCleaner(exchange.env);
    // Shard 1's answer naming shard 2's object, and an object of another query: neither is deleted.
    releaseExchanged(cleaner, 'q-exchange', [
      { shard: 1, key: mine.exchanged!.key },
      { shard: 1, key: other.exchanged!.key },
    ]);
    releaseExchanged(cleaner, 'q-other', [{ shard: 2, key: other.exchanged!.key }]);
    await expect
      .poll(
        () =>
          store.get(mine.exchanged!.key).then(
            () => 'there',
            (e: Error) => e.message,
          ),
        { timeout: 5000 },
      )
      .toMatch(/404|NoSuchKey/);
    expect((await store.get(other.exchanged!.key)).length).toBe(other.exchanged!.bytes);
  });
});
