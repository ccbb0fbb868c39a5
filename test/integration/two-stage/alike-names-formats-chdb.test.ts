// Two different columns ClickHouse names alike (an unaliased JOIN subquery's column beside another
// table's of that name, a USING key written qualified beside the merged one), answered through the
// ClickHouse interface over three chdb shards in every output format the engine writes, byte for byte
// as one chdb engine holding every row writes them; the formats whose names are not given back are
// refused before any shard runs, naming the format.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_TABLE } from '../../../local/demo.js';
import { demoRunDeps, startDemoChdb, type DemoChdb } from '../../support/demo-chdb.js';
import { handleClickHouseHttp } from '../../../shared/core/clickhouse-http/handle.js';
import { generalSelect } from '../../../shared/core/clickhouse-http/distributed.js';
import { createTableColumns } from '../../../shared/core/scatter/table-columns.js';
import { isFileFormat } from '../../../shared/core/clickhouse/file-names.js';
import { runQuery } from '../../../shared/core/scatter/run-query.js';
import { WRITES_NO_TOTALS } from '../../../shared/core/plan/two-stage/engine-names.js';

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
const D = DEMO_TABLE;
let demo: DemoChdb;
let formats: string[];

beforeAll(async () => {
  demo = await startDemoChdb({ rows: 3000, oracleUnderDistName: true });
  const r = await demo.cluster.oracle!.queryRaw('SELECT name FROM system.formats WHERE is_output ORDER BY name', { format: 'TabSeparated' });
  formats = r.bytes.toString('utf8').trim().split('\n');
}, 120_000);
afterAll(async () => {
  await demo?.cluster.stop();
});

const columns = createTableColumns();
// Both engines write no timing: statistics and progress are the only bytes that differ run to run.
const SETTINGS = { output_format_write_statistics: '0' };

type Answer = { status: number; bytes: Buffer; text: string };

async function reference(sql: string, format: string, settings: Record<string, string> = {}): Promise<Answer> {
  try {
    const r = await demo.cluster.oracle!.queryRaw(sql, { format, settings: { ...SETTINGS, ...settings } });
    return { status: 200, bytes: r.bytes, text: '' };
  } catch (e) {
    return { status: 500, bytes: Buffer.alloc(0), text: String(e) };
  }
}

async function throughInterface(sql: string, format: string, settings: Record<string, string> = {}): Promise<Answer> {
  const raw = (q: string, o: { format: string; settings?: Record<string, unknown> }) =>
    demo.cluster.shards[0]!.queryRaw(q, { format: o.format, settings: { readonly: 2, ...(o.settings as object) } as never });
  const deps = demoRunDeps(demo, 'q-alike-names', { tableColumns: columns });
  const r = await handleClickHouseHttp(
    { method: 'POST', path: '/', query: new URLSearchParams({ default_format: format, ...SETTINGS, ...settings }), headers: {}, body: Buffer.from(sql) },
    { topo: demo.topo, raw, select: generalSelect({ ...deps, planTwoStage: deps.planTwoStage! }) },
  );
  return { status: r.status, bytes: r.body, text: r.body.toString('utf8') };
}

/** The progress lines of the WithProgress formats carry the engine's own counts and times. */
const withoutProgress = (b: Buffer) =>
  b
    .toString('latin1')
    .split('\n')
    .filter((l) => !l.startsWith('{"progress":'))
    .join('\n');

