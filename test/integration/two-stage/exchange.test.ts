// Stage-one answers of any size through the exchange, on real engines: three chdb shard engines
// behind the real shard function code, a real S3-compatible server (s3rver) as the exchange bucket,
// the real S3 adapter and zstd codec, the general path's runtime; one engine holding every row is
// the reference. Shapes a 6 MB invoke could not carry: a GROUP BY with 1M distinct keys, ClickBench's
// high-cardinality GROUP BY ... ORDER BY c DESC LIMIT, a 1M-row plain SELECT, one shard's answer
// over 6 MB; and an object cut or deleted before the final stage reads it (partial, or 504).
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTopology } from '../../../shared/core/config/load.js';
import type { Topology } from '../../../shared/core/config/schema.js';
import { ScatterError } from '../../../shared/core/errors.js';
import type { ExchangeCleaner, ExchangeStore } from '../../../shared/core/shard/exchange.js';
import { createS3ExchangeCleaner } from '../../../shared/adapters/aws/s3-exchange.js';
import { createShardHandler } from '../../../functions/shard/shard-function.js';
import { createExchangeStore } from '../../../functions/shard/exchange-env.js';
import { startLocalExchange, type LocalExchange } from '../../../local/exchange-server.js';
import { startEmbeddedCluster, type EmbeddedCluster } from '../../support/embedded-cluster.js';
import { JSON_SETTINGS } from './cases.js';
import { damageObject, exchangedOf, runGeneralOver, storedObjects, type GeneralRunOptions } from '../../support/exchange-harness.js';
import type { ShardRequest } from '../../../shared/core/protocol/shard-wire.js';

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
/** Rows of `t`: key k = n % 1M, so 1M distinct keys, each on two shards (n % 3 places a row). */
const T_ROWS = 2_000_000;
/** Rows of `hits`: WatchID repeats once for the first 100k ids, so c DESC has a top. */
const HITS_ROWS = 1_000_000;

let cluster: EmbeddedCluster;
let exchange: LocalExchange;
let store: ExchangeStore;
let cleaner: ExchangeCleaner;
let topo: Topology;
let fns: ReturnType<typeof createShardHandler>[];

const T_DDL = 'CREATE TABLE t_local (k UInt32, v UInt64, s String) ENGINE = MergeTree ORDER BY k';
const HITS_DDL = 'CREATE TABLE hits_local (WatchID UInt64, ClientIP UInt32, IsRefresh UInt8, ResolutionWidth UInt16) ENGINE = MergeTree ORDER BY WatchID';
const tRows = (where: string) =>
  `INSERT INTO t_local SELECT toUInt32(number % 1000000), number * 7, toString(number % 997) FROM numbers(${T_ROWS}) WHERE ${where}`;
const hitsRows = (where: string) =>
  `INSERT INTO hits_local SELECT intHash64(number % 900000), toUInt32(number % 5000), toUInt8(number % 2), toUInt16(number % 2000) FROM numbers(${HITS_ROWS}) WHERE ${where}`;

beforeAll(async () => {
  [cluster, exchange] = await Promise.all([startEmbeddedCluster({ shards: 3, withOracle: true }), startLocalExchange()]);
  store = await createExchangeStore(exchange.env);
  cleaner = createS3ExchangeCleaner(exchange.env);
  topo = parseTopology({
    cluster: 'c',
    shards: [0, 1, 2].map((i) => ({ replicas: [{ embedded: path.join(cluster.dir, `shard-${i}`) }] })),
    tables: {
      t: { local: 't_local', shardingKey: { column: 'k', type: 'UInt32', function: 'xxHash64' } },
      hits: { local: 'hits_local', shardingKey: { column: 'WatchID', type: 'UInt64', function: 'xxHash64' } },
    },
    query: { hedge: { enabled: false }, maxRowsToTransfer: 0, timeoutMs: 60_000 },
  });
  await cluster.execAll(T_DDL);
  await cluster.execAll(HITS_DDL);
  // Rows generated inside each engine; the split need not follow the sharding key (no query here prunes).
  await Promise.all(cluster.shards.map((s, i) => s.exec(tRows(`number % 3 = ${i}`))));
  await Promise.all(cluster.shards.map((s, i) => s.exec(hitsRows(`number % 3 = ${i}`))));
  await cluster.oracle!.exec(tRows('1'));
  await cluster.oracle!.exec(hitsRows('1'));
  fns = [0, 1, 2].map((shard) => createShardHandler({ shard, getAccess: async () => cluster.shards[shard]!, exchange: async () => store }));
}, 300_000);
afterAll(async () => {
  await Promise.all([cluster?.stop(), exchange?.stop()]);
});

const general = (sql: string, opts: GeneralRunOptions = {}) => runGeneralOver(fns, topo, sql, opts);

async function reference(sql: string): Promise<{ meta: unknown; data: unknown[] }> {
  const local = sql.replace(/\bFROM t\b/g, 'FROM t_local').replace(/\bFROM hits\b/g, 'FROM hits_local');
  const r = await cluster.oracle!.queryRaw(local, { format: 'JSON', settings: JSON_SETTINGS });
  const doc = JSON.parse(r.bytes.toString('utf8')) as { meta: unknown; data: unknown[] };
  return { meta: doc.meta, data: doc.data };
}

const storedNow = () => storedObjects(exchange.directory);

