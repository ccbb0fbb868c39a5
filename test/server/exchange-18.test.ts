// The exchange on Debian's clickhouse-server 18.16: three servers behind the real shard handler
// (configured from its environment, CH_SCATTER_EXCHANGE naming a real s3rver), the initiator keeping
// its own rows in its session while the other shards' answers, each over 6 MB, go through the
// exchange; one table holding every row on the first server is the reference. An object cut before
// the final stage reads it makes its shard missing, with the kept rows still merged.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTopology } from '../../shared/core/config/load.js';
import type { Topology } from '../../shared/core/config/schema.js';
import { ScatterError } from '../../shared/core/errors.js';
import type { ShardRequest } from '../../shared/core/protocol/shard-wire.js';
import { createShardHandler, envShardDeps } from '../../functions/shard/handler.js';
import { startLocalExchange, type LocalExchange } from '../../local/exchange-server.js';
import { chHttp, useChServers } from '../support/ch-servers.js';
import { damageObject, exchangedOf, runGeneralOver, type GeneralRunOptions, type ShardFn } from '../support/exchange-harness.js';

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
process.env.POWERTOOLS_METRICS_DISABLED = 'true';

const servers = useChServers({ n: 3, portBase: 20800 });
const T_ROWS = 2_000_000;
const HITS_ROWS = 1_000_000;
let exchange: LocalExchange;
let topo: Topology;
let fns: ShardFn[];

const tRows = (table: string, where: string) =>
  `INSERT INTO default.${table} SELECT toUInt32(number % 1000000), number * 7 FROM numbers(${T_ROWS}) WHERE ${where}`;
const hitsRows = (table: string, where: string) =>
  `INSERT INTO default.${table} SELECT intHash64(number % 900000), toUInt32(number % 5000), toUInt8(number % 2), toUInt16(number % 2000) FROM numbers(${HITS_ROWS}) WHERE ${where}`;

beforeAll(async () => {
  exchange = await startLocalExchange();
  const urls = servers.current.urls;
  for (const [i, url] of urls.entries()) {
    for (const table of i === 0 ? ['xt', 'xt_all'] : ['xt']) {
      await chHttp(url, `CREATE TABLE default.${table} (k UInt32, v UInt64) ENGINE = MergeTree() ORDER BY k`);
    }
    for (const table of i === 0 ? ['xhits', 'xhits_all'] : ['xhits']) {
      await chHttp(
        url,
        `CREATE TABLE default.${table} (WatchID UInt64, ClientIP UInt32, IsRefresh UInt8, ResolutionWidth UInt16) ENGINE = MergeTree() ORDER BY WatchID`,
      );
    }
    await chHttp(url, tRows('xt', `number % 3 = ${i}`));
    await chHttp(url, hitsRows('xhits', `number % 3 = ${i}`));
  }
  await chHttp(urls[0]!, tRows('xt_all', '1'));
  await chHttp(urls[0]!, hitsRows('xhits_all', '1'));
  topo = parseTopology({
    cluster: 'c',
    shards: urls.map((url) => ({ replicas: [{ url }] })),
    tables: {
      t: { local: 'default.xt', shardingKey: { column: 'k', type: 'UInt32', function: 'identity' } },
      hits: { local: 'default.xhits', shardingKey: { column: 'WatchID', type: 'UInt64', function: 'identity' } },
    },
    query: { hedge: { enabled: false }, maxRowsToTransfer: 0, timeoutMs: 60_000 },
  });
  const env = (i: number, url: string) => ({
    CH_SCATTER_SHARD: JSON.stringify({ shard: i, replicas: [{ url }] }),
    CH_SCATTER_EXCHANGE: JSON.stringify(exchange.env),
  });
  fns = urls.map((url, i) => createShardHandler(envShardDeps(env(i, url))) as ShardFn);
}, 300_000);
afterAll(async () => {
  await exchange?.stop();
});

