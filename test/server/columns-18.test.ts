// The tables' columns on Debian clickhouse-server 18.16 shards, which have neither COLUMNS(),
// * EXCEPT / REPLACE nor GROUP BY ALL: the coordinator reads the columns through a shard function
// and sends the shards plain column lists. Each answer equals the Distributed table's answer to the
// same query with the columns written out by hand, as ClickHouse would expand them.
import { beforeAll, describe, expect, it } from 'vitest';
import { parseTopology } from '../../shared/core/config/load.js';
import type { Topology } from '../../shared/core/config/schema.js';
import { explainPlan, planQuery } from '../../shared/core/plan/index.js';
import { planTwoStage } from '../../shared/core/plan/two-stage/plan.js';
import { createHedgeState } from '../../shared/core/scatter/hedge.js';
import { runQuery, type PlanFn, type RunDeps } from '../../shared/core/scatter/run-query.js';
import { createTableColumns } from '../../shared/core/scatter/table-columns.js';
import { createShardHandler, envShardDeps } from '../../functions/shard/handler.js';
import { JSON_SETTINGS, expectSameAnswer } from '../integration/two-stage/cases.js';
import { chHttp, useChServers } from '../support/ch-servers.js';

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
process.env.POWERTOOLS_METRICS_DISABLED = 'true';

const servers = useChServers({ n: 2, portBase: 20100 });
const T = 'default.ev_dist';
let topo: Topology;
let fns: Array<(e: unknown) => Promise<any>>;
const tableColumns = createTableColumns();

beforeAll(async () => {
  const urls = servers.current.urls;
  for (const [i, url] of urls.entries()) {
    await chHttp(
      url,
      'CREATE TABLE default.ev (id UInt64, site String, value Float64, status UInt16, doubled Float64 MATERIALIZED value * 2) ENGINE = MergeTree() ORDER BY id',
    );
    await chHttp(url, 'CREATE TABLE default.ev_dist AS default.ev ENGINE = Distributed(scatter, default, ev, id)');
    await chHttp(
      url,
      `INSERT INTO default.ev (id, site, value, status) SELECT number, ['ams', 'fra', 'iad'][number % 3 + 1], number / 4, toUInt16(if(number % 7 = 0, 500, 200))
       FROM system.numbers WHERE number % 2 = ${i} LIMIT 500`,
    );
  }
  topo = parseTopology({
    cluster: 'scatter',
    shards: urls.map((url) => ({ replicas: [{ url }] })),
    tables: { [T]: { local: 'default.ev', shardingKey: { column: 'id', type: 'UInt64', function: 'identity' } } },
    query: { hedge: { enabled: false } },
  });
  fns = urls.map(
    (url, i) => createShardHandler(envShardDeps({ CH_SCATTER_SHARD: JSON.stringify({ shard: i, replicas: [{ url }] }) })) as (e: unknown) => Promise<any>,
  );
}, 120_000);

function deps(): RunDeps {
  return {
    topo,
    invoker: { invoke: async (shard, payload) => fns[shard]!(payload) },
    planQuery: planQuery as PlanFn,
    explainPlan,
    planTwoStage,
    hedgeState: createHedgeState(),
    queryId: 'q-columns-18',
    behindApiGateway: false,
    tableColumns,
  };
}

async function distributed(sql: string): Promise<{ meta: unknown; data: Record<string, unknown>[] }> {
  const doc = JSON.parse(await chHttp(servers.current.urls[0]!, `${sql} FORMAT JSON`, JSON_SETTINGS));
  return { meta: doc.meta, data: doc.data };
}

// The query, and the same query as ClickHouse expands it (18.16 answers only the second).
const PAIRS: [string, string][] = [
  [
    `SELECT * EXCEPT (id, value), count() AS c FROM ${T} GROUP BY ALL ORDER BY site, status`,
    `SELECT site, status, count() AS c FROM ${T} GROUP BY site, status ORDER BY site, status`,
  ],
  [
    `SELECT COLUMNS('^s'), sum(value) AS v FROM ${T} GROUP BY ALL ORDER BY site, status`,
    `SELECT site, status, sum(value) AS v FROM ${T} GROUP BY site, status ORDER BY site, status`,
  ],
  [
    `SELECT * REPLACE (value * 10 AS value) FROM ${T} WHERE id < 6 ORDER BY id`,
    `SELECT id, site, value * 10 AS value, status FROM ${T} WHERE id < 6 ORDER BY id`,
  ],
  [
    `SELECT count() AS c, * FROM ${T} WHERE id < 4 GROUP BY ALL ORDER BY id`,
    `SELECT count() AS c, id, site, value, status FROM ${T} WHERE id < 4 GROUP BY id, site, value, status ORDER BY id`,
  ],
  [
    `SELECT * FROM ${T} WHERE id < 6 ORDER BY ALL DESC`,
    `SELECT id, site, value, status FROM ${T} WHERE id < 6 ORDER BY id DESC, site DESC, value DESC, status DESC`,
  ],
  [
    `SELECT site, status, count() AS c FROM ${T} GROUP BY ALL ORDER BY ALL`,
    `SELECT site, status, count() AS c FROM ${T} GROUP BY site, status ORDER BY site, status, c`,
  ],
];

describe('spelled out for 18.16 shards = the Distributed table over the written-out query', () => {
  for (const [sql, written] of PAIRS)
    it(sql, async () => {
      for (const path of ['fast', 'general']) {
        const r = await runQuery({ sql, settings: { ch_scatter_path: path } }, deps());
        expect(r.status, `${path}: ${JSON.stringify(r.body).slice(0, 300)}`).toBe(200);
        expectSameAnswer(r.body as any, await distributed(written), { name: `${path}: ${sql}`, sql } as never);
      }
    });
});