describe('stage-one answers through the exchange (chdb shards, s3rver) = one engine holding every row', () => {
  it('a GROUP BY over 1M distinct keys: every group merged, each shard answer over 6 MB went through the exchange', async () => {
    const sql = 'SELECT count() AS groups, sum(c) AS rows, sum(sv) AS total, max(c) AS most FROM (SELECT k, count() AS c, sum(v) AS sv FROM t GROUP BY k)';
    const { result, answers } = await general(sql);
    expect(result.partial).toBe(false);
    expect({ meta: result.meta, data: result.data }).toEqual(await reference(sql));
    expect(result.data![0]).toMatchObject({ groups: '1000000', rows: String(T_ROWS) });
    const refs = exchangedOf(answers);
    expect(refs.map((r) => r.shard).sort()).toEqual([0, 1, 2]);
    for (const r of refs) expect(r.bytes).toBeGreaterThan(6 * 1024 * 1024);
    expect(refs.reduce((n, r) => n + r.rows, 0)).toBe(T_ROWS); // every key on two shards: 2M stage-one rows
    expect(result.statistics.finalStage.exchangedBytes).toBe(refs.reduce((n, r) => n + r.bytes, 0));
    // The final-stage request carried the references, not the rows.
    expect(result.statistics.finalStage.requestBytes).toBeLessThan(64 * 1024);
  }, 180_000);

  it("ClickBench's GROUP BY WatchID, ClientIP ORDER BY c DESC LIMIT 10 (900k groups, no pruning possible)", async () => {
    const sql =
      'SELECT WatchID, ClientIP, count() AS c, sum(IsRefresh), avg(ResolutionWidth) FROM hits GROUP BY WatchID, ClientIP ORDER BY c DESC, WatchID, ClientIP LIMIT 10';
    const { result, answers } = await general(sql);
    expect(result.partial).toBe(false);
    expect({ meta: result.meta, data: result.data }).toEqual(await reference(sql));
    expect(result.data![0]).toMatchObject({ c: '2' });
    expect(exchangedOf(answers).length).toBe(3);
  }, 180_000);

  it('a 1M-row plain SELECT through the general path: every shard sends all its rows, the final stage picks the last', async () => {
    // LIMIT 5 OFFSET 1999995 is pushed to the shards as LIMIT 2000000: each sends its 666k rows.
    const sql = 'SELECT k, v, s FROM t ORDER BY v LIMIT 5 OFFSET 1999995';
    const { result, answers } = await general(sql);
    expect(result.partial).toBe(false);
    expect({ meta: result.meta, data: result.data }).toEqual(await reference(sql));
    expect(exchangedOf(answers).reduce((n, r) => n + r.rows, 0)).toBe(T_ROWS);
  }, 180_000);

  it("the objects are deleted when the query ends, by the coordinator's own cleaner: no shard function is invoked for it", async () => {
    const before = new Set(storedNow());
    const { answers, cancels } = await general('SELECT count() FROM (SELECT k, count() FROM t GROUP BY k)', { exchange: cleaner });
    const keys = exchangedOf(answers).map((r) => r.key);
    expect(keys.length).toBe(3);
    // The deletes are sent as the query ends and not waited for.
    await expect.poll(() => storedNow().filter((f) => !before.has(f)).length, { timeout: 10_000 }).toBe(0);
    expect(cancels).toEqual([]);
  }, 180_000);

  it('without a cleaner the objects stay for the bucket to expire', async () => {
    const before = new Set(storedNow());
    const { answers } = await general('SELECT count() FROM (SELECT k, count() FROM t GROUP BY k)');
    expect(exchangedOf(answers).length).toBe(3);
    expect(storedNow().filter((f) => !before.has(f)).length).toBe(3);
  }, 180_000);
});

describe('an exchange object the final stage cannot read whole: that shard is missing, never a short complete answer', () => {
  const sql = 'SELECT count() AS groups, sum(c) AS rows FROM (SELECT k, count() AS c FROM t GROUP BY k)';

  for (const fault of ['cut mid-way', 'deleted'] as const) {
    it(`${fault}: partial with the shard missing; 504 INCOMPLETE_RESULT with requireComplete`, async () => {
      let cutShard = -1;
      const beforeFinal = (final: ShardRequest) => {
        const ref = final.tables![0]!.objects![1]!;
        cutShard = ref.shard;
        damageObject(exchange.directory, ref.key, fault);
      };
      const { result } = await general(sql, { requireComplete: false, beforeFinal });
      expect(result.partial).toBe(true);
      expect(result.missing.map((m) => m.shard)).toEqual([cutShard]);
      expect(result.missing[0]!.message).toMatch(/exchange/);
      // The other two shards' groups, exactly.
      const others = [0, 1, 2].filter((s) => s !== cutShard).map((s) => `number % 3 = ${s}`);
      const want = await cluster.oracle!.queryRaw(
        `SELECT count() AS groups, sum(c) AS rows FROM (SELECT toUInt32(number % 1000000) AS k, count() AS c FROM numbers(${T_ROWS}) WHERE ${others.join(' OR ')} GROUP BY k)`,
        { format: 'JSON', settings: JSON_SETTINGS },
      );
      expect(result.data).toEqual((JSON.parse(want.bytes.toString('utf8')) as { data: unknown[] }).data);

      const complete = general(sql, { requireComplete: true, beforeFinal });
      await expect(complete).rejects.toBeInstanceOf(ScatterError);
      await expect(complete).rejects.toMatchObject({ code: 'INCOMPLETE_RESULT' });
    }, 240_000);
  }
});