const SENSORS = `('s-0', 's-97', 's-1', 's-2')`;
// One row per sensor on the right: the joined rows are ordered without ties.
const PER_SENSOR = `FROM ${D} WHERE sensor IN ${SENSORS} GROUP BY sensor`;
const GROUPED = `SELECT a.sensor, sensor, count() AS c FROM ${D} AS a GLOBAL FULL JOIN (SELECT sensor FROM ${D} WHERE sensor IN ('s-1', 's-97')) AS b USING sensor WHERE a.sensor IN ${SENSORS} GROUP BY a.sensor, sensor WITH TOTALS ORDER BY a.sensor SETTINGS extremes = 1`;
const QUERIES = [
  // An unaliased JOIN subquery's status beside the table's: different values, one name; LIMIT with an offset.
  `SELECT * FROM ${D} GLOBAL JOIN (SELECT sensor, toUInt16(status + 1) AS status FROM ${D} WHERE sensor IN ${SENSORS}) USING sensor ORDER BY ts, sensor LIMIT 40, 25 SETTINGS joined_subquery_requires_alias = 0`,
  // A USING key written qualified beside a FULL JOIN's merged key; only the left table's rows (a Distributed table's FULL JOIN
  // answers the right-hand rows no left row met once per shard).
  `SELECT a.sensor, sensor, a.ts, b.site FROM ${D} AS a GLOBAL FULL JOIN (SELECT sensor, site FROM ${D} WHERE sensor = 's-2') AS b USING sensor WHERE a.sensor IN ${SENSORS} ORDER BY a.ts, a.sensor`,
  // Grouped, with totals and extremes: the names of every part of the answer.
  GROUPED,
  // No rows: the headers alone.
  `SELECT * FROM ${D} GLOBAL JOIN (SELECT sensor, status FROM ${D} WHERE sensor = 'none') USING sensor ORDER BY ts SETTINGS joined_subquery_requires_alias = 0`,
  // Three pairs of one name, of types that keep their kind (LowCardinality, Array, Nullable with NULLs), descending order, extremes.
  `SELECT * FROM (SELECT sensor, ts, toLowCardinality(site) AS site, [status] AS st, toNullable(value) AS v FROM ${D} WHERE sensor IN ${SENSORS}) AS a ` +
    `JOIN (SELECT sensor, toLowCardinality(min(metric)) AS site, [max(status), 7] AS st, if(min(status) > 1, NULL, toNullable(max(value))) AS v ${PER_SENSOR}) ` +
    `USING sensor ORDER BY ts DESC, sensor SETTINGS joined_subquery_requires_alias = 0, extremes = 1`,
  // JSON on both sides (the stages carry it as states).
  `SELECT * FROM (SELECT sensor, ts, CAST(concat('{"a":', toString(status), '}') AS JSON) AS j FROM ${D} WHERE sensor IN ${SENSORS}) AS a ` +
    `JOIN (SELECT sensor, CAST(concat('{"b":"', min(site), '"}') AS JSON) AS j ${PER_SENSOR}) USING sensor ORDER BY ts, sensor SETTINGS joined_subquery_requires_alias = 0`,
  // Five columns, values with a line break: Pretty falls back to Vertical's layout, its totals and extremes rows under a label.
  GROUPED.replace('count() AS c', `concat(a.sensor, '\\n') AS x, 'a\\nb' AS y, count() AS c`),
];

// WITH TOTALS, a name no renaming of bytes gives back in every format (not ASCII, a tab, the ASCII grid's | + -): the
// final stage's engine writes it, evaluating the answer once for each side of its JOIN.
const ODD = '`é|+\\t-`';
const ODD_TOTALS = `SELECT *, count() AS n FROM (SELECT sensor, toUInt16(status) AS ${ODD} FROM ${D} WHERE sensor IN ${SENSORS}) GLOBAL JOIN (SELECT sensor, toUInt16(max(status) + 1) AS ${ODD} ${PER_SENSOR}) USING sensor GROUP BY ALL WITH TOTALS ORDER BY ALL SETTINGS joined_subquery_requires_alias = 0, extremes = 1`;

// Each query in every format, and the grouped ones in Pretty's ASCII grid too (its header drawn like its rows).
const CASES: { sql: string; settings: Record<string, string> }[] = [
  ...QUERIES.map((sql) => ({ sql, settings: {} })),
  { sql: GROUPED, settings: { output_format_pretty_grid_charset: 'ASCII' } },
  { sql: ODD_TOTALS, settings: {} },
  { sql: ODD_TOTALS, settings: { output_format_pretty_grid_charset: 'ASCII' } },
];

