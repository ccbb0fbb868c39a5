import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planTwoStage } from '../../../shared/core/plan/two-stage/plan.js';
import { runQuery, type RunDeps } from '../../../shared/core/scatter/run-query.js';
import { parseSelect } from '../../../shared/core/sql/parse.js';
import { printSelect } from '../../../shared/core/sql/print.js';
import { DEMO_LOCAL, DEMO_TABLE } from '../../../local/demo.js';
import type { EmbeddedCluster } from '../../support/embedded-cluster.js';
import { demoRunDeps, startDemoChdb, type DemoChdb } from '../../support/demo-chdb.js';
import { JSON_SETTINGS, expectSameAnswer } from './cases.js';

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
const ROWS = 20_000;
const D = DEMO_TABLE;
let demo: DemoChdb;
let cluster: EmbeddedCluster;

beforeAll(async () => {
  demo = await startDemoChdb({ rows: ROWS });
  cluster = demo.cluster;
}, 120_000);
afterAll(async () => {
  await cluster?.stop();
});

function deps(): RunDeps {
  return demoRunDeps(demo, 'q-set-ops');
}

type Row = Record<string, unknown>;
async function reference(sql: string): Promise<{ meta: unknown; data: Row[] }> {
  const r = await cluster.oracle!.queryRaw(sql.replaceAll(D, DEMO_LOCAL), { format: 'JSON', settings: JSON_SETTINGS });
  const doc = JSON.parse(r.bytes.toString('utf8'));
  return { meta: doc.meta, data: doc.data };
}

async function expectAnswered(sql: string, unordered = true, settings?: Record<string, string>): Promise<Record<string, any>> {
  const want = await reference(sql);
  const r = await runQuery({ sql, ...(settings ? { settings } : {}) }, deps());
  expect(r.status, `${sql}: ${JSON.stringify(r.body).slice(0, 400)}`).toBe(200);
  const b = r.body as Record<string, any>;
  expect(b.partial).toBe(false);
  expectSameAnswer(b, want, { name: sql, sql, unordered } as never);
  return b;
}

const alarms = `SELECT sensor FROM ${D} WHERE status = 500`;
const QUERIES = [
  `${alarms} EXCEPT SELECT sensor FROM ${D} WHERE site = 'ams'`,
  `${alarms} EXCEPT DISTINCT SELECT sensor FROM ${D} WHERE site = 'fra'`,
  `SELECT site, metric FROM ${D} WHERE value > 99 EXCEPT ALL SELECT site, metric FROM ${D} WHERE status = 500`,
  `SELECT site, metric FROM ${D} WHERE value > 90 INTERSECT SELECT site, metric FROM ${D} WHERE status = 500`,
  `SELECT site FROM ${D} WHERE value > 95 INTERSECT DISTINCT SELECT site FROM ${D} WHERE status = 500`,
  `SELECT site, count() AS c FROM ${D} GROUP BY site EXCEPT ALL SELECT site, count() FROM ${D} WHERE site = 'iad' GROUP BY site`,
  `${alarms} UNION ALL ${alarms} UNION DISTINCT SELECT 'none'`,
  `SELECT 'none' AS sensor UNION DISTINCT ${alarms} UNION ALL ${alarms}`,
  `SELECT count() AS n FROM (${alarms} EXCEPT SELECT sensor FROM ${D} WHERE site IN ('ams', 'sfo'))`,
  // Parenthesized chains: the parentheses group, left to right otherwise (UNION ALL then EXCEPT would differ).
  `SELECT sensor FROM ${D} WHERE site = 'ams' EXCEPT (${alarms} UNION ALL SELECT sensor FROM ${D} WHERE site = 'sfo')`,
  `(SELECT sensor FROM ${D} WHERE site = 'ams' UNION ALL ${alarms}) EXCEPT SELECT sensor FROM ${D} WHERE value < 0`,
  `SELECT count() AS n FROM ((${alarms} UNION ALL SELECT sensor FROM ${D} WHERE site = 'iad') INTERSECT SELECT sensor FROM ${D} WHERE value > 50)`,
  `(SELECT site, metric FROM ${D} WHERE value > 99 UNION DISTINCT SELECT site, metric FROM ${D} WHERE status = 500)`,
  `((SELECT 'none' AS sensor) UNION ALL (${alarms} EXCEPT SELECT sensor FROM ${D} WHERE site = 'fra')) INTERSECT (SELECT sensor FROM ${D} WHERE value > 10)`,
];