const general = (sql: string, opts: GeneralRunOptions = {}) => runGeneralOver(fns, topo, sql, opts);

async function reference(sql: string): Promise<unknown[]> {
  const local = sql.replace(/\bFROM t\b/g, 'FROM default.xt_all').replace(/\bFROM hits\b/g, 'FROM default.xhits_all');
  const text = await chHttp(servers.current.urls[0]!, `${local} FORMAT JSON`, {
    output_format_json_quote_64bit_integers: 1,
    output_format_json_quote_denormals: 1,
  });
  return (JSON.parse(text) as { data: unknown[] }).data;
}

describe('the exchange on 18.16, the initiator keeping its own rows', () => {
  it('a GROUP BY over 1M distinct keys: the keeper keeps its rows, the two others go through the exchange', async () => {
    const sql = 'SELECT count() AS groups, sum(c) AS rows, sum(sv) AS total, max(c) AS most FROM (SELECT k, count() AS c, sum(v) AS sv FROM t GROUP BY k)';
    const { result, answers } = await general(sql);
    expect(result.partial).toBe(false);
    expect(result.data).toEqual(await reference(sql));
    expect(result.data![0]).toMatchObject({ groups: '1000000', rows: String(T_ROWS) });
    const kept = result.statistics.finalStage.kept;
    expect(kept?.rows).toBeGreaterThan(600_000);
    const refs = exchangedOf(answers);
    expect(refs.map((r) => r.shard).sort()).toEqual([0, 1, 2].filter((s) => s !== kept!.shard));
    for (const r of refs) expect(r.bytes).toBeGreaterThan(6 * 1024 * 1024);
  }, 240_000);

  it("ClickBench's GROUP BY WatchID, ClientIP ORDER BY c DESC LIMIT 10", async () => {
    const sql =
      'SELECT WatchID, ClientIP, count() AS c, sum(IsRefresh), avg(ResolutionWidth) FROM hits GROUP BY WatchID, ClientIP ORDER BY c DESC, WatchID, ClientIP LIMIT 10';
    const { result } = await general(sql);
    expect(result.partial).toBe(false);
    expect(result.data).toEqual(await reference(sql));
  }, 240_000);

  it('a 1M-row plain SELECT through the general path', async () => {
    const sql = 'SELECT k, v FROM t ORDER BY v LIMIT 5 OFFSET 1999995';
    const { result } = await general(sql);
    expect(result.partial).toBe(false);
    expect(result.data).toEqual(await reference(sql));
  }, 240_000);

  it('an object cut before the final stage reads it: that shard missing, the kept rows still merged; 504 with requireComplete', async () => {
    const sql = 'SELECT count() AS groups, sum(c) AS rows FROM (SELECT k, count() AS c FROM t GROUP BY k)';
    let cut = -1;
    const beforeFinal = (final: ShardRequest) => {
      const ref = final.tables![0]!.objects![0]!;
      cut = ref.shard;
      damageObject(exchange.directory, ref.key, 'cut mid-way');
    };
    const { result } = await general(sql, { requireComplete: false, beforeFinal });
    expect(result.partial).toBe(true);
    expect(result.missing.map((m) => m.shard)).toEqual([cut]);
    const others = [0, 1, 2].filter((s) => s !== cut).map((s) => `number % 3 = ${s}`);
    const want = await reference(
      `SELECT count() AS groups, sum(c) AS rows FROM (SELECT toUInt32(number % 1000000) AS k, count() AS c FROM numbers(${T_ROWS}) WHERE ${others.join(' OR ')} GROUP BY k)`,
    );
    expect(result.data).toEqual(want);
    const complete = general(sql, { requireComplete: true, beforeFinal });
    await expect(complete).rejects.toBeInstanceOf(ScatterError);
    await expect(complete).rejects.toMatchObject({ code: 'INCOMPLETE_RESULT' });
  }, 240_000);
});