describe('two columns of one name in every output format of the ClickHouse interface', () => {
  for (const [qi, { sql, settings }] of CASES.entries())
    it(`query ${qi}: each format's bytes are ClickHouse's, or refused naming the format`, async () => {
      const checked: string[] = [];
      const wrong: string[] = [];
      const refusedByClickHouse: string[] = [];
      const vertical: string[] = [];
      for (const format of formats) {
        if (isFileFormat(format)) continue;
        const want = await reference(sql, format, settings);
        const got = await throughInterface(sql, format, settings);
        if (want.status !== 200) {
          // What ClickHouse refuses in this format (Avro's duplicate field, Npy's one column...) is refused here too.
          if (got.status < 400) wrong.push(`${format}: ClickHouse refuses (${want.text.slice(0, 200)}) but the interface answered`);
          refusedByClickHouse.push(format);
        } else if (got.status !== 200) wrong.push(`${format}: ${got.status} ${got.text.slice(0, 300)}`);
        else if (withoutProgress(got.bytes) !== withoutProgress(want.bytes))
          wrong.push(
            `${format}: bytes differ:\n${JSON.stringify(withoutProgress(got.bytes).slice(0, 300))}\n${JSON.stringify(withoutProgress(want.bytes).slice(0, 300))}`,
          );
        else {
          checked.push(format);
          if (want.bytes.toString('utf8').startsWith('Row 1:')) vertical.push(format);
        }
      }
      expect(wrong).toEqual([]);
      // The formats that carry names are among those compared, not only the nameless ones.
      for (const f of [
        'TSVWithNames',
        'CSVWithNamesAndTypes',
        'JSONEachRow',
        'JSONCompact',
        'RowBinaryWithNamesAndTypes',
        'Native',
        'Markdown',
        'TSKV',
        'XML',
        'SQLInsert',
      ])
        expect(checked).toContain(f);
      if (!sql.startsWith('SELECT *')) expect(checked).toContain('PrettyCompact');
      // Every layout of names given back is compared, WITH TOTALS too (Pretty's fallback to Vertical in the last query).
      for (const f of ['Pretty', 'PrettySpace', 'PrettySpaceNoEscapes', 'PrettySpaceMonoBlock', 'PrettySpaceNoEscapesMonoBlock', 'Vertical'])
        expect(checked).toContain(f);
      if (sql.includes('AS y')) expect(vertical).toContain('Pretty');
      // The final stage's engine writes the names: the formats once refused are its bytes too (WITH TOTALS, those that write no totals).
      for (const f of ['Arrow', 'Parquet', 'ORC', 'MySQLWire', 'PostgreSQLWire']) if (!refusedByClickHouse.includes(f)) expect(checked).toContain(f);
    }, 300_000);
});

describe('the formats that write no totals row', () => {
  // The engine's naming reads the answer as a subquery, which drops its totals: it is used WITH TOTALS only for these.
  it('write the same bytes with and without WITH TOTALS (and extremes)', async () => {
    const q = (totals: string) => `SELECT site, count() AS c, toString(max(status)) AS s FROM ${D} GROUP BY site ${totals} ORDER BY site SETTINGS extremes = 1`;
    const writes: string[] = [];
    const none: string[] = [];
    for (const format of formats) {
      if (isFileFormat(format)) continue;
      const a = await reference(q('WITH TOTALS'), format);
      const b = await reference(q(''), format);
      if (a.status === 200 && b.status === 200) (withoutProgress(a.bytes) === withoutProgress(b.bytes) ? none : writes).push(format);
    }
    expect(writes.filter((f) => WRITES_NO_TOTALS.has(f.toLowerCase()))).toEqual([]);
    // The list is the engine's whole set of such formats, not a few of them.
    expect(none.filter((f) => !WRITES_NO_TOTALS.has(f.toLowerCase()))).toEqual([]);
  }, 120_000);
});

