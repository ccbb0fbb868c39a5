// SELECT lists over JOINs of two and more tables and over ARRAY JOIN (`*`, `t.*`, qualified and bare
// names of one column, aliases, expressions), on both paths over three chdb shards and through the
// ClickHouse interface, each compared with one chdb engine holding every row: the same column names,
// types and rows, or an error where ClickHouse refuses the query.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runQuery } from '../../../shared/core/scatter/run-query.js';
import { createTableColumns } from '../../../shared/core/scatter/table-columns.js';
import { DEMO_TABLE } from '../../../local/demo.js';
import { demoRunDeps, startDemoChdb, type DemoChdb } from '../../support/demo-chdb.js';
import { JSON_SETTINGS, expectSameAnswer } from './cases.js';
import { handleClickHouseHttp } from '../../../shared/core/clickhouse-http/handle.js';
import { generalSelect } from '../../../shared/core/clickhouse-http/distributed.js';

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
type Answer = { meta: unknown; data: Record<string, unknown>[] } | { error: string };

async function reference(sql: string): Promise<Answer> {
  try {
    const r = await demo.cluster.oracle!.queryRaw(sql, { format: 'JSON', settings: JSON_SETTINGS });
    const doc = JSON.parse(r.bytes.toString('utf8'));
    return { meta: doc.meta, data: doc.data };
  } catch (e) {
    return { error: String(e) };
  }
}

/** ClickHouse's answer, or its refusal: never a different answer, never an answer to what it refuses. */
async function expectAsReference(sql: string, path: 'general' | 'fast', unordered = false): Promise<void> {
  const want = await reference(sql);
  const r = await runQuery({ sql, settings: { ch_scatter_path: path } }, demoRunDeps(demo, 'q-join-names', { tableColumns: columns }));
  const body = r.body as Record<string, any>;
  if ('error' in want) {
    expect(r.status, `${path}: ${sql} answers what ClickHouse refuses (${want.error.slice(0, 200)})`).toBeGreaterThanOrEqual(400);
    return;
  }
  expect(r.status, `${path}: ${sql}: ${JSON.stringify(body).slice(0, 400)}`).toBe(200);
  expect(body.partial).toBe(false);
  expectSameAnswer(body, want, { name: `${path}: ${sql}`, sql, unordered } as never);
}

// The right-hand tables: a subquery over the distributed table, the distributed table itself, a constant table.
const RIGHT = {
  subquery: {
    table: `(SELECT sensor, ts, site AS label, status FROM ${D} WHERE status = 500) AS b`,
    on: 'a.sensor = b.sensor AND a.ts = b.ts',
    cols: ['sensor', 'ts', 'label', 'status'],
  },
  distributed: { table: `${D} AS b`, on: 'a.sensor = b.sensor AND a.ts = b.ts', cols: ['ts', 'sensor', 'site', 'metric', 'value', 'status'] },
  constant: { table: '(SELECT number AS status, toString(number) AS label FROM numbers(600)) AS b', on: 'a.status = b.status', cols: ['status', 'label'] },
} as const;
const LEFT_COLS = ['ts', 'sensor', 'site', 'metric', 'value', 'status'];

const sqlOf = (right: keyof typeof RIGHT, items: string[]) =>
  `SELECT ${items.join(', ')} FROM ${D} AS a GLOBAL JOIN ${RIGHT[right].table} ON ${RIGHT[right].on} ORDER BY a.ts, a.sensor LIMIT 4`;

