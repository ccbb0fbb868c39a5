// The exact top count by TPUT on three Debian clickhouse-server 18.16 shards (the shard functions'
// real HTTP adapter), against one 18.16 table holding every row: the round SQL, the candidate
// literals (strings with quotes and escapes, Date, DateTime, several keys as tuples) and the query over
// the candidates on both paths, as 18.16 reads them.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Topology } from '../../shared/core/config/schema.js';
import { runQuery, type PlanFn, type QueryResponse } from '../../shared/core/scatter/run-query.js';
import { generalSelect } from '../../shared/core/clickhouse-http/distributed.js';
import { planQuery } from '../../shared/core/plan/index.js';
import { planTwoStage } from '../../shared/core/plan/two-stage/plan.js';
import { createHedgeState } from '../../shared/core/scatter/hedge.js';
import { createShardHandler, envShardDeps } from '../../functions/shard/handler.js';
import type { ShardHandlerFn } from '../../functions/shard/shard-function.js';
import { DIST, JSON_SETTINGS, LOCAL, depsFor, events, expectExact, load, topologyFor, type Reference } from '../integration/tput/fixture.js';
import { chHttp, useChServers } from '../support/ch-servers.js';

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
process.env.POWERTOOLS_METRICS_DISABLED = 'true';

const servers = useChServers({ n: 3, portBase: 19740 });
const ALL = 'default.tput_all';
const T = DIST;
let topo: Topology;
let fns: ShardHandlerFn[];
const at = (i: number) => ({ exec: (sql: string) => chHttp(servers.current.urls[i]!, sql) });
const shards = () => [0, 1, 2].map(at);
const ref: Reference = async (sql) => JSON.parse(await chHttp(servers.current.urls[0]!, `${sql.replaceAll(DIST, ALL)} FORMAT JSON`, JSON_SETTINGS)).data;

beforeAll(async () => {
  const ddl = `(id UInt64, user UInt32, name String, day Date, ts DateTime, flag UInt8, amount UInt32, delta Int32) ENGINE = MergeTree() ORDER BY id`;
  for (const url of servers.current.urls) await chHttp(url, `CREATE TABLE ${LOCAL} ${ddl}`);
  await chHttp(servers.current.urls[0]!, `CREATE TABLE ${ALL} ${ddl}`);
  topo = topologyFor(3, (i) => ({ url: servers.current.urls[i]! }));
  fns = servers.current.urls.map((url, i) => createShardHandler(envShardDeps({ CH_SCATTER_SHARD: JSON.stringify({ shard: i, replicas: [{ url }] }) })));
}, 120_000);

const QUERIES = [
  `SELECT user, count() AS c FROM ${T} GROUP BY user ORDER BY c DESC, user LIMIT 10`,
  `SELECT user, count() AS c, sum(amount) AS s, avg(amount) AS a FROM ${T} GROUP BY user ORDER BY c DESC, user LIMIT 5 OFFSET 3`,
  `SELECT name, day, count() AS c, max(amount) AS m FROM ${T} GROUP BY name, day ORDER BY c DESC, name, day LIMIT 7`,
  `SELECT name, count() AS c FROM ${T} GROUP BY name ORDER BY c DESC, name LIMIT 3`,
  `SELECT user, countIf(flag = 1) AS c, uniqExact(day) AS d FROM ${T} WHERE amount > 10 GROUP BY user ORDER BY c DESC, user LIMIT 6`,
  `SELECT user, sum(amount) AS s FROM ${T} GROUP BY user ORDER BY s DESC, user LIMIT 4`,
  `SELECT ts, name, count() AS c FROM ${T} GROUP BY ts, name ORDER BY c DESC, ts, name LIMIT 3`,
  `SELECT intDiv(user, 7) AS b, count() AS c FROM ${T} GROUP BY b ORDER BY c DESC, b LIMIT 5`,
  `SELECT flag, count() AS c FROM ${T} GROUP BY flag ORDER BY c DESC, flag LIMIT 10`,
];