describe('a final stage not known to be ClickHouse 26', () => {
  // An engine that does not run the wrap (18.16), or whose version is unknown: the renaming of the bytes, as before.
  it('keeps the renaming: the formats whose names it gives back are ClickHouse bytes, the others refused before any shard runs', async () => {
    const sql = QUERIES[0]!;
    for (const engineVersion of ['18.16.1', undefined]) {
      const deps = demoRunDeps(demo, 'q-alike-old', { tableColumns: columns });
      const select = generalSelect({ ...deps, planTwoStage: deps.planTwoStage! });
      const ask = (format: string) =>
        select({
          sql,
          format,
          formatSettings: SETTINGS,
          settings: {},
          params: {},
          requireComplete: true,
          queryId: 'q-alike-old',
          ...(engineVersion ? { engineVersion } : {}),
        });
      const got = await ask('TSVWithNames');
      expect(got.bytes.toString('utf8')).toBe((await reference(sql, 'TSVWithNames')).bytes.toString('utf8'));
      expect(deps.sent.some((r) => r.sql.includes('MATERIALIZED'))).toBe(false);
      // Vertical's names are given back in its bytes.
      expect((await ask('Vertical')).bytes.toString('utf8')).toBe((await reference(sql, 'Vertical')).bytes.toString('utf8'));
      const before = deps.sent.length;
      await expect(ask('Arrow')).rejects.toThrow(/two different columns both named status are not supported in output format Arrow/);
      expect(deps.sent.length).toBe(before);
      // TabSeparated, which carries no types, is asked with a header of names and types: so two types are ClickHouse's 352.
      expect((await ask('TabSeparated')).bytes.toString('utf8')).toBe((await reference(sql, 'TabSeparated')).bytes.toString('utf8'));
      const different = sql.replace('toUInt16(status + 1) AS status', 'toString(status) AS status');
      await expect(
        select({ sql: different, format: 'TSV', formatSettings: SETTINGS, settings: {}, params: {}, requireComplete: true, queryId: 'q-alike-old' }),
      ).rejects.toThrow(
        /^Block structure mismatch in \(columns with identical name must have identical structure\) stream: different types:\nstatus UInt16 UInt16\(size = 0\)\nstatus String String\(size = 0\)$/,
      );
    }
  }, 60_000);
});

describe('names of other widths than lengths, on a final stage not known to be ClickHouse 26', () => {
  // Wide and accented names, and one long enough for the Pretty formats to cut: the renaming of the padded formats'
  // bytes gives them back, totals and extremes included.
  it("the Pretty kin and Vertical are ClickHouse's bytes", async () => {
    const sql = `SELECT * FROM (SELECT sensor, toUInt16(status) AS \`статус\`, site AS \`Ωμέγα-долгое-имя-столбца-длиннее\` FROM ${D} WHERE sensor IN ${SENSORS}) GLOBAL JOIN (SELECT sensor, toUInt16(max(status) + 1) AS \`статус\`, min(site) AS \`Ωμέγα-долгое-имя-столбца-длиннее\`, 1 AS \`中文\` ${PER_SENSOR}) USING sensor ORDER BY ALL SETTINGS joined_subquery_requires_alias = 0, extremes = 1`;
    const deps = demoRunDeps(demo, 'q-alike-wide', { tableColumns: columns });
    const select = generalSelect({ ...deps, planTwoStage: deps.planTwoStage! });
    const padded = formats.filter((f) => /^(Pretty(Compact|Space)?(NoEscapes)?(MonoBlock)?|Vertical)$/.test(f));
    expect(padded.length).toBeGreaterThan(10);
    for (const settings of [{}, { output_format_pretty_grid_charset: 'ASCII' }, { output_format_pretty_color: '1' }] as Record<string, string>[])
      for (const format of padded) {
        const got = await select({
          sql,
          format,
          formatSettings: { ...SETTINGS, ...settings },
          settings: {},
          params: {},
          requireComplete: true,
          queryId: 'q-alike-wide',
          engineVersion: '18.16.1',
        });
        const want = await reference(sql, format, settings);
        expect(want.status, format).toBe(200);
        expect(got.bytes.toString('utf8'), `${format} ${JSON.stringify(settings)}`).toBe(want.bytes.toString('utf8'));
      }
    expect(deps.sent.some((r) => r.sql.includes('MATERIALIZED'))).toBe(false);
  }, 120_000);
});