describe('a JOIN of a distributed table: names as ClickHouse names them', () => {
  const fixed: [keyof typeof RIGHT, string[]][] = [
    ['subquery', ['b.*', 'value']],
    ['subquery', ['b.label', 'label']],
    // One alias twice, the second reading the name inside its own definition: the column, so one expression (no 179).
    ['subquery', ['toString(b.label) AS label', 'toString(label) AS label', 'b.sensor']],
    ['distributed', ['b.site', 'site']],
    ['distributed', ['b.*', 'value', 'upper(b.site)', 'upper(site)']],
    ['constant', ['b.label', 'label', 'b.*', 'a.status']],
  ];
  // A `SELECT *` subquery on the right: its table's columns, those values() declares, or its c1, c2... without a structure.
  for (const path of ['general', 'fast'] as const) {
    const sql = `SELECT b.*, value FROM ${D} AS a GLOBAL JOIN (SELECT * FROM values((500, 'x'), (200, 'y'))) AS b ON a.status = b.c1 ORDER BY a.ts, a.sensor LIMIT 4`;
    it(`${path}: ${sql}`, () => expectAsReference(sql, path));
  }
  // A `SELECT *` subquery on the right: its table's columns, or those values() declares.
  for (const path of ['general', 'fast'] as const)
    for (const right of [
      `(SELECT * FROM values('status UInt16, label String, d Float64', (500, 'x', 1.5), (200, 'y', 2))) AS b ON a.status = b.status`,
      `(SELECT * FROM ${D}) AS b ON a.sensor = b.sensor AND a.ts = b.ts`,
    ]) {
      const sql = `SELECT b.*, value, label FROM ${D} AS a GLOBAL JOIN ${right} ORDER BY a.ts, a.sensor LIMIT 4`.replace(
        ', label FROM',
        right.includes('values') ? ', label FROM' : ' FROM',
      );
      it(`${path}: ${sql}`, () => expectAsReference(sql, path));
    }
  for (const path of ['general', 'fast'] as const)
    for (const [right, items] of fixed) it(`${path}: ${sqlOf(right, items)}`, () => expectAsReference(sqlOf(right, items), path));

  // Aliases that lead round over a JOIN: a name is a column where any table has it (a distributed table's columns, a
  // subquery's output names), and where it is none the alias reads its own name's column, as ClickHouse reads them.
  const cycles: [keyof typeof RIGHT, string[]][] = [
    ['distributed', ['status AS x', 'x AS status']],
    ['subquery', ['label AS x', 'x AS label']],
    ['subquery', ['a.status AS x', 'x AS label']],
    ['constant', ['site AS y', 'y AS site']],
    ['distributed', ['c AS status', 'site AS c', 'status AS site']],
  ];
  for (const [right, items] of cycles) it(`general: ${sqlOf(right, items)}`, () => expectAsReference(sqlOf(right, items), 'general'));
  // The same over a constant table's own columns (numbers(), values(), system.one) and over an ARRAY JOIN's aliases.
  for (const sql of [
    `SELECT site AS y, y AS site FROM ${D} AS a JOIN numbers(600) AS b ON a.status = b.number ORDER BY ts, sensor LIMIT 4`,
    `SELECT number AS x, x AS number FROM ${D} AS a JOIN numbers(600) AS b ON a.status = b.number ORDER BY ts, sensor LIMIT 4`,
    `SELECT c AS status, site AS c, status AS site FROM ${D} AS a JOIN values('c UInt8', 7) AS b ON 1 ORDER BY ts, sensor LIMIT 4`,
    `SELECT site AS y, y AS site FROM ${D} AS a JOIN system.one AS b ON 1 ORDER BY ts, sensor LIMIT 4`,
    `SELECT c2 AS y, y AS c2, site AS c1 FROM ${D} AS a JOIN values((500, 'x'), (200, 'y')) AS b ON a.status = b.c1 ORDER BY ts, sensor LIMIT 4`,
    `SELECT status AS y, y AS status, e FROM ${D} ARRAY JOIN [1, 2] AS e ORDER BY ts, sensor, e LIMIT 4`,
    `SELECT e AS y, y AS e FROM ${D} ARRAY JOIN [1, 2] AS e ORDER BY ts, sensor, e LIMIT 4`,
    `SELECT site AS y, y AS site FROM ${D} ARRAY JOIN [1, 2] ORDER BY ts, sensor LIMIT 4`,
    `SELECT c AS status, site AS c, status AS site FROM ${D} ARRAY JOIN [1, 2] AS e ORDER BY ts, sensor LIMIT 4`,
    `SELECT tag AS x, x AS tag FROM ${D} ARRAY JOIN [1, 2] AS e ORDER BY ts LIMIT 4`,
  ])
    it(`general: ${sql}`, () => expectAsReference(sql, 'general'));

  // An alias of the list that is a column's name: the column, from `*` or qualified, is named by its table.
  for (const sql of [
    `SELECT *, toString(status) AS status FROM ${D} WHERE sensor = 's-1' ORDER BY ts`,
    `SELECT ${D}.status, ts AS status FROM ${D} WHERE sensor = 's-1' ORDER BY ts`,
    `SELECT *, ts AS status, count() AS n FROM ${D} WHERE sensor = 's-1' GROUP BY ALL ORDER BY ts`,
  ])
    it(`general: ${sql}`, () => expectAsReference(sql, 'general'));

  it('the qualified and the bare name of a grouped column are one key', async () => {
    const sql = `SELECT a.site, site, count() AS c FROM ${D} AS a GLOBAL JOIN ${RIGHT.subquery.table} ON ${RIGHT.subquery.on} GROUP BY a.site ORDER BY site`;
    await expectAsReference(sql, 'general');
  });

  it('property: mixed SELECT lists over each kind of right-hand table', async () => {
    const item = (right: keyof typeof RIGHT) => {
      const rc = RIGHT[right].cols;
      const any = [...new Set([...LEFT_COLS, ...rc])];
      return fc.oneof(
        fc.constantFrom('*', 'a.*', 'b.*'),
        fc.constantFrom(...LEFT_COLS).map((c) => `a.${c}`),
        fc.constantFrom(...rc).map((c) => `b.${c}`),
        fc.constantFrom(...any),
        fc.constantFrom(...rc.map((c) => `toString(b.${c})`), ...any.map((c) => `toString(${c})`), 'a.value + 1', `length(b.${rc[1]})`),
      );
    };
    const names = fc.constantFrom('x', 'y', 'site', 'label', 'status');
    const query = fc.constantFrom(...(Object.keys(RIGHT) as (keyof typeof RIGHT)[])).chain((right) =>
      fc.record({
        right: fc.constant(right),
        items: fc.array(fc.tuple(item(right), fc.option(names, { nil: undefined })), { minLength: 1, maxLength: 5 }),
        where: fc.constantFrom('', 'status >= 0', `b.${RIGHT[right].cols[0]} IS NOT NULL`, "site != 'zz'"),
        grouped: fc.boolean(),
        path: fc.constantFrom('general' as const, 'fast' as const),
      }),
    );
    await fc.assert(
      fc.asyncProperty(query, async ({ right, items, where, grouped, path }) => {
        // Some items aliased, sometimes by a column's name (the alias then wins over the column); never `*`.
        const list = items.map(([e, alias], i) =>
          alias !== undefined && !e.endsWith('*') ? `${e} AS ${alias === 'x' || alias === 'y' ? `${alias}${i}` : alias}` : e,
        );
        const from = `FROM ${D} AS a GLOBAL JOIN ${RIGHT[right].table} ON ${RIGHT[right].on}${where ? ` WHERE ${where}` : ''}`;
        if (grouped) await expectAsReference(`SELECT ${list.join(', ')}, count() AS n ${from} GROUP BY ALL`, path, true);
        else await expectAsReference(`SELECT ${list.join(', ')} ${from} ORDER BY a.ts, a.sensor LIMIT 4`, path);
      }),
      { numRuns: 80 },
    );
  }, 600_000);
});