describe('TPUT on 18.16 shards = one 18.16 table holding every row', () => {
  for (const kind of ['skewed', 'uniform'] as const) {
    it(`${kind} keys, both paths`, async () => {
      await load(shards(), at(0), events(6000, kind, 21), (_, i) => i % 3, ALL);
      for (const sql of QUERIES) {
        for (const path of ['general', 'fast']) {
          const b = await expectExact(depsFor(topo, fns), ref, sql, { ch_scatter_top_count: 'tput', ch_scatter_path: path });
          expect(b.topCount?.method, `${path} ${sql}: ${JSON.stringify(b.topCount)}`).toBe('tput');
        }
        await expectExact(depsFor(topo, fns), ref, sql, { ch_scatter_top_count: 'every_group' });
      }
    }, 120_000);
  }

  it('boundary ties, an empty shard, fewer groups than k', async () => {
    const rows = events(240, 'uniform', 5).map((r, i) => ({ ...r, user: i % 40 }));
    await load(shards(), at(0), rows, (_, i) => (i % 2 === 0 ? 0 : 2), ALL);
    const b = await expectExact(depsFor(topo, fns), ref, `SELECT user, count() AS c FROM ${T} GROUP BY user ORDER BY c DESC, user DESC LIMIT 3 OFFSET 5`, {
      ch_scatter_top_count: 'tput',
    });
    expect(b.topCount!.candidates).toBe(40);
    await expectExact(depsFor(topo, fns), ref, `SELECT name, count() AS c FROM ${T} GROUP BY name ORDER BY c DESC, name LIMIT 50`, {
      ch_scatter_top_count: 'tput',
    });
  });

  it('the ClickHouse HTTP interface: the same pre-pass, the bytes of one engine holding every row', async () => {
    await load(shards(), at(0), events(6000, 'skewed', 31), (_, i) => i % 3, ALL);
    const d = depsFor(topo, fns);
    const select = generalSelect({
      topo,
      invoker: d.invoker,
      hedgeState: createHedgeState(),
      planQuery: planQuery as PlanFn,
      planTwoStage,
      behindApiGateway: false,
    });
    for (const sql of [QUERIES[1]!, QUERIES[2]!]) {
      const before = d.sent.length;
      const a = await select({ sql, format: 'TabSeparatedWithNames', formatSettings: {}, settings: {}, params: {}, requireComplete: true, queryId: 'q-ch' });
      const want = await chHttp(servers.current.urls[0]!, `${sql.replaceAll(DIST, ALL)} FORMAT TabSeparatedWithNames`);
      expect(a.bytes.toString('utf8')).toBe(want);
      const sent = d.sent.slice(before);
      // The one pre-pass round went to every shard; the final stage read the candidates only.
      expect(sent.filter((p) => p.sql.includes('ARRAY JOIN _tput_g AS _tput_p'))).toHaveLength(3);
      expect(sent.filter((p) => p.sql.includes('_tput_s'))).toHaveLength(3);
      expect(sent.find((p) => p.tables)!.tables![0]!.tsvBase64.length).toBeLessThan(20_000);
      // ch_scatter_top_count (a URL parameter on the interface) = 'every_group': no pre-pass, the same bytes.
      const mark = d.sent.length;
      const e = await select({
        sql,
        format: 'TabSeparatedWithNames',
        formatSettings: {},
        settings: { ch_scatter_top_count: 'every_group' },
        params: {},
        requireComplete: true,
        queryId: 'q-ch-every',
      });
      expect(e.bytes.toString('utf8')).toBe(want);
      expect(d.sent.slice(mark).filter((p) => p.sql.includes('_tput_'))).toHaveLength(0);
    }
  });

  it('property: any split of the rows and any arrival order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          n: fc.integer({ min: 1, max: 300 }),
          kind: fc.constantFrom('skewed' as const, 'uniform' as const),
          seed: fc.integer({ min: 1, max: 1_000_000 }),
          split: fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 1, maxLength: 11 }),
          delays: fc.array(fc.integer({ min: 0, max: 10 }), { minLength: 5, maxLength: 5 }),
          k: fc.integer({ min: 1, max: 8 }),
          m: fc.integer({ min: 0, max: 3 }),
        }),
        async ({ n, kind, seed, split, delays, k, m }) => {
          const rows = events(n, kind, seed).map((r) => (kind === 'uniform' ? { ...r, user: r.user % 20 } : r));
          await load(shards(), at(0), rows, (_, i) => split[i % split.length]!, ALL);
          let call = 0;
          const sql = `SELECT name, user, count() AS c FROM ${T} GROUP BY name, user ORDER BY c DESC, name, user LIMIT ${k} OFFSET ${m}`;
          const r = await runQuery(
            { sql, settings: { ch_scatter_top_count: 'tput' } },
            depsFor(topo, fns, { delay: (s) => delays[(s + call++) % delays.length]! }),
          );
          expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(200);
          const b = r.body as QueryResponse;
          expect(b.topCount?.fellBack).toBeUndefined();
          expect(b.data, sql).toEqual(await ref(sql));
        },
      ),
      { numRuns: 12 },
    );
  }, 180_000);
});