describe('both stages on the one shard that holds the rows', () => {
  it("wraps the fused query too: ClickHouse's bytes from that shard's one request", async () => {
    const sql = `SELECT * FROM ${D} GLOBAL JOIN (SELECT sensor, toUInt16(status + 1) AS status FROM ${D} WHERE sensor = 's-1') USING sensor WHERE sensor = 's-1' ORDER BY ts SETTINGS joined_subquery_requires_alias = 0`;
    const deps = demoRunDeps(demo, 'q-alike-one', { tableColumns: columns });
    const select = generalSelect({ ...deps, planTwoStage: deps.planTwoStage! });
    for (const format of ['Vertical', 'ArrowStream', 'TSVWithNamesAndTypes']) {
      const before = deps.sent.length;
      const got = await select({
        sql,
        format,
        formatSettings: SETTINGS,
        settings: {},
        params: {},
        requireComplete: true,
        queryId: 'q-alike-one',
        engineVersion: '26.7.2.1',
      });
      expect(got.bytes.equals((await reference(sql, format)).bytes), format).toBe(true);
      // One request ran both stages (no stage tables), its SQL the engine's naming of the fused query.
      const fused = deps.sent.slice(before).filter((r) => r.sql.includes('AS MATERIALIZED'));
      expect(fused).toHaveLength(1);
      expect(fused[0]!.tables ?? []).toEqual([]);
    }
  }, 60_000);
});

describe('two columns of one name whose types differ', () => {
  // ClickHouse refuses them in every format (352), the types-less ones included; the final stage's engine says it here.
  const DIFFERENT = `SELECT * FROM ${D} GLOBAL JOIN (SELECT sensor, toString(status) AS status FROM ${D} WHERE sensor IN ${SENSORS}) USING sensor ORDER BY ts, sensor SETTINGS joined_subquery_requires_alias = 0`;
  it("is ClickHouse's 352 in every format, with its HTTP status and text", async () => {
    const wrong: string[] = [];
    let compared = 0;
    for (const format of formats) {
      if (isFileFormat(format)) continue;
      const want = await reference(DIFFERENT, format);
      const got = await throughInterface(DIFFERENT, format);
      const text = /Code: 352\. DB::Exception: .*?\(AMBIGUOUS_COLUMN_NAME\)/s.exec(want.text)?.[0];
      if (!text) wrong.push(`${format}: ClickHouse answered ${want.status} ${want.text.slice(0, 100)}`);
      else if (got.status !== 500 || !got.text.startsWith(text)) wrong.push(`${format}: ${got.status} ${got.text.slice(0, 300)}`);
      else compared++;
    }
    expect(wrong).toEqual([]);
    expect(compared).toBeGreaterThan(50);
  }, 300_000);

  it('WITH TOTALS too, in the formats without types', async () => {
    const sql = `SELECT *, count() AS n FROM ${D} GLOBAL JOIN (SELECT sensor, toString(status) AS status FROM ${D} WHERE sensor IN ${SENSORS}) USING sensor GROUP BY ALL WITH TOTALS ORDER BY ALL SETTINGS joined_subquery_requires_alias = 0`;
    const wrong: string[] = [];
    // TabSeparated, its Raw kin, CSV and LineAsString write totals: asked with a header of names and types, which is cut off.
    for (const format of [
      'JSONCompactEachRow',
      'RowBinary',
      'CustomSeparated',
      'Values',
      'MsgPack',
      'Parquet',
      'JSONEachRow',
      'TSV',
      'TabSeparatedRaw',
      'CSV',
      'LineAsString',
    ]) {
      const want = await reference(sql, format);
      const got = await throughInterface(sql, format);
      const text = /Code: 352\. DB::Exception: .*?\(AMBIGUOUS_COLUMN_NAME\)/s.exec(want.text)?.[0];
      if (!text) wrong.push(`${format}: ClickHouse answered ${want.status} ${want.text.slice(0, 100)}`);
      else if (got.status !== 500 || !got.text.startsWith(text)) wrong.push(`${format}: ${got.status} ${got.text.slice(0, 300)}`);
    }
    expect(wrong).toEqual([]);
  }, 120_000);
});