const EXISTS_QUERIES = [
  // s-7's rows live on one shard only: an EXISTS each shard ran on its own part would count that shard's rows alone.
  `SELECT count() AS c FROM ${D} WHERE EXISTS (SELECT 1 FROM ${D} WHERE sensor = 's-7')`,
  `SELECT site, count() AS c FROM ${D} WHERE EXISTS (SELECT 1 FROM ${D} WHERE status = 500) GROUP BY site ORDER BY site`,
  `SELECT count() AS c FROM ${D} WHERE NOT EXISTS (SELECT 1 FROM ${D} WHERE value > 1000)`,
  `SELECT count() AS c FROM ${D} WHERE status = 500 AND NOT EXISTS (SELECT sensor FROM ${D} WHERE value < -5)`,
  `SELECT EXISTS (SELECT sensor FROM ${D} WHERE site = 'nowhere') AS none, EXISTS (WITH 500 AS s SELECT sensor FROM ${D} WHERE status = s) AS some, count() AS c FROM ${D}`,
  `SELECT site, max(value) AS m FROM ${D} GROUP BY site HAVING EXISTS (SELECT 1 FROM ${D} WHERE status = 500 AND value > 99) ORDER BY site`,
];

// Unaliased: ClickHouse folds EXISTS into its constant and names it so (`1`, `not(0)`, `sum(1)`); an
// EXISTS counts two in the `_subquery_N` numbers of the subqueries after it.
const NAMED_EXISTS = [
  `SELECT EXISTS (SELECT 1 FROM ${D} WHERE status = 500), NOT EXISTS (SELECT 1 FROM ${D} WHERE site = 'nowhere'), count() AS c FROM ${D}`,
  `SELECT site, sum(EXISTS (SELECT 1 FROM ${D} WHERE site = 'nowhere')) FROM ${D} GROUP BY site ORDER BY site`,
  `SELECT sensor, EXISTS (SELECT sensor FROM ${D} WHERE value > 1000) FROM ${D} WHERE sensor = 's-3' ORDER BY ts LIMIT 3`,
];

describe('EXISTS (subquery), as ClickHouse answers it', () => {
  for (const sql of EXISTS_QUERIES) it(sql, () => expectAnswered(sql));
  it('an EXISTS counts two in the numbers of the subqueries after it', () =>
    expectAnswered(`SELECT EXISTS (SELECT 1 FROM ${D} WHERE status = 500), (SELECT max(value) FROM ${D}), count() AS c FROM ${D}`));
  for (const path of ['fast', 'general'])
    for (const sql of NAMED_EXISTS) it(`${path}: ${sql}`, () => expectAnswered(sql, !sql.includes('ORDER BY'), { ch_scatter_path: path }));
});

const QUALIFY_QUERIES = [
  `SELECT site, count() AS c, rank() OVER (ORDER BY count() DESC) AS r FROM ${D} GROUP BY site QUALIFY r <= 2 ORDER BY r, site`,
  `SELECT sensor, ts, value FROM ${D} WHERE site = 'ams' QUALIFY row_number() OVER (PARTITION BY sensor ORDER BY ts DESC) = 1 ORDER BY sensor LIMIT 20`,
  `SELECT site, metric, max(value) AS m FROM ${D} GROUP BY site, metric QUALIFY m = max(max(value)) OVER (PARTITION BY site) ORDER BY site`,
  `SELECT site, count() AS c FROM ${D} GROUP BY site QUALIFY c > 0 ORDER BY site`,
];

describe('QUALIFY, in the final stage after the window functions', () => {
  for (const sql of QUALIFY_QUERIES) it(sql, () => expectAnswered(sql));
});

