// A GLOBAL JOIN or IN subquery that answers aggregate states (uniqState, sumState, ... grouped) or bytes that are
// not UTF-8, which the general path answers: its rows ship to the shards as the engine's TabSeparated bytes, states
// included, and the shards merge them above the JOIN. And one the general path runs because the fast path refuses its
// shape (a window function, ROLLUP), whichever path the main query takes. On three chdb shards, through POST /query and
// the ClickHouse interface, compared with one chdb engine holding every row: the same names, types and rows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_LOCAL, DEMO_TABLE } from '../../../local/demo.js';
import { handleClickHouseHttp } from '../../../shared/core/clickhouse-http/handle.js';
import { generalSelect } from '../../../shared/core/clickhouse-http/distributed.js';
import { runQuery } from '../../../shared/core/scatter/run-query.js';
import { createTableColumns } from '../../../shared/core/scatter/table-columns.js';
import { demoRunDeps, startDemoChdb, type DemoChdb } from '../../support/demo-chdb.js';
import { JSON_SETTINGS, expectSameAnswer } from './cases.js';

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
const D = DEMO_TABLE;
let demo: DemoChdb;

beforeAll(async () => {
  demo = await startDemoChdb({ rows: 3000, oracleUnderDistName: true });
}, 120_000);
afterAll(async () => {
  await demo?.cluster.stop();
});

const columns = createTableColumns();
const STATES = `(SELECT sensor, uniqState(status) AS u, sumState(toUInt64(status)) AS s, quantileExactState(0.5)(value) AS q FROM ${D} GROUP BY sensor) AS r`;

const QUERIES = [
  `SELECT l.site, uniqMerge(r.u) AS u, sumMerge(r.s) AS s, quantileExactMerge(0.5)(r.q) AS q FROM ${D} AS l GLOBAL JOIN ${STATES} USING sensor GROUP BY l.site ORDER BY l.site`,
  `SELECT DISTINCT sensor, finalizeAggregation(r.u) AS u, finalizeAggregation(r.s) AS s FROM ${D} AS l GLOBAL JOIN ${STATES} USING sensor ORDER BY sensor LIMIT 10`,
  // Merged above the JOIN of a subquery whose states were merged on the general path first.
  `SELECT uniqMerge(r.u) AS u, count() AS c FROM ${D} AS l GLOBAL LEFT JOIN (SELECT site, uniqState(sensor) AS u FROM ${D} WHERE status = 500 GROUP BY site) AS r USING site`,
  // Bytes that are not UTF-8 from the general path (a subquery in FROM is the general path's) travel as the engine's bytes too.
  `SELECT count() AS c FROM ${D} WHERE (concat(sensor, unhex('ff')), sensor) GLOBAL IN (SELECT concat(sensor, unhex('ff')), sensor FROM (SELECT sensor, uniqExactState(ts) AS u FROM ${D} WHERE status = 500 GROUP BY sensor))`,
  // A set beside a JOIN of states: the states' subquery decides which sensors count.
  `SELECT count() AS c FROM ${D} WHERE sensor GLOBAL IN (SELECT sensor FROM (SELECT sensor, sumState(toUInt64(status)) AS s FROM ${D} GROUP BY sensor) WHERE finalizeAggregation(s) > 10000)`,
];

async function reference(sql: string): Promise<{ meta: unknown; data: Record<string, unknown>[] }> {
  const r = await demo.cluster.oracle!.queryRaw(sql, { format: 'JSON', settings: JSON_SETTINGS });
  const doc = JSON.parse(r.bytes.toString('utf8'));
  return { meta: doc.meta, data: doc.data };
}

/** The answer of POST /query on `path`, complete and equal to the engine's holding every row. */
async function expectApiAnswer(sql: string, path: 'auto' | 'fast' | 'general'): Promise<void> {
  const r = await runQuery({ sql, settings: { ch_scatter_path: path } }, demoRunDeps(demo, 'q-global-states', { tableColumns: columns }));
  const body = r.body as Record<string, any>;
  expect(r.status, JSON.stringify(body).slice(0, 400)).toBe(200);
  expect(body.partial).toBe(false);
  expectSameAnswer(body, await reference(sql), { name: `${path}: ${sql}`, sql } as never);
}