/** The ClickHouse interface's answer (always the general path, rendered by the final stage's engine) in JSON. */
async function throughInterface(sql: string): Promise<{ status: number; text: string }> {
  const raw = (q: string, o: { format: string; settings?: Record<string, unknown> }) =>
    demo.cluster.shards[0]!.queryRaw(q, { format: o.format, settings: { readonly: 2, ...(o.settings as object) } as never });
  const deps = demoRunDeps(demo, 'q-join-names-iface', { tableColumns: columns });
  const r = await handleClickHouseHttp(
    { method: 'POST', path: '/', query: new URLSearchParams({ default_format: 'JSON', ...JSON_SETTINGS } as never), headers: {}, body: Buffer.from(sql) },
    { topo: demo.topo, raw, select: generalSelect({ ...deps, planTwoStage: deps.planTwoStage! }) },
  );
  return { status: r.status, text: r.body.toString('utf8') };
}

/** Both paths and the ClickHouse interface answer as ClickHouse does (names, types, rows). */
async function expectEverywhere(sql: string): Promise<void> {
  await expectAsReference(sql, 'general');
  await expectAsReference(sql, 'fast');
  const want = await reference(sql);
  if ('error' in want) throw new Error(`the reference refuses ${sql}: ${want.error}`);
  const got = await throughInterface(sql);
  expect(got.status, `interface: ${sql}: ${got.text.slice(0, 400)}`).toBe(200);
  const doc = JSON.parse(got.text);
  expectSameAnswer({ meta: doc.meta, data: doc.data }, want, { name: `interface: ${sql}`, sql } as never);
}