// nullIf(status, 200) is NULL except on the status-500 rows, so the frames hold NULLs and values.
const NULLS_QUERIES = [
  `SELECT sensor, ts, first_value(nullIf(status, 200)) RESPECT NULLS OVER (PARTITION BY site ORDER BY ts, sensor) AS f FROM ${D} WHERE sensor IN ('s-1', 's-97', 's-2') ORDER BY ts, sensor LIMIT 30`,
  `SELECT sensor, ts, first_value(nullIf(status, 200)) IGNORE NULLS OVER (ORDER BY ts, sensor) AS f FROM ${D} WHERE sensor IN ('s-1', 's-97', 's-2') ORDER BY ts, sensor LIMIT 30`,
  `SELECT site, last_value(if(site = 'fra', NULL, count())) RESPECT NULLS OVER (ORDER BY site ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS l FROM ${D} GROUP BY site ORDER BY site`,
  `SELECT sensor, ts, last_value(nullIf(status, 200)) RESPECT NULLS OVER (ORDER BY ts, sensor ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM ${D} WHERE sensor IN ('s-0', 's-97') ORDER BY ts, sensor LIMIT 30`,
];

describe('RESPECT NULLS / IGNORE NULLS on window functions, in the final stage', () => {
  for (const sql of NULLS_QUERIES) it(sql, () => expectAnswered(sql));
});

// On an aggregate the clause picks another function (any_respect_nulls), split into its own states.
// One row per (sensor, ts) or a constant per group, so `any` has one answer however the shards' rows interleave.
const AGGREGATE_NULLS_QUERIES = [
  `SELECT sensor, ts, any(nullIf(status, 200)) RESPECT NULLS, first_value(nullIf(status, 200)) RESPECT NULLS AS f FROM ${D} WHERE sensor IN ('s-1', 's-97') GROUP BY sensor, ts ORDER BY sensor, ts LIMIT 40`,
  `SELECT site, anyLast(if(site = 'fra', NULL, site)) RESPECT NULLS, last_value(if(site = 'ams', NULL, 1)) RESPECT NULLS AS l, count() AS c FROM ${D} GROUP BY site ORDER BY site`,
  `SELECT site, toString(anyIf(if(site = 'fra', NULL, site), status = 500) RESPECT NULLS) AS a, any_respect_nulls(if(site = 'sfo', NULL, 2)) IGNORE NULLS FROM ${D} GROUP BY site ORDER BY site`,
  `SELECT any(if(site = 'nowhere', 1, NULL)) RESPECT NULLS, anyLast(NULL) RESPECT NULLS, count() FROM ${D}`,
];

describe('RESPECT NULLS / IGNORE NULLS on an aggregate (no OVER), as ClickHouse resolves it', () => {
  for (const sql of AGGREGATE_NULLS_QUERIES) it(sql, () => expectAnswered(sql, false));
  it("a function without the variant is ClickHouse's 48 at the clause", async () => {
    const r = await runQuery({ sql: `SELECT sum(value) RESPECT NULLS FROM ${D}` }, deps());
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({
      error: { code: 'QUERY_ERROR', message: /^Function sum does not support RESPECT NULLS/, position: { line: 1, column: 19 } },
    });
  });
});

const FILL_QUERIES = [
  `SELECT toStartOfHour(ts) AS h, count() AS c FROM ${D} WHERE status = 500 GROUP BY h ORDER BY h WITH FILL FROM toDateTime('2025-12-31 22:00:00') TO toDateTime('2026-01-01 20:00:00') STEP 3600`,
  `SELECT intDiv(status, 100) AS k, count() AS c FROM ${D} GROUP BY k ORDER BY k WITH FILL FROM 0 TO 7 STEP 2`,
  `SELECT toDate(ts) AS d, count() AS c FROM ${D} GROUP BY d ORDER BY d DESC WITH FILL STEP INTERVAL -1 DAY`,
  `SELECT toUInt8(value > 50) + intDiv(status, 100) AS v FROM ${D} WHERE sensor = 's-3' ORDER BY v WITH FILL TO 12 LIMIT 20`,
];

describe('ORDER BY ... WITH FILL FROM / TO / STEP, in the final stage', () => {
  for (const sql of FILL_QUERIES) it(sql, () => expectAnswered(sql, false));
});