/** The ClickHouse interface's bytes, equal to the engine's holding every row. */
async function expectInterfaceAnswer(sql: string): Promise<void> {
  const raw = (q: string, o: { format: string; settings?: Record<string, unknown> }) =>
    demo.cluster.shards[0]!.queryRaw(q, { format: o.format, settings: { readonly: 2, ...(o.settings as object) } as never });
  const deps = demoRunDeps(demo, 'q-global-states-ch', { tableColumns: columns });
  const res = await handleClickHouseHttp(
    { method: 'POST', path: '/', query: new URLSearchParams({ default_format: 'TSVWithNamesAndTypes' }), headers: {}, body: Buffer.from(sql) },
    { topo: demo.topo, raw, select: generalSelect({ ...deps, planTwoStage: deps.planTwoStage! }) },
  );
  const want = await demo.cluster.oracle!.queryRaw(sql, { format: 'TSVWithNamesAndTypes' });
  expect(res.status, res.body.toString('utf8').slice(0, 300)).toBe(200);
  expect(res.body.toString('utf8')).toBe(want.bytes.toString('utf8'));
}

describe('a GLOBAL subquery of aggregate states, merged on the shards above it', () => {
  for (const sql of QUERIES) {
    for (const path of ['general', 'auto'] as const) it(`${path}: ${sql}`, () => expectApiAnswer(sql, path));
    it(`interface: ${sql}`, () => expectInterfaceAnswer(sql));
  }
  it('the states travel as bytes: the shards are sent a TabSeparated table typed AggregateFunction', async () => {
    const deps = demoRunDeps(demo, 'q-global-states-sent', { tableColumns: columns });
    const r = await runQuery({ sql: QUERIES[0]!, settings: { ch_scatter_path: 'general' } }, deps);
    expect(r.status).toBe(200);
    const shipped = deps.sent.flatMap((p) =>
      'external' in p ? ((p as { external?: { columns: { type: string }[]; data?: { format: string } }[] }).external ?? []) : [],
    );
    expect(shipped.some((t) => t.data?.format === 'TabSeparated' && t.columns.some((c) => c.type.startsWith('AggregateFunction(uniq')))).toBe(true);
  });
});

// A window function or ROLLUP inside a GLOBAL subquery is the subquery's own: it runs once on the general path, and the
// main query keeps its path (the fast path too). The sharding key first in the set (sensor) is shipped as any set is,
// as a Distributed table's initiator runs a GLOBAL IN over the whole table whatever its first column.
const WINDOWED = [
  `SELECT site, count() AS c FROM ${D} WHERE site GLOBAL IN (SELECT site FROM (SELECT site, dense_rank() OVER (ORDER BY site) AS rk FROM ${D}) WHERE rk <= 2) GROUP BY site ORDER BY site`,
  `SELECT count() AS c FROM ${D} WHERE sensor GLOBAL IN (SELECT sensor FROM (SELECT sensor, rank() OVER (ORDER BY sensor) AS rk FROM ${D} WHERE status = 500) WHERE rk <= 50)`,
  `SELECT count() AS c FROM ${D} WHERE sensor GLOBAL NOT IN (SELECT sensor FROM ${D} WHERE status = 500 GROUP BY sensor WITH ROLLUP)`,
  `SELECT site, count() AS c FROM ${D} WHERE (site, status) GLOBAL IN (SELECT site, status FROM ${D} WHERE value > 90 GROUP BY site, status WITH ROLLUP) GROUP BY site ORDER BY site`,
  // A scalar over the distributed table is run apart the same way (its value ships to every shard).
  `SELECT count() AS c FROM ${D} WHERE status = (SELECT max(status) FROM (SELECT status, dense_rank() OVER (ORDER BY status) AS rk FROM ${D}) WHERE rk <= 2)`,
  `SELECT count() AS c FROM ${D} WHERE status < (SELECT count() FROM ${D} WHERE status = 500 GROUP BY status WITH ROLLUP ORDER BY count() LIMIT 1)`,
  `SELECT l.site, max(r.rk) AS m, count() AS c FROM ${D} AS l GLOBAL JOIN (SELECT sensor, dense_rank() OVER (ORDER BY sensor) AS rk FROM (SELECT DISTINCT sensor FROM ${D})) AS r USING sensor GROUP BY l.site ORDER BY l.site`,
];