// An alias swap, read as ClickHouse 26 reads it (each item the column of its own name; x, no column, the column
// status; a name of the swap in WHERE or ORDER BY its item's definition over the columns): the automatic choice
// sends 18.16 shards plain columns, equal to the Distributed table over the written-out query.
const SWAPS: [string, string][] = [
  [
    `SELECT status AS site, site AS status, count() AS c FROM ${T} GROUP BY ALL ORDER BY ALL`,
    `SELECT site, status, count() AS c FROM ${T} GROUP BY site, status ORDER BY site, status, c`,
  ],
  [
    `SELECT status AS site, site AS status FROM ${T} WHERE site = 500 ORDER BY 2, 1 LIMIT 5`,
    `SELECT site, status FROM ${T} WHERE status = 500 ORDER BY status, site LIMIT 5`,
  ],
  [`SELECT status AS x, x AS status, id FROM ${T} WHERE id < 6 ORDER BY id`, `SELECT status AS x, status, id FROM ${T} WHERE id < 6 ORDER BY id`],
];

describe('an alias swap on 18.16 shards = the Distributed table over the written-out query', () => {
  for (const [sql, written] of SWAPS)
    it(sql, async () => {
      const r = await runQuery({ sql }, deps());
      expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(200);
      expectSameAnswer(r.body as any, await distributed(written), { name: sql, sql } as never);
    });
});

// 18.16 has no recursive CTEs: the final stage, on an 18.16 shard's engine, refuses WITH RECURSIVE as
// 18.16's own parser does (62), as its Distributed table would.
describe('WITH RECURSIVE on 18.16 shards', () => {
  it("is 18.16's syntax error, as its Distributed table answers", async () => {
    const sql = `WITH RECURSIVE r AS (SELECT min(id) AS n FROM ${T} UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT n FROM r`;
    await expect(chHttp(servers.current.urls[0]!, sql)).rejects.toThrow(/Code: 62/);
    const r = await runQuery({ sql }, deps());
    expect(r.status, JSON.stringify(r.body).slice(0, 400)).toBe(400);
    expect(JSON.stringify(r.body)).toMatch(/Syntax error/);
    expect((r.body as any).clickhouse?.code).toBe(62);
    expect((r.body as any).error.message).not.toMatch(/_stage|_a0/);
    expect((r.body as any).error.position).toEqual({ line: 1, column: 1 });
  });
});

// 18.16 has no PASTE JOIN either: one of subqueries is pasted by the final stage, whose 18.16 engine
// refuses it as 18.16's own parser does (62), named at the user's PASTE JOIN.
describe('PASTE JOIN on 18.16 shards', () => {
  it("is 18.16's syntax error at the user's PASTE JOIN, without the final stage's SQL", async () => {
    const sql = `SELECT * FROM (SELECT id FROM ${T} ORDER BY id LIMIT 3) AS a\n  PASTE JOIN (SELECT site FROM ${T} ORDER BY id LIMIT 3) AS b`;
    await expect(chHttp(servers.current.urls[0]!, sql.replaceAll(T, 'default.ev'))).rejects.toThrow(/Code: 62/);
    const r = await runQuery({ sql }, deps());
    expect(r.status, JSON.stringify(r.body).slice(0, 400)).toBe(400);
    expect((r.body as any).clickhouse?.code).toBe(62);
    expect((r.body as any).error.message).toMatch(/^Syntax error: the engine that runs this query does not parse PASTE JOIN/);
    expect((r.body as any).error.message).not.toMatch(/_stage|_c0/);
    expect((r.body as any).error.position).toEqual({ line: 2, column: 3 });
  });
});

// Any other construct 18.16's parser predates, on either path: its 62 and hint, never the text or offset of the SQL the
// shards or the final stage ran; placed at the user's ILIKE, else at the statement.
describe("18.16's syntax error on the rewrite", () => {
  for (const [sql, paths, at] of [
    [`SELECT id FROM ${T}\n  WHERE site ILIKE 'A%' ORDER BY id LIMIT 2`, ['fast', 'general'], { line: 2, column: 14 }],
    [`SELECT id, count() OVER () AS n FROM ${T} ORDER BY id LIMIT 2`, ['general'], { line: 1, column: 1 }],
    [`SELECT site, count() AS c FROM ${T} GROUP BY GROUPING SETS ((site), ()) ORDER BY site`, ['general'], { line: 1, column: 1 }],
  ] as const)
    for (const path of paths)
      it(`${path}: ${sql}`, async () => {
        await expect(chHttp(servers.current.urls[0]!, sql.replaceAll(T, 'default.ev'))).rejects.toThrow(/Code: 62/);
        const r = await runQuery({ sql, settings: { ch_scatter_path: path } }, deps());
        expect(r.status, JSON.stringify(r.body).slice(0, 400)).toBe(400);
        const body = r.body as any;
        expect(body.clickhouse?.code).toBe(62);
        expect(body.error.message).toMatch(/Syntax error: failed .*\. Expected one of: /);
        expect(JSON.stringify(body)).not.toMatch(/_stage|_c0|_k0|FORMAT (JSON|Tab)|failed at position|replica 0|default\.ev\b(?!_)/);
        expect(body.error.position).toEqual(at);
      });
});