// Filled over the merged rows: a shard's own fill would add rows between its own groups, which the merge keeps.
const STALENESS_INTERPOLATE_QUERIES = [
  `SELECT toStartOfHour(ts) AS h, count() AS c FROM ${D} WHERE status = 500 GROUP BY h ORDER BY h WITH FILL STEP 600 STALENESS 1800`,
  `SELECT toStartOfHour(ts) AS h, count() AS c FROM ${D} WHERE status = 500 GROUP BY h ORDER BY h WITH FILL STEP 1200 INTERPOLATE (c AS c + 1000)`,
  `SELECT intDiv(status, 100) AS k, count() AS c, max(value) AS m FROM ${D} GROUP BY k ORDER BY k WITH FILL INTERPOLATE`,
  `SELECT intDiv(status, 100) AS k, count() AS c, toString(k) AS s FROM ${D} GROUP BY k ORDER BY k WITH FILL TO 7 INTERPOLATE (s AS concat(s, '+'))`,
  `SELECT toUInt32(value) AS v, sensor FROM ${D} WHERE sensor = 's-3' ORDER BY v WITH FILL STALENESS 3 INTERPOLATE (sensor AS concat(sensor, '+')) LIMIT 40`,
  `SELECT n, v FROM (SELECT intDiv(status, 100) AS n, count() AS v FROM ${D} GROUP BY n) ORDER BY n WITH FILL INTERPOLATE (v AS v + 1)`,
];

describe('ORDER BY ... WITH FILL ... STALENESS and INTERPOLATE, in the final stage', () => {
  for (const sql of STALENESS_INTERPOLATE_QUERIES) it(sql, () => expectAnswered(sql, false));
  it('the shards never fill: the fill and INTERPOLATE are only in the final stage', () => {
    const plan = planTwoStage(parseSelect(STALENESS_INTERPOLATE_QUERIES[4]!), demo.topo);
    expect(plan.finalSql).toMatch(/WITH FILL STALENESS 3 INTERPOLATE \(sensor AS concat\(sensor, '\+'\)\)/);
    for (const leaf of plan.leaves) expect(printSelect(leaf.query)).not.toMatch(/FILL|INTERPOLATE|STALENESS/);
  });
  it("ClickHouse's own refusals keep its code: STALENESS with FROM is 475", async () => {
    const sql = `SELECT intDiv(status, 100) AS k, count() AS c FROM ${D} GROUP BY k ORDER BY k WITH FILL FROM 0 STALENESS 2`;
    const r = await runQuery({ sql }, deps());
    expect(r.status).toBe(400);
    expect((r.body as Record<string, any>).clickhouse?.code).toBe(475);
  });
});

// Spellings ClickHouse's parser reads as other calls and clauses, answered on both paths as one engine answers them.
const SPELLINGS = [
  `SELECT TOP 3 sensor, value FROM ${D} ORDER BY value DESC, sensor`,
  `SELECT TOP 2 WITH TIES site, count() AS c FROM ${D} GROUP BY site ORDER BY intDiv(c, 1000000)`,
  `SELECT sensor, value FROM ${D} ORDER BY value DESC, sensor, ts OFFSET 2 ROWS FETCH NEXT 3 ROWS ONLY`,
  `SELECT sensor, value FROM ${D} ORDER BY value DESC, sensor, ts FETCH FIRST 2 ROW ONLY`,
  `SELECT site, countIf(status IS DISTINCT FROM 200), countIf(nullIf(status, 200) IS NOT DISTINCT FROM NULL) FROM ${D} GROUP BY site ORDER BY site`,
  `SELECT count() FROM ${D} WHERE (status = 500) IS TRUE AND (value > 50) IS NOT FALSE AND nullIf(status, 200) IS NOT UNKNOWN`,
  `SELECT count() FROM ${D} WHERE sensor LIKE 's-1#%' ESCAPE '#' OR sensor NOT ILIKE 'S!_%' ESCAPE '!'`,
  `SELECT site, max(ts) AT TIME ZONE 'Asia/Tokyo' FROM ${D} GROUP BY site ORDER BY site`,
  `SELECT count() AS c FROM ${D} WHERE value > 9_0 AND status < 0x1_F4`,
  `SELECT $$s-1$$ AS s, count() FROM ${D} WHERE sensor = $q$s-1$q$`,
  `SELECT CAST((site, status), 'Tuple(s String, c UInt16)').s AS s, count() FROM ${D} GROUP BY s ORDER BY s`,
  `#!/usr/bin/env clickhouse\nSELECT count() -- the rows\nFROM ${D} # all of them\n`,
];