// A local IN (distributed_product_mode = 'local') is each shard's own: it runs the set over its own rows, a window
// function in it included, as a Distributed table's shards do. The reference: each shard's answer over its local table.
const LOCAL_MODE = " SETTINGS distributed_product_mode = 'local'";
const LOCAL_WINDOWED = [
  // Each shard's three sensors of highest value: nine sensors over three shards where one node would keep three.
  `SELECT sensor, count() AS c FROM ${D} WHERE sensor IN (SELECT sensor FROM (SELECT sensor, row_number() OVER (ORDER BY value DESC, ts, sensor) AS rn FROM ${D}) WHERE rn <= 3) GROUP BY sensor ORDER BY sensor${LOCAL_MODE}`,
  `SELECT sensor, ts, value FROM ${D} WHERE value IN (SELECT max(value) OVER () FROM ${D}) ORDER BY sensor, ts${LOCAL_MODE}`,
  `SELECT sensor, ts FROM ${D} WHERE (sensor, ts) NOT IN (SELECT sensor, ts FROM (SELECT sensor, ts, rank() OVER (PARTITION BY site ORDER BY ts) AS r FROM ${D}) WHERE r > 1) ORDER BY sensor, ts${LOCAL_MODE}`,
  // A JOIN's right side each shard runs itself: its own three rows of highest value.
  `SELECT l.sensor, l.ts, r.rn FROM ${D} AS l JOIN (SELECT sensor, ts, row_number() OVER (ORDER BY value DESC, ts, sensor) AS rn FROM ${D}) AS r ON l.sensor = r.sensor AND l.ts = r.ts WHERE r.rn <= 3 ORDER BY l.sensor, l.ts${LOCAL_MODE}`,
  // ROLLUP, CUBE and TOTALS in a set each shard runs: each site's highest value on the shard, and the shard's own.
  `SELECT sensor, ts, value FROM ${D} WHERE value IN (SELECT max(value) FROM ${D} GROUP BY site WITH ROLLUP) ORDER BY sensor, ts${LOCAL_MODE}`,
  `SELECT site, sensor, ts FROM ${D} WHERE (site, value) IN (SELECT site, max(value) FROM ${D} GROUP BY site WITH CUBE) ORDER BY site, sensor, ts${LOCAL_MODE}`,
  `SELECT sensor, ts, value FROM ${D} WHERE value IN (SELECT min(value) FROM ${D} GROUP BY site WITH TOTALS) ORDER BY sensor, ts${LOCAL_MODE}`,
  // GROUPING SETS, DISTINCT ON, QUALIFY and WITH FILL in a set each shard runs over its own rows.
  `SELECT sensor, ts, value FROM ${D} WHERE value IN (SELECT max(value) FROM ${D} GROUP BY GROUPING SETS ((site), (status), ())) ORDER BY sensor, ts${LOCAL_MODE}`,
  `SELECT sensor, count() AS c FROM ${D} WHERE (site, ts) IN (SELECT DISTINCT ON (site) site, ts FROM ${D} ORDER BY site, ts DESC) GROUP BY sensor ORDER BY sensor${LOCAL_MODE}`,
  `SELECT sensor, ts FROM ${D} WHERE (sensor, ts) IN (SELECT sensor, ts FROM ${D} QUALIFY row_number() OVER (PARTITION BY site ORDER BY value DESC, ts, sensor) = 1) ORDER BY sensor, ts${LOCAL_MODE}`,
  // The fill adds 500 to each shard's set of 200: every row counts.
  `SELECT sensor, count() AS c FROM ${D} WHERE status IN (SELECT toUInt16(s) FROM (SELECT status AS s FROM ${D} WHERE status = 200 GROUP BY s ORDER BY s WITH FILL FROM 200 TO 600 STEP 300)) GROUP BY sensor ORDER BY sensor${LOCAL_MODE}`,
];