describe("a GLOBAL subquery's answer with two different columns of one name", () => {
  const ALIKE = `SELECT a.sensor, sensor FROM ${D} AS a GLOBAL FULL JOIN (SELECT sensor FROM ${D} WHERE sensor IN ('s-1', 's-97')) AS b USING sensor WHERE a.sensor IN ${SENSORS}`;
  // An IN set is read by position: the answer is ClickHouse's.
  it('as an IN set: read by position, as ClickHouse reads it', async () => {
    for (const sql of [
      `SELECT sensor, count() AS c FROM ${D} WHERE (sensor, sensor) GLOBAL IN (${ALIKE}) GROUP BY sensor ORDER BY sensor`,
      // Two statuses of different values: a set that kept one value per name would match no row.
      `SELECT count() AS c FROM ${D} WHERE (sensor, ts, site, metric, value, status, toUInt16(status + 1)) GLOBAL IN (SELECT * FROM ${D} GLOBAL JOIN (SELECT sensor, toUInt16(status + 1) AS status FROM ${D} WHERE sensor IN ${SENSORS}) USING sensor) SETTINGS joined_subquery_requires_alias = 0`,
    ]) {
      const want = await reference(sql, 'TSVWithNamesAndTypes');
      expect(want.status, want.text).toBe(200);
      const got = await throughInterface(sql, 'TSVWithNamesAndTypes');
      expect(got.text).toBe(want.bytes.toString('utf8'));
      if (sql.includes('status + 1)) GLOBAL IN')) expect(got.text).toMatch(/\n4\n$/);
    }
  }, 60_000);
  // A JOIN reads its right side by name: ClickHouse reads the first column's values under both names (r.status twice,
  // the left table's), so the shards read the shipped table back so (the second column travels under its stage name).
  const TWO_STATUSES = `SELECT * FROM ${D} GLOBAL JOIN (SELECT sensor, ts, toUInt16(status + 1) AS status FROM ${D} WHERE sensor IN ${SENSORS}) USING (sensor, ts)`;
  const JOINS = [
    `SELECT * FROM ${D} AS l GLOBAL JOIN (${ALIKE}) AS r ON l.sensor = r.sensor ORDER BY l.ts, l.sensor LIMIT 20`,
    `SELECT l.sensor, l.ts, r.* FROM ${D} AS l GLOBAL JOIN (${TWO_STATUSES}) AS r ON l.sensor = r.sensor AND l.ts = r.ts ORDER BY l.ts, l.sensor LIMIT 20 SETTINGS joined_subquery_requires_alias = 0`,
    `SELECT r.status, count() AS c FROM ${D} AS l GLOBAL JOIN (${TWO_STATUSES}) AS r ON l.sensor = r.sensor AND l.ts = r.ts GROUP BY r.status ORDER BY r.status SETTINGS joined_subquery_requires_alias = 0`,
  ];
  for (const sql of JOINS)
    it(`as a JOIN, through the interface: ${sql}`, async () => {
      const want = await reference(sql, 'TSVWithNamesAndTypes');
      expect(want.status, want.text).toBe(200);
      const got = await throughInterface(sql, 'TSVWithNamesAndTypes');
      expect(got.text).toBe(want.bytes.toString('utf8'));
      // The right side's second status is the left's plus one: read back, r.status holds the left's (200 and 500).
      if (sql.includes('GROUP BY r.status')) expect(got.text).toMatch(/^r\.status\tc\nUInt16\tUInt64\n200\t\d+\n500\t\d+\n$/);
    }, 60_000);
  for (const path of ['general', 'auto'] as const)
    it(`as a JOIN, through POST /query (${path})`, async () => {
      for (const sql of JOINS) {
        const want = await demo.cluster.oracle!.queryRaw(sql, { format: 'JSON', settings: { output_format_json_quote_64bit_integers: 1 } });
        const doc = JSON.parse(want.bytes.toString('utf8')) as { meta: unknown; data: unknown };
        const r = await runQuery({ sql, settings: { ch_scatter_path: path } }, demoRunDeps(demo, 'q-alike-join', { tableColumns: columns }));
        const body = r.body as { meta: unknown; data: unknown; partial: boolean };
        expect(r.status, `${sql}: ${JSON.stringify(body).slice(0, 300)}`).toBe(200);
        expect(body.partial).toBe(false);
        expect(body.meta).toEqual(doc.meta);
        expect(body.data).toEqual(doc.data);
      }
    }, 60_000);
});