describe('spellings ClickHouse reads as other calls and clauses, on the path chosen and the general path', () => {
  for (const path of ['auto', 'general'])
    for (const sql of SPELLINGS) it(`${path}: ${sql}`, () => expectAnswered(sql, !sql.includes('ORDER BY'), { ch_scatter_path: path }));
});

describe('EXCEPT, INTERSECT and mixed UNION, as ClickHouse answers them', () => {
  for (const sql of QUERIES) it(sql, () => expectAnswered(sql));

  // {alarms} EXCEPT ({ams} INTERSECT {high}): read left to right it would be ({alarms} EXCEPT {ams}) INTERSECT {high}, another answer.
  it('INTERSECT binds tighter than EXCEPT and UNION', async () => {
    const ams = `SELECT sensor FROM ${D} WHERE site = 'ams'`;
    const high = `SELECT sensor FROM ${D} WHERE value > 50`;
    const sql = `${alarms} EXCEPT ${ams} INTERSECT ${high} UNION ALL SELECT 'none'`;
    const b = await expectAnswered(sql);
    const leftToRight = await reference(`SELECT * FROM ((${alarms} EXCEPT ${ams}) INTERSECT ${high}) UNION ALL SELECT 'none'`);
    expect(b.data.length).not.toBe(leftToRight.data.length);
  });

  it('a chain inside a FROM subquery and an EXISTS subquery', () =>
    expectAnswered(`SELECT count() AS n FROM (${alarms} INTERSECT SELECT sensor FROM ${D} WHERE site = 'iad') WHERE EXISTS (${alarms})`));

  it('each branch is its own leaf; the final stage runs the chain', () => {
    const plan = planTwoStage(parseSelect(`${alarms} EXCEPT SELECT sensor FROM ${D} WHERE site = 'ams' INTERSECT ${alarms}`), demo.topo);
    expect(plan.leaves).toHaveLength(3);
    expect(plan.finalSql).toBe('SELECT _c0 AS sensor FROM _stage0 EXCEPT SELECT _c0 AS sensor FROM _stage1 INTERSECT SELECT _c0 AS sensor FROM _stage2');
  });
});

describe('SETTINGS extremes = 1 through the JSON API', () => {
  for (const sql of [
    `SELECT site, count() AS c, max(value) AS m FROM ${D} GROUP BY site ORDER BY site SETTINGS extremes = 1`,
    `SELECT sensor, value FROM ${D} WHERE status = 500 ORDER BY ts, sensor LIMIT 20 SETTINGS extremes = 'true'`,
  ])
    it(`the min and max rows, as one engine gives them: ${sql}`, async () => {
      const r = await cluster.oracle!.queryRaw(sql.replaceAll(D, DEMO_LOCAL), { format: 'JSON', settings: JSON_SETTINGS });
      const want = JSON.parse(r.bytes.toString('utf8'));
      const b = await expectAnswered(sql, false);
      expect(want.extremes).toBeDefined();
      expect(b.extremes).toEqual(want.extremes);
      expect(b.path).toBe('general');
    });
  it('without it the answer has none', async () => {
    const b = await expectAnswered(`SELECT site, count() AS c FROM ${D} GROUP BY site ORDER BY site`, false);
    expect(b.extremes).toBeUndefined();
  });
});