/** Each shard's own answer over its local table, its rows together, and the TSVWithNamesAndTypes bytes with their data lines sorted. */
async function localReference(sql: string): Promise<{ meta: unknown; data: Record<string, unknown>[]; tsv: string }> {
  const local = sql.replaceAll(D, DEMO_LOCAL);
  const answers = await Promise.all(demo.cluster.shards.map((s) => s.queryRaw(local, { format: 'JSON', settings: JSON_SETTINGS })));
  const docs = answers.map((r) => JSON.parse(r.bytes.toString('utf8')) as { meta: unknown; data: Record<string, unknown>[] });
  const tsvs = await Promise.all(demo.cluster.shards.map((s) => s.queryRaw(local, { format: 'TSVWithNamesAndTypes' })));
  const lines = tsvs.map((r) =>
    r.bytes
      .toString('utf8')
      .split('\n')
      .filter((l) => l !== ''),
  );
  const tsv = [...lines[0]!.slice(0, 2), ...lines.flatMap((l) => l.slice(2)).sort()].join('\n');
  return { meta: docs[0]!.meta, data: docs.flatMap((d) => d.data), tsv };
}

describe('a window function in a local IN set, run by each shard over its own rows', () => {
  for (const sql of LOCAL_WINDOWED) {
    for (const path of ['fast', 'general', 'auto'] as const)
      it(`${path}: ${sql}`, async () => {
        const r = await runQuery({ sql, settings: { ch_scatter_path: path } }, demoRunDeps(demo, 'q-local-windowed', { tableColumns: columns }));
        const body = r.body as Record<string, any>;
        expect(r.status, JSON.stringify(body).slice(0, 400)).toBe(200);
        expect(body.partial).toBe(false);
        expectSameAnswer(body, await localReference(sql), { name: `${path}: ${sql}`, sql, unordered: true } as never);
      });
    it(`interface: ${sql}`, async () => {
      const raw = (q: string, o: { format: string; settings?: Record<string, unknown> }) =>
        demo.cluster.shards[0]!.queryRaw(q, { format: o.format, settings: { readonly: 2, ...(o.settings as object) } as never });
      const deps = demoRunDeps(demo, 'q-local-windowed-ch', { tableColumns: columns });
      const res = await handleClickHouseHttp(
        { method: 'POST', path: '/', query: new URLSearchParams({ default_format: 'TSVWithNamesAndTypes' }), headers: {}, body: Buffer.from(sql) },
        { topo: demo.topo, raw, select: generalSelect({ ...deps, planTwoStage: deps.planTwoStage! }) },
      );
      expect(res.status, res.body.toString('utf8').slice(0, 300)).toBe(200);
      const lines = res.body
        .toString('utf8')
        .split('\n')
        .filter((l) => l !== '');
      expect([...lines.slice(0, 2), ...lines.slice(2).sort()].join('\n')).toBe((await localReference(sql)).tsv);
    });
  }
  it("one node's answer differs: the sets are the shards' own", async () => {
    for (const sql of [LOCAL_WINDOWED[0]!, LOCAL_WINDOWED[4]!])
      expect((await localReference(sql)).data.length).toBeGreaterThan((await reference(sql)).data.length);
  });
});