describe('names under table aliases, past two tables, over unaliased subqueries and ARRAY JOIN', () => {
  const J3 = `${D} AS a GLOBAL JOIN ${D} AS b USING sensor GLOBAL JOIN ${D} AS c USING sensor`;
  const ON3 = `${D} AS a GLOBAL JOIN ${D} AS b ON a.sensor = b.sensor GLOBAL JOIN ${D} AS c ON a.sensor = c.sensor`;
  const SUBS = `${D} AS a GLOBAL JOIN (SELECT sensor, status AS st FROM ${D}) AS b USING sensor GLOBAL JOIN (SELECT sensor, 1 AS one FROM ${D}) AS c USING sensor`;
  const ARR = `(SELECT sensor, [1, 2] AS arr, ['x', 'y'] AS s FROM ${D} WHERE sensor IN ('s-1', 's-2'))`;
  for (const sql of [
    // The fast path's row answers: a column read through the local table keeps the distributed table's name.
    `SELECT sensor_events_dist.status, ts AS status FROM ${D} WHERE sensor = 's-1' ORDER BY ts`,
    `SELECT *, toString(status) AS status FROM ${D} WHERE sensor = 's-1' ORDER BY ts`,
    `SELECT a.status, ts AS status FROM ${D} AS a WHERE a.sensor = 's-1' ORDER BY a.ts`,
    // One table: `a.status` and `status` are one column (one stage column, one key), named status.
    `SELECT a.status, status FROM ${D} AS a WHERE a.sensor = 's-1' ORDER BY a.ts`,
    `SELECT a.status, count() FROM ${D} AS a GROUP BY status ORDER BY status`,
    `SELECT sensor_events_dist.site, site, count() AS c FROM ${D} GROUP BY sensor_events_dist.site ORDER BY site`,
    `SELECT arrayMap(status -> status + a.status, [1]) AS x FROM ${D} AS a WHERE a.sensor = 's-1'`,
    // A USING key written qualified: the merged key in an INNER or LEFT JOIN, a's own (named a.k) in a RIGHT one.
    `SELECT a.*, b.* FROM ${D} AS a GLOBAL JOIN ${D} AS b USING sensor ORDER BY a.ts, b.ts LIMIT 3`,
    `SELECT a.sensor, b.sensor, sensor, upper(a.sensor) FROM ${D} AS a GLOBAL LEFT JOIN ${D} AS b USING sensor ORDER BY a.ts, b.ts LIMIT 3`,
    `SELECT * FROM ${D} AS a GLOBAL JOIN ${D} AS b ON a.sensor = b.sensor ORDER BY a.ts, b.ts LIMIT 3`,
    `SELECT a.status, b.status FROM ${D} AS a GLOBAL JOIN ${D} AS b ON a.sensor = b.sensor ORDER BY a.ts, b.ts LIMIT 3`,
    // Three tables: every column qualified where another table has it; USING keys once, first.
    `SELECT *, 1 AS one FROM ${J3} ORDER BY a.ts LIMIT 3`,
    `SELECT * EXCEPT (value) FROM ${J3} ORDER BY a.ts LIMIT 3`,
    `SELECT *, count() AS n FROM ${J3} GROUP BY ALL ORDER BY sensor, a.ts LIMIT 3`,
    `SELECT a.ts, b.ts, c.ts, a.site, c.sensor, sensor FROM ${J3} ORDER BY a.ts LIMIT 3`,
    `SELECT a.ts, b.ts, c.ts FROM ${ON3} ORDER BY a.ts LIMIT 3`,
    `SELECT *, 1 FROM ${ON3} ORDER BY a.ts LIMIT 3`,
    `SELECT *, 1 FROM ${SUBS} ORDER BY a.ts LIMIT 3`,
    `SELECT a.*, c.* FROM ${SUBS} ORDER BY a.ts LIMIT 3`,
    // An unaliased subquery's sensor and ts beside the distributed table's: named sensor and ts, as ClickHouse names them.
    `SELECT * FROM ${D} GLOBAL CROSS JOIN (SELECT sensor, ts FROM ${D} WHERE status = 500 ORDER BY ts, sensor LIMIT 2) ORDER BY ALL LIMIT 3 SETTINGS joined_subquery_requires_alias = 0`,
  ])
    it(sql, () => expectEverywhere(sql));

  // The fast path refuses a subquery in FROM. An unaliased JOIN subquery's columns are named unqualified, as ClickHouse names them;
  // over ARRAY JOIN `*` holds the element in the array's place.
  for (const sql of [
    `SELECT *, 1 AS one FROM (SELECT sensor, status FROM ${D} WHERE status = 500) GLOBAL JOIN ${D} AS b USING sensor ORDER BY ts LIMIT 3 SETTINGS joined_subquery_requires_alias = 0`,
    `SELECT * EXCEPT (sensor) FROM ${ARR} ARRAY JOIN arr ORDER BY arr`,
    `SELECT *, count() AS n FROM ${ARR} ARRAY JOIN arr, s GROUP BY ALL ORDER BY sensor, arr`,
    `SELECT *, 1 FROM ${ARR} AS t LEFT ARRAY JOIN arr AS e ORDER BY sensor, e`,
    `SELECT *, count() AS n FROM ${ARR} AS t ARRAY JOIN arr AS e GROUP BY ALL ORDER BY sensor`,
  ])
    it(sql, async () => {
      await expectAsReference(sql, 'general');
      const want = await reference(sql);
      const got = await throughInterface(sql);
      expect(got.status, got.text.slice(0, 400)).toBe(200);
      expectSameAnswer(JSON.parse(got.text), want as never, { name: `interface: ${sql}`, sql } as never);
    });

  // A JOIN of subqueries runs in the final stage: an unaliased one's column is named as ClickHouse names it (`sensor`,
  // never by the alias the plan reads it through), beside the same name of the other side, aliased or not.
  const L = `(SELECT sensor, status FROM ${D} WHERE status = 500 ORDER BY ts, sensor LIMIT 3)`;
  const R = `(SELECT sensor, ts FROM ${D} WHERE status = 500 ORDER BY ts, sensor LIMIT 2)`;
  const NO_ALIAS = 'SETTINGS joined_subquery_requires_alias = 0';
  for (const sql of [
    `SELECT * FROM ${L} GLOBAL CROSS JOIN ${R} ORDER BY ALL ${NO_ALIAS}`,
    `SELECT * FROM ${L} AS a GLOBAL CROSS JOIN ${R} ORDER BY ALL ${NO_ALIAS}`,
    `SELECT * FROM ${L} GLOBAL CROSS JOIN ${R} AS b ORDER BY ALL ${NO_ALIAS}`,
    `SELECT sensor, status, ts FROM ${L} GLOBAL CROSS JOIN ${R} ORDER BY ALL ${NO_ALIAS}`,
    `SELECT *, 1 FROM ${L} GLOBAL CROSS JOIN ${R} GLOBAL CROSS JOIN ${R} AS c ORDER BY ALL ${NO_ALIAS}`,
    `SELECT * FROM ${L} AS a PASTE JOIN ${R}`,
    `SELECT * FROM ${L} PASTE JOIN ${R} AS b`,
  ])
    it(sql, async () => {
      await expectAsReference(sql, 'general');
      const want = await reference(sql);
      expect((want as { meta: { name: string }[] }).meta.some((m) => m.name.includes('_joined_subquery'))).toBe(false);
      const got = await throughInterface(sql);
      expect(got.status, got.text.slice(0, 400)).toBe(200);
      expectSameAnswer(JSON.parse(got.text), want as never, { name: `interface: ${sql}`, sql } as never);
    });

  // Two different columns ClickHouse names alike: both paths answer them with ClickHouse's names and types on the JSON
  // API and in the ClickHouse interface's JSON (a FULL JOIN's rows are per shard, as a Distributed table's are: only its
  // names and types are compared). Every format is the engine's bytes (alike-names-formats-chdb.test.ts).
  for (const sql of [
    `SELECT * FROM ${D} GLOBAL JOIN (SELECT sensor, status FROM ${D} WHERE status = 500) USING sensor ORDER BY ts LIMIT 3 SETTINGS joined_subquery_requires_alias = 0`,
    `SELECT a.sensor, sensor FROM ${D} AS a GLOBAL FULL JOIN ${D} AS b USING sensor ORDER BY a.ts, b.ts LIMIT 3`,
  ])
    it(sql, async () => {
      if (sql.includes('FULL')) {
        const want = await reference(sql);
        const r = await runQuery({ sql, settings: { ch_scatter_path: 'general' } }, demoRunDeps(demo, 'q-join-names', { tableColumns: columns }));
        expect(r.status, JSON.stringify(r.body).slice(0, 400)).toBe(200);
        expect((r.body as { meta: unknown }).meta).toEqual((want as { meta: unknown }).meta);
      } else {
        await expectAsReference(sql, 'general');
        await expectAsReference(sql, 'fast');
      }
      const want = await reference(sql);
      const got = await throughInterface(sql);
      expect(got.status, got.text.slice(0, 400)).toBe(200);
      const doc = JSON.parse(got.text);
      const name = sql.includes('FULL') ? 'sensor' : 'status';
      expect(got.text.split(`"name": "${name}"`).length, got.text.slice(0, 600)).toBe(3);
      if (sql.includes('FULL')) expect(doc.meta).toEqual((want as { meta: unknown }).meta);
      else expectSameAnswer({ meta: doc.meta, data: doc.data }, want as never, { name: `interface: ${sql}`, sql } as never);
      // PrettySpace pads names to widths the renaming could not share: the final stage's engine writes the names itself.
      const space = await throughInterface(`${sql} FORMAT PrettySpace`);
      expect(space.status, space.text.slice(0, 400)).toBe(200);
      const header = (await demo.cluster.oracle!.queryRaw(sql, { format: 'PrettySpace' })).bytes.toString('utf8').split('\n')[0];
      expect(space.text.split('\n')[0]).toBe(header);
    });

  // A nested Map's key that spells the stage alias sits deeper than a row's keys: the interface's JSON renames only the column.
  it("the interface's JSON renames the column, not a Map key of the stage alias's spelling", async () => {
    const from = `${D} GLOBAL JOIN (SELECT sensor, status FROM ${D} WHERE status = 500) USING sensor ORDER BY ts LIMIT 3 SETTINGS joined_subquery_requires_alias = 0`;
    const probe = await reference(`SELECT 1 AS m, * FROM ${from}`);
    const last = (probe as { meta: unknown[] }).meta.length - 1;
    const sql = `SELECT map('_n${last}', 1) AS m, * FROM ${from}`;
    const want = await reference(sql);
    const got = await throughInterface(sql);
    expect(got.status, got.text.slice(0, 400)).toBe(200);
    expect(got.text).toContain(`"_n${last}": 1`);
    const doc = JSON.parse(got.text);
    expectSameAnswer({ meta: doc.meta, data: doc.data }, want as never, { name: `interface: ${sql}`, sql } as never);
  });

  // Of one name but different types, ClickHouse refuses them (352) with its text: so does each path and the automatic choice.
  it("two columns of one name and different types are ClickHouse's 352", async () => {
    const sql = `SELECT * FROM ${D} GLOBAL JOIN (SELECT sensor, toString(status) AS status FROM ${D} LIMIT 10) USING sensor ORDER BY ts LIMIT 3 SETTINGS joined_subquery_requires_alias = 0`;
    const want = await reference(sql);
    const text = /DB::Exception: (.*)\. \(AMBIGUOUS_COLUMN_NAME\)/s.exec((want as { error: string }).error)?.[1];
    expect(text).toMatch(/^Block structure mismatch in .*\nstatus UInt16 UInt16\(size = 0\)\nstatus String String\(size = 0\)$/s);
    for (const path of ['general', 'fast', undefined]) {
      const r = await runQuery({ sql, ...(path ? { settings: { ch_scatter_path: path } } : {}) }, demoRunDeps(demo, 'q-join-names', { tableColumns: columns }));
      expect(r.status, `${path}: ${JSON.stringify(r.body).slice(0, 300)}`).toBe(400);
      expect(r.body).toMatchObject({ error: { code: 'QUERY_ERROR', message: text }, clickhouse: { code: 352 } });
    }
  });

  // The plan's alias of an unaliased JOIN subquery never hides ClickHouse's 206.
  it('an unaliased JOIN subquery is still 206 without joined_subquery_requires_alias = 0', async () => {
    const sql = `SELECT *, 1 FROM ${D} AS a GLOBAL JOIN (SELECT sensor, status FROM ${D}) USING sensor`;
    for (const path of ['general', 'fast'] as const) {
      const r = await runQuery({ sql, settings: { ch_scatter_path: path } }, demoRunDeps(demo, 'q-join-names', { tableColumns: columns }));
      expect(r.status, path).toBe(400);
      expect(JSON.stringify(r.body), path).toMatch(/no alias for the subquery/);
    }
    expect((await throughInterface(sql)).text).toMatch(/ALIAS_REQUIRED/);
  });
});