describe("a bare UNION / EXCEPT / INTERSECT takes the query's default mode, as ClickHouse 26", () => {
  const sites = `SELECT site FROM ${D} WHERE status = 500`;
  async function engineError(sql: string): Promise<string> {
    return cluster.oracle!.queryRaw(sql.replaceAll(D, DEMO_LOCAL), { format: 'JSON', settings: JSON_SETTINGS }).then(
      () => 'answered',
      (e: Error) => e.message,
    );
  }

  it('a bare UNION with union_default_mode empty (the default) is 558, at the branch after it', async () => {
    const sql = `${sites} UNION ${sites}`;
    expect(await engineError(sql)).toMatch(
      /Code: 558\. DB::Exception: Expected ALL or DISTINCT in SelectWithUnion query, because setting \(union_default_mode\) is empty/,
    );
    const r = await runQuery({ sql }, deps());
    expect(r.status).toBe(400);
    const b = r.body as Record<string, any>;
    expect(b.error.code).toBe('QUERY_ERROR');
    expect(b.error.message).toMatch(/^Expected ALL or DISTINCT in SelectWithUnion query, because setting \(union_default_mode\) is empty/);
    expect(b.error.position).toEqual({ line: 1, column: sites.length + 8 });
    expect(b.clickhouse).toEqual({ code: 558, name: 'EXPECTED_ALL_OR_DISTINCT' });
    // Inside a subquery too.
    const nested = await runQuery({ sql: `SELECT count() FROM (${sql})` }, deps());
    expect((nested.body as Record<string, any>).clickhouse?.code).toBe(558);
  });

  it("SETTINGS union_default_mode = 'DISTINCT' / 'ALL', and the request's settings, as the engine answers", async () => {
    const distinct = await expectAnswered(`${sites} UNION ${sites} SETTINGS union_default_mode = 'DISTINCT'`);
    const all = await expectAnswered(`${sites} UNION ${sites} SETTINGS union_default_mode = 'ALL'`);
    expect(all.data.length).toBeGreaterThan(distinct.data.length);
    const sql = `SELECT count() AS n FROM (${sites} UNION ${sites})`;
    const want = await reference(`${sql} SETTINGS union_default_mode = 'ALL'`);
    const r = await runQuery({ sql, settings: { union_default_mode: 'ALL' } }, deps());
    expect((r.body as Record<string, any>).data).toEqual(want.data);
  });

  it('except_default_mode / intersect_default_mode: ALL unless set', async () => {
    const ams = `SELECT site FROM ${D} WHERE site = 'ams'`;
    const all = await expectAnswered(`${sites} EXCEPT ${ams}`);
    const distinct = await expectAnswered(`${sites} EXCEPT ${ams} SETTINGS except_default_mode = 'DISTINCT'`);
    expect(all.data.length).toBeGreaterThan(distinct.data.length);
    await expectAnswered(`${sites} INTERSECT ${sites} SETTINGS intersect_default_mode = 'DISTINCT'`);
    const r = await runQuery({ sql: `${sites} EXCEPT ${ams} SETTINGS except_default_mode = ''` }, deps());
    expect((r.body as Record<string, any>).error.message).toMatch(
      /^Expected ALL or DISTINCT in EXCEPT query, because setting \(except_default_mode\) is empty/,
    );
  });

  it('a mode ClickHouse does not know is 557, as the engine says', async () => {
    const sql = `${sites} UNION ${sites} SETTINGS union_default_mode = 'all'`;
    expect(await engineError(sql)).toMatch(/Unexpected value of SetOperationMode: 'all'\. Must be one of \['DISTINCT', 'ALL', ''\]/);
    const r = await runQuery({ sql }, deps());
    const b = r.body as Record<string, any>;
    expect(b.error.message).toMatch(/^Unexpected value of SetOperationMode: 'all'\. Must be one of \['DISTINCT', 'ALL', ''\]/);
    expect(b.clickhouse?.code).toBe(557);
    expect(b.error.position).toBeDefined();
  });
});