// A set or JOIN's right side reading no table is the same on every shard: each runs it, a window function or ROLLUP
// in it included, as a Distributed table's shards run it. The reference: one node holding every row.
const TABLE_LESS = [
  `SELECT count() AS c FROM ${D} WHERE status IN (SELECT number * 100 FROM numbers(10) ORDER BY row_number() OVER () DESC LIMIT 6)`,
  `SELECT site, count() AS c FROM ${D} WHERE (status, 1) GLOBAL IN (SELECT number * 100, count() OVER () - 9 FROM numbers(10)) GROUP BY site ORDER BY site`,
  `SELECT count() AS c FROM ${D} WHERE status % 7 NOT IN (SELECT number FROM numbers(4) GROUP BY number WITH ROLLUP)`,
  `SELECT r.rn, count() AS c FROM ${D} AS l JOIN (SELECT number * 300 + 200 AS status, row_number() OVER () AS rn FROM numbers(2)) AS r ON l.status = r.status GROUP BY r.rn ORDER BY r.rn`,
  // A window function in a scalar subquery that reads no table, in WHERE and in the SELECT list.
  `SELECT count() AS c FROM ${D} WHERE status = (SELECT max(number) OVER () * 100 + 200 FROM numbers(4) LIMIT 1)`,
  `SELECT site, count() AS c FROM ${D} WHERE has((SELECT groupArray(toUInt16(x * 300 - 100)) FROM (SELECT row_number() OVER () AS x FROM numbers(2))), status) GROUP BY site ORDER BY site`,
  // GROUPING SETS, DISTINCT ON, QUALIFY and WITH FILL in a set that reads no table.
  `SELECT count() AS c FROM ${D} WHERE status IN (SELECT sum(number) * 100 FROM numbers(6) GROUP BY GROUPING SETS ((number % 2), (number % 3), ()))`,
  `SELECT site, count() AS c FROM ${D} WHERE status IN (SELECT DISTINCT ON (number % 3) number * 100 FROM numbers(6) ORDER BY number % 3, number DESC) GROUP BY site ORDER BY site`,
  `SELECT count() AS c FROM ${D} WHERE status IN (SELECT number * 100 FROM numbers(10) QUALIFY row_number() OVER (ORDER BY number DESC) <= 4)`,
  `SELECT status, count() AS c FROM ${D} WHERE status GLOBAL IN (SELECT n FROM (SELECT toUInt16(number * 200) AS n FROM numbers(4) ORDER BY n WITH FILL STEP 100)) GROUP BY status ORDER BY status`,
];

describe('a window function or ROLLUP in a table-less set or JOIN, run by each shard', () => {
  for (const sql of TABLE_LESS) {
    for (const path of ['fast', 'general', 'auto'] as const) it(`${path}: ${sql}`, () => expectApiAnswer(sql, path));
    it(`interface: ${sql}`, () => expectInterfaceAnswer(sql));
  }
  it("a set of two columns beside one is the shards' engine's 20, as one node's", async () => {
    const sql = `SELECT count() AS c FROM ${D} WHERE status IN (SELECT number, count() OVER () FROM numbers(3))`;
    await expect(demo.cluster.oracle!.queryRaw(sql, { format: 'JSON' })).rejects.toThrow(/Code: 20\b/);
    for (const path of ['fast', 'general'] as const) {
      const r = await runQuery({ sql, settings: { ch_scatter_path: path } }, demoRunDeps(demo, 'q-table-less-20', { tableColumns: columns }));
      expect(r.status).toBe(400);
      expect((r.body as { clickhouse?: { code: number } }).clickhouse?.code).toBe(20);
    }
  });
});

// An EXISTS over the distributed table is run once over the whole table and folded into its constant: a subquery of a
// shape only the general path answers (ROLLUP, a window function) runs there, whichever path the main query takes.
const EXISTS_APART = [
  `SELECT count() AS c FROM ${D} WHERE EXISTS (SELECT site, count() FROM ${D} WHERE status = 500 GROUP BY site WITH ROLLUP)`,
  `SELECT site, count() AS c FROM ${D} WHERE NOT EXISTS (SELECT sensor FROM ${D} WHERE value > 1000 GROUP BY sensor WITH CUBE) GROUP BY site ORDER BY site`,
  // s-7's rows live on one shard: only the whole table's ROLLUP says whether its group exists.
  `SELECT count() AS c FROM ${D} WHERE EXISTS (SELECT sensor FROM ${D} WHERE sensor = 's-7' GROUP BY sensor WITH ROLLUP HAVING count() > 0)`,
  `SELECT count() AS c FROM ${D} WHERE EXISTS (SELECT sensor FROM (SELECT sensor, row_number() OVER (ORDER BY value DESC, ts, sensor) AS rn FROM ${D}) WHERE rn = 1 AND sensor = 's-7')`,
  `SELECT EXISTS (SELECT status FROM ${D} WHERE value > 1000 GROUP BY status WITH ROLLUP) AS e, count() AS c FROM ${D}`,
];

