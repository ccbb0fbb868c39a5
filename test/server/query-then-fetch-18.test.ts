// Query-then-fetch on three Debian clickhouse-server 18.16 shards (the shard functions' real HTTP
// adapter): round one's SQL and the bounded round two (NOT/ifNull over the cursor's comparisons,
// Date, DateTime, String, nullable and float boundaries) as 18.16 reads them; equal to the one-round
// answer, and to one 18.16 table holding every row where the order is total.
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { Topology } from '../../shared/core/config/schema.js';
import { runExplain, runQuery, type QueryResponse } from '../../shared/core/scatter/run-query.js';
import { createTableColumns } from '../../shared/core/scatter/table-columns.js';
import type { QueryThenFetchInfo } from '../../shared/core/plan/query-then-fetch.js';
import { createShardHandler, envShardDeps } from '../../functions/shard/handler.js';
import type { ShardHandlerFn } from '../../functions/shard/shard-function.js';
import { DIST, JSON_SETTINGS, LOCAL, depsFor, events, load, topologyFor } from '../integration/tput/fixture.js';
import { chHttp, useChServers } from '../support/ch-servers.js';

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
process.env.POWERTOOLS_METRICS_DISABLED = 'true';

const servers = useChServers({ n: 3, portBase: 20700 });
const ALL = 'default.qtf_all';
const T = DIST;
let topo: Topology;
let fns: ShardHandlerFn[];
const at = (i: number) => ({ exec: (sql: string) => chHttp(servers.current.urls[i]!, sql) });

beforeAll(async () => {
  const ddl = `(id UInt64, user UInt32, name String, day Date, ts DateTime, flag UInt8, amount UInt32, delta Int32) ENGINE = MergeTree() ORDER BY id`;
  for (const url of servers.current.urls) await chHttp(url, `CREATE TABLE ${LOCAL} ${ddl}`);
  await chHttp(servers.current.urls[0]!, `CREATE TABLE ${ALL} ${ddl}`);
  topo = topologyFor(3, (i) => ({ url: servers.current.urls[i]! }));
  fns = servers.current.urls.map((url, i) => createShardHandler(envShardDeps({ CH_SCATTER_SHARD: JSON.stringify({ shard: i, replicas: [{ url }] }) })));
  await load([0, 1, 2].map(at), at(0), events(2000, 'uniform', 9), (_, i) => i % 3, ALL);
}, 120_000);

// 18.16 has no repeat(): a wide text from arrayMap.
const WIDE = `arrayStringConcat(arrayMap(x -> name, range(80))) AS body, id, name, day, ts, amount, delta`;
const QUERIES: [string, boolean][] = [
  [`SELECT ${WIDE} FROM ${T} ORDER BY amount DESC LIMIT 10`, false],
  [`SELECT ${WIDE} FROM ${T} ORDER BY day DESC, ts, id LIMIT 15 OFFSET 4`, true],
  [`SELECT ${WIDE} FROM ${T} ORDER BY name, id DESC LIMIT 9`, true],
  [`SELECT ${WIDE} FROM ${T} ORDER BY nullIf(amount, 99) DESC NULLS FIRST, id LIMIT 30`, true],
  [`SELECT ${WIDE} FROM ${T} WHERE flag = 0 ORDER BY if(amount = 2, nan, amount / 3), id LIMIT 40`, true],
];

describe('query-then-fetch on 18.16 shards', () => {
  it('equals one round, and one table holding every row on a total order', async () => {
    for (const [sql, total] of QUERIES) {
      const ask = async (qtf: string) => {
        const r = await runQuery({ sql, settings: { ch_scatter_query_then_fetch: qtf } }, depsFor(topo, fns));
        expect(r.status, JSON.stringify(r.body).slice(0, 400)).toBe(200);
        return r.body as QueryResponse;
      };
      const two = await ask('1');
      const one = await ask('0');
      expect(two.queryThenFetch, sql).toMatchObject({ applied: true });
      expect(two.partial).toBe(false);
      expect(two.data, sql).toEqual(one.data);
      if (total) {
        const ref = JSON.parse(await chHttp(servers.current.urls[0]!, `${sql.replaceAll(DIST, ALL)} FORMAT JSON`, JSON_SETTINGS)).data;
        expect(two.data, sql).toEqual(ref);
      }
    }
  }, 120_000);
});

describe('query-then-fetch auto on 18.16 shards', () => {
  it("measures the String columns' width on 18.16 and picks two rounds only over the threshold, with the one-round answer and cursor", async () => {
    const columns = createTableColumns();
    const deps = () => ({ ...depsFor(topo, fns), tableColumns: columns });
    const sql = `SELECT id, amount, name FROM ${T} ORDER BY amount DESC, id LIMIT 10`;
    const explained = async (settings: Record<string, string>) =>
      ((await runExplain({ sql, settings }, deps())).body as { queryThenFetch?: QueryThenFetchInfo }).queryThenFetch;
    await vi.waitFor(async () => expect((await explained({}))?.rowBytes).toBeDefined(), { timeout: 30_000, interval: 50 });
    // name: the fixture's eight names, 0 to 9 bytes (their UTF-8 length, as length() counts).
    const narrow = (await explained({}))!;
    expect(narrow).toMatchObject({ applied: false, mode: 'auto', thresholdBytes: 500 });
    expect(narrow.rowBytes).toBeGreaterThan(2);
    expect(narrow.rowBytes).toBeLessThan(10);
    const ask = async (settings: Record<string, string>) => {
      const d = deps();
      const r = await runQuery({ sql, settings }, d);
      expect(r.status, JSON.stringify(r.body).slice(0, 400)).toBe(200);
      return { body: r.body as QueryResponse, roundOne: d.sent.filter((q) => JSON.stringify(q).includes('_qtf_o')).length };
    };
    const one = await ask({});
    expect(one.roundOne).toBe(0);
    const two = await ask({ ch_scatter_query_then_fetch_row_bytes: '0' });
    expect(two.body.queryThenFetch).toMatchObject({ applied: true, mode: 'auto', thresholdBytes: 0 });
    expect(two.roundOne).toBe(3);
    expect(two.body.data).toEqual(one.body.data);
    expect(two.body.cursor).toEqual(one.body.cursor);
    const ref = JSON.parse(await chHttp(servers.current.urls[0]!, `${sql.replaceAll(DIST, ALL)} FORMAT JSON`, JSON_SETTINGS)).data;
    expect(two.body.data).toEqual(ref);
  }, 120_000);
});