// A query's own names that look like the stage columns' (_k<i>, _a<i>, _c<i>): the stages take a prefix none of its names uses.
const STAGE_LIKE_NAMES = [
  `SELECT site AS _k0, count() AS _a0 FROM ${D} GROUP BY _k0 ORDER BY _k0`,
  `SELECT site, sum(status) AS _a1, uniqExact(sensor) AS _k1 FROM ${D} GROUP BY site HAVING _a1 > 0 ORDER BY site`,
  `SELECT site AS _k0, metric AS __k0, count() AS _c0 FROM ${D} GROUP BY _k0, __k0 ORDER BY _k0, __k0`,
  `SELECT sensor AS _c0, status AS _c1 FROM ${D} WHERE status = 500 ORDER BY _c0, _c1, ts LIMIT 7`,
  `SELECT _k0, count() AS n FROM (SELECT site AS _k0 FROM ${D} WHERE status = 500) GROUP BY _k0 ORDER BY _k0`,
  `SELECT site AS __k0, metric AS __k1, count() AS __a0, max(value) AS __e0 FROM ${D} GROUP BY __k0, __k1 ORDER BY __k0, __k1`,
  `SELECT __k0, sum(__a0) AS s FROM (SELECT site AS __k0, status AS __a0 FROM ${D} WHERE value > 90) GROUP BY __k0 ORDER BY __k0`,
];

describe('names like the stage columns (_k0, _a0, _c0) in the query', () => {
  for (const sql of STAGE_LIKE_NAMES)
    for (const path of ['general', 'fast'])
      it(`${path}: ${sql}`, async () => {
        const b = await expectAnswered(sql, false, { ch_scatter_path: path });
        expect(b.path ?? 'fast').toBe(path);
      });

  it('WITH TOTALS over a key aliased _k0: the totals row as the engine gives it', async () => {
    const sql = `SELECT site AS _k0, count() AS c FROM ${D} GROUP BY _k0 WITH TOTALS ORDER BY _k0`;
    const want = JSON.parse((await cluster.oracle!.queryRaw(sql.replaceAll(D, DEMO_LOCAL), { format: 'JSON', settings: JSON_SETTINGS })).bytes.toString());
    const r = await runQuery({ sql }, deps());
    expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(200);
    const b = r.body as { data: Row[]; totals: Row };
    expect([b.data, b.totals]).toEqual([want.data, want.totals]);
  });

  it('the general path names its stage columns with a prefix no name of the query takes', () => {
    const plan = planTwoStage(parseSelect(STAGE_LIKE_NAMES[2]!), demo.topo);
    expect(plan.leaves[0]!.query.columns.map((c) => c.alias)).toEqual(['___k0', '___k1', '___a0']);
    expect(planTwoStage(parseSelect(`SELECT site, count() AS c FROM ${D} GROUP BY site`), demo.topo).finalSql).toBe(
      'SELECT _k0 AS site, sum(_a0) AS c FROM _stage0 GROUP BY _k0',
    );
  });
});

// `x IN db.table` where the final stage runs it: the table read as a set (a tuple of all its columns), as ClickHouse reads it.
const ALL = '(ts, sensor, site, metric, value, status)';
const FIVE = `SELECT ts, sensor, site, metric, value, status FROM ${D} WHERE status = 500 ORDER BY sensor, ts LIMIT 5`;
const IN_TABLE = [
  `SELECT sensor, ${ALL} IN ${D} AS inside, (ts, sensor, site, metric, value + 1000, status) IN ${D} AS moved FROM (${FIVE}) ORDER BY sensor, ts`,
  `SELECT count() AS c FROM (${FIVE}) WHERE ${ALL} NOT IN ${D}`,
  `SELECT site, count() AS c FROM (SELECT * FROM ${D} WHERE value > 99 ORDER BY sensor, ts LIMIT 40) WHERE ${ALL} GLOBAL IN ${D} GROUP BY site ORDER BY site`,
];

describe('x IN db.table in a SELECT the final stage runs', () => {
  for (const sql of IN_TABLE) it(sql, () => expectAnswered(sql, false));

  it("keeps ClickHouse's generated name of the IN as written", async () => {
    const sql = `SELECT ${ALL} IN ${D} FROM (${FIVE})`;
    const want = await reference(sql);
    const r = await runQuery({ sql }, deps());
    expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(200);
    const b = r.body as { meta: { name: string }[]; data: Row[] };
    const local = (want.meta as { name: string }[])[0]!.name;
    expect(local).toContain(DEMO_LOCAL);
    expect(b.meta[0]!.name).toBe(local.replace(DEMO_LOCAL, D));
    expect(b.data.map((row) => Object.values(row))).toEqual(want.data.map((row) => Object.values(row)));
  });
});