describe('an EXISTS the fast path refuses for its shape, run once on the general path and folded', () => {
  for (const sql of EXISTS_APART) {
    for (const path of ['fast', 'general', 'auto'] as const) it(`${path}: ${sql}`, () => expectApiAnswer(sql, path));
    it(`interface: ${sql}`, () => expectInterfaceAnswer(sql));
  }
});

describe('a GLOBAL subquery the fast path refuses for its shape, run on the general path on either path of the main query', () => {
  for (const sql of WINDOWED) {
    for (const path of ['fast', 'general', 'auto'] as const) it(`${path}: ${sql}`, () => expectApiAnswer(sql, path));
    it(`interface: ${sql}`, () => expectInterfaceAnswer(sql));
  }
  it("a window function in the main query itself is still the fast path's refusal", async () => {
    const sql = `SELECT sensor, row_number() OVER (ORDER BY sensor) AS r FROM ${D} WHERE sensor GLOBAL IN (SELECT sensor FROM ${D} WHERE status = 500) ORDER BY sensor LIMIT 3`;
    const r = await runQuery({ sql, settings: { ch_scatter_path: 'fast' } }, demoRunDeps(demo, 'q-global-windowed', { tableColumns: columns }));
    expect(r.status).toBe(400);
    expect((r.body as { error: { code: string; message: string } }).error).toMatchObject({
      code: 'UNSUPPORTED',
      message: expect.stringMatching(/^Window functions/),
    });
    await expectApiAnswer(sql, 'auto');
  });
});

// The requests a query's subqueries make are on its timeline (statistics.subqueries), and in what it read.
describe("a GLOBAL subquery's shard requests on the query's timeline", () => {
  const SET = `SELECT count() AS c FROM ${D} WHERE sensor GLOBAL IN (SELECT sensor FROM ${D} WHERE status = 500)`;
  // The fast path refuses ROLLUP: this set runs on the general path, its stage one on every shard.
  const ROLLED = `SELECT count() AS c FROM ${D} WHERE sensor GLOBAL IN (SELECT sensor FROM ${D} WHERE status = 500 GROUP BY sensor WITH ROLLUP)`;
  type Stat = { shard: number; status: string; rowsRead: number; startMs?: number; endMs?: number; attempts: { status: string }[] };
  type Stats = { rowsRead: number; shards: Stat[]; subqueries?: Stat[]; coordinator: { name: string; endMs: number }[] };
  for (const [name, sql] of [
    ['a set on the fast path', SET],
    ['a set the general path answers', ROLLED],
  ] as const)
    for (const path of ['fast', 'general'] as const)
      it(`${path}: ${name}`, async () => {
        const r = await runQuery({ sql, settings: { ch_scatter_path: path } }, demoRunDeps(demo, 'q-sub-timeline', { tableColumns: columns }));
        expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(200);
        const st = (r.body as { statistics: Stats }).statistics;
        const subs = st.subqueries ?? [];
        expect(new Set(subs.map((s) => s.shard))).toEqual(new Set([0, 1, 2]));
        for (const s of subs) {
          expect(s.status).toBe('ok');
          expect(s.attempts.map((a) => a.status)).toContain('ok');
          expect(s.rowsRead).toBeGreaterThan(0);
          // Planning's part: every request ended before the plan did.
          expect(s.endMs!).toBeLessThanOrEqual(st.coordinator.find((c) => c.name === 'plan')!.endMs + 0.1);
        }
        const sum = (xs: Stat[]) => xs.reduce((a, s) => a + s.rowsRead, 0);
        expect(st.rowsRead).toBe(sum(st.shards) + sum(subs));
      });
  it('a query without subqueries has none', async () => {
    const r = await runQuery({ sql: `SELECT count() AS c FROM ${D}` }, demoRunDeps(demo, 'q-sub-timeline-none', { tableColumns: columns }));
    expect((r.body as { statistics: Stats }).statistics.subqueries).toBeUndefined();
  });
});
