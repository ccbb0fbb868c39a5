// SELECT lists over a two-table JOIN (`*`, `t.*`, qualified and bare names of one column, aliases,
// expressions), on both paths over three chdb shards, each compared with one chdb engine holding every
// row: the same column names, types and rows, or an error where ClickHouse refuses the query.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runQuery } from '../../../shared/core/scatter/run-query.js';
import { createTableColumns } from '../../../shared/core/scatter/table-columns.js';
import { DEMO_LOCAL, DEMO_TABLE } from '../../../local/demo.js';
import { demoRunDeps, startDemoChdb, type DemoChdb } from '../../support/demo-chdb.js';
import { JSON_SETTINGS, expectSameAnswer } from './cases.js';

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
const D = DEMO_TABLE;
let demo: DemoChdb;

beforeAll(async () => {
  demo = await startDemoChdb({ rows: 3000 });
  // The oracle's copy under the distributed table's name: ClickHouse names a column by its table's name (`dist.status`).
  await demo.cluster.oracle!.exec(`CREATE TABLE ${D} AS ${DEMO_LOCAL}`);
  await demo.cluster.oracle!.exec(`INSERT INTO ${D} SELECT * FROM ${DEMO_LOCAL}`);
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
    ['distributed', ['b.site', 'site']],
    ['distributed', ['b.*', 'value', 'upper(b.site)', 'upper(site)']],
    ['constant', ['b.label', 'label', 'b.*', 'a.status']],
  ];
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
