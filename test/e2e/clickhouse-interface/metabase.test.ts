// Metabase through its ClickHouse driver (ClickHouse/metabase-clickhouse-driver 1.53.4, deps.edn:
// clickhouse-jdbc 0.8.4, JDBC v2 over the Java client v2), replayed on the local stack's ClickHouse
// interface (two chdb shards) request by request as that client sends it (java-client.ts), each
// answer decoded as the driver decodes it (LZ4 blocks, RowBinaryWithNamesAndTypes) and compared
// with a chdb oracle holding every row under the distributed names. Each step names the source it
// copies: the driver's src/metabase/driver/*.clj, Metabase's own src/metabase/... (metabase/metabase)
// and clickhouse-java's jdbc-v2 / client-v2 at v0.8.4.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WireCodecs } from '../../../shared/core/clickhouse-http/block-compression.js';
import { loadWireCodecs } from '../../../functions/coordinator/wire-codecs.js';
import { javaQuery, readRowBinaryWithNamesAndTypes, type JavaQuery, type RowBinaryAnswer } from './java-client.js';
import { AUTH_HEADER, ROWS_SQL, startHarness, type Harness } from './support.js';

let h: Harness;
let codecs: WireCodecs;

// A table with the types Metabase's sync maps (clickhouse_introspection.clj database-type->base-type).
const METRICS_DDL = (name: string) =>
  `CREATE TABLE ${name} (id UInt64, name LowCardinality(String), city Nullable(String), day Date, amount Decimal(12, 2), kind Enum8('a' = 1, 'b' = 2), ip IPv4, uid UUID, at DateTime64(3, 'Europe/Amsterdam'), flag Bool) ENGINE = MergeTree ORDER BY id`;
const METRICS_ROWS = (name: string) =>
  `INSERT INTO ${name} SELECT number, concat('n-', toString(number % 7)), if(number % 4 = 0, NULL, concat('c-', toString(number % 5))), toDate('2024-02-01') + number % 40, number * 1.25, if(number % 3 = 0, 'a', 'b'), toIPv4(number * 65537), generateUUIDv4(number), toDateTime64('2024-03-30 12:00:00', 3, 'Europe/Amsterdam') + number * 262000, number % 2 = 0 FROM numbers(300)`;

beforeAll(async () => {
  h = await startHarness({
    tables: { 'analytics.metrics_dist': { local: 'analytics.metrics', shardingKey: { column: 'id', type: 'UInt64', function: 'xxHash64' }, insert: true } },
  });
  codecs = await loadWireCodecs();
  const ddl = await fetch(`${h.stack.url}/admin/exec`, {
    method: 'POST',
    headers: AUTH_HEADER,
    body: JSON.stringify({ sql: METRICS_DDL('analytics.metrics') }),
  });
  expect(ddl.status, await ddl.clone().text()).toBe(200);
  await h.oracle.exec(METRICS_DDL('analytics.metrics_dist'));
  await h.oracle.exec(ROWS_SQL('analytics.events_dist'));
  await h.oracle.exec(METRICS_ROWS('analytics.metrics_dist'));
  for (const t of ['analytics.events_dist', 'analytics.metrics_dist']) {
    const lines = (await h.oracle.queryRaw(`SELECT * FROM ${t}`, { format: 'JSONEachRow' })).bytes;
    const ins = await fetch(`${h.stack.url}/admin/insert?table=${t}`, { method: 'POST', headers: AUTH_HEADER, body: lines });
    expect(ins.status, await ins.clone().text()).toBe(200);
  }
}, 240_000);

afterAll(async () => {
  await h?.stop();
});

// clickhouse.clj connection-details->spec: product_name "metabase/1.53.4", which ConnectionImpl puts
// before its own name; the JDBC URL's path is the database (JdbcConfiguration.parseUrl).
const CLIENT = 'metabase/1.53.4';
const DB = 'analytics';
// ConnectionImpl's default query settings (async_insert=0, wait_end_of_query=0) ride on every
// statement; StatementImpl.executeQuery adds a query id, and setMaxRows (Metabase's
// sql_jdbc/execute.clj execute-statement-or-prepared-statement! calls it with
// query_processor/middleware/limit.clj determine-query-max-rows) max_result_rows with break.
const statement = (sql: string, maxRows = 0): JavaQuery => ({
  sql,
  database: DB,
  queryId: randomUUID(),
  clientName: CLIENT,
  settings: [
    ['async_insert', '0'],
    ['wait_end_of_query', '0'],
    ...(maxRows > 0
      ? ([
          ['max_result_rows', String(maxRows)],
          ['result_overflow_mode', 'break'],
        ] as [string, string][])
      : []),
  ],
});

/** The answer as the driver reads it; a failed request fails the test with ClickHouse's text. */
async function ask(q: JavaQuery): Promise<RowBinaryAnswer> {
  const r = await javaQuery(h.stack.url, h.auth, q, codecs);
  expect(r.status, `${q.sql}\n${r.body.toString()}`).toBe(200);
  return readRowBinaryWithNamesAndTypes(r.body);
}

/** The oracle's answer to the same text (the distributed names are its tables), decoded the same way. */
async function oracle(sql: string, settings: Record<string, string | number> = {}): Promise<RowBinaryAnswer> {
  const r = await h.oracle.queryRaw(sql, { format: 'RowBinaryWithNamesAndTypes', settings });
  return readRowBinaryWithNamesAndTypes(r.bytes);
}

// query_processor/util.clj default-query->remark: every query Metabase's query processor runs starts
// with this comment (sql_jdbc/execute.clj inject-remark); sync's queries have no user.
const remark = (user?: number) => `-- Metabase${user === undefined ? '' : `:: userID: ${user} queryType: MBQL queryHash: ${'ab12'.repeat(16)}`}\n`;

describe('connecting (the connection test and what each new connection asks)', () => {
  it('client-v2 Client.loadServerInfo, as ConnectionImpl opens a connection', async () => {
    const a = await ask({ sql: 'SELECT currentUser() AS user, timezone() AS timezone, version() AS version LIMIT 1', database: DB, clientName: CLIENT });
    const want = await oracle('SELECT timezone() AS timezone, version() AS version');
    expect(a.names).toEqual(['user', 'timezone', 'version']);
    expect(a.rows).toEqual([[h.auth.username, ...want.rows[0]!]]);
  });

  it('clickhouse.clj cloud?: system.settings has no cloud_mode = 1, so no select_sequential_consistency', async () => {
    const sql = "SELECT value='1' FROM system.settings WHERE name='cloud_mode'";
    expect((await ask(statement(sql))).rows).toEqual((await oracle(sql)).rows);
  });

  it('sql_jdbc/connection.clj can-connect-with-spec?: SELECT 1 answers 1', async () => {
    const a = await ask(statement('SELECT 1'));
    expect(a).toEqual({ names: ['1'], types: ['UInt8'], rows: [[1]] });
  });

  it('clickhouse_version.clj the version query (a WITH table), clickhouse.clj db-default-timezone', async () => {
    const version = "WITH s AS (SELECT version() AS ver, splitByChar('.', ver) AS verSplit) SELECT s.ver, toInt32(verSplit[1]), toInt32(verSplit[2]) FROM s";
    const v = await ask(statement(version));
    expect(v).toEqual(await oracle(version));
    expect(v.types).toEqual(['String', 'Int32', 'Int32']);
    expect(await ask(statement('SELECT timezone() AS tz'))).toEqual(await oracle('SELECT timezone() AS tz'));
  });
});

describe('sync', () => {
  // clickhouse_introspection.clj describe-database -> get-tables-in-dbs: DatabaseMetaData.getTables(nil,
  // "analytics", "%", allowed-table-types), whose SQL is jdbc-v2 metadata/DatabaseMetaData.java getTables.
  it('describe-database: getTables lists the distributed tables under a type Metabase keeps', async () => {
    const types = ['TABLE', 'VIEW', 'FOREIGN TABLE', 'REMOTE TABLE', 'DICTIONARY', 'MATERIALIZED VIEW', 'MEMORY TABLE', 'LOG TABLE'];
    const sql =
      "SELECT '' AS TABLE_CAT, t.database AS TABLE_SCHEM, t.name AS TABLE_NAME, CASE WHEN t.engine LIKE '%Log' THEN 'LOG TABLE' " +
      "WHEN t.engine in ('Buffer', 'Memory', 'Set') THEN 'MEMORY TABLE' WHEN t.is_temporary != 0 THEN 'TEMPORARY TABLE' " +
      "WHEN t.engine like '%View' THEN 'VIEW'WHEN t.engine = 'Dictionary' THEN 'DICTIONARY' " +
      "WHEN t.engine LIKE 'Async%' OR t.engine LIKE 'System%' THEN 'SYSTEM TABLE' WHEN empty(t.data_paths) THEN 'REMOTE TABLE' " +
      "ELSE 'TABLE' END AS TABLE_TYPE, t.comment AS REMARKS, null AS TYPE_CAT, d.engine AS TYPE_SCHEM, null AS TYPE_NAME, " +
      'null AS SELF_REFERENCING_COL_NAME, null AS REF_GENERATION FROM system.tables t JOIN system.databases d ON system.tables.database = system.databases.name' +
      ` WHERE t.database LIKE '${DB}' AND t.name LIKE '%' AND TABLE_TYPE IN ('${types.join("','")}')`;
    const a = await ask(statement(sql));
    expect(a.names.slice(0, 4)).toEqual(['TABLE_CAT', 'TABLE_SCHEM', 'TABLE_NAME', 'TABLE_TYPE']);
    // A Distributed table keeps no data of its own here (no data paths are shown): a remote table.
    const tables = a.rows.map((r) => [r[1], r[2], r[3], r[4]]).sort();
    expect(tables).toEqual([
      [DB, 'events_dist', 'REMOTE TABLE', ''],
      [DB, 'metrics_dist', 'REMOTE TABLE', ''],
      [DB, 'readonly_dist', 'REMOTE TABLE', ''],
    ]);
    // clickhouse_introspection.clj tables-set keeps every one (no ".inner" names, not an excluded schema).
    for (const t of tables) expect(types).toContain(t[2]);
  });

  // Metabase's sql_jdbc/sync/describe_table.clj jdbc-fields-metadata: getColumns(nil, schema, table, nil)
  // (escape-entity-name-for-metadata leaves names as they are); jdbc-v2 DatabaseMetaData.java getColumns,
  // with JdbcUtils.generateSqlTypeSizes' long multiIf cut to entries of the same form.
  const getColumns = (table: string) =>
    "SELECT '' AS TABLE_CAT, database AS TABLE_SCHEM, table AS TABLE_NAME, name AS COLUMN_NAME, system.columns.type AS DATA_TYPE, type AS TYPE_NAME, " +
    "multiIf(character_octet_length IS NOT NULL, character_octet_length, system.columns.type == 'Int8', 1, system.columns.type == 'UInt64', 8, " +
    "system.columns.type == 'Date', 2, system.columns.type == 'UUID', 16, system.columns.type == 'IPv4', 4, numeric_precision IS NOT NULL, numeric_precision, 0) AS COLUMN_SIZE, " +
    'toInt32(0) AS BUFFER_LENGTH, IF (numeric_scale == 0, NULL, numeric_scale) as DECIMAL_DIGITS,  toInt32(numeric_precision_radix) AS NUM_PREC_RADIX, ' +
    "toInt32(position(type, 'Nullable(') >= 1 ?1 : 0) as NULLABLE, system.columns.comment AS REMARKS, system.columns.default_expression AS COLUMN_DEF, " +
    'toInt32(0) AS SQL_DATA_TYPE, toInt32(0) AS SQL_DATETIME_SUB, character_octet_length AS CHAR_OCTET_LENGTH, toInt32(system.columns.position) AS ORDINAL_POSITION, ' +
    "position(upper(type), 'NULLABLE') >= 1 ? 'YES' : 'NO' AS IS_NULLABLE,NULL AS SCOPE_CATALOG, NULL AS SCOPE_SCHEMA, NULL AS SCOPE_TABLE, NULL AS SOURCE_DATA_TYPE, " +
    "'NO' as IS_AUTOINCREMENT, 'NO' as IS_GENERATEDCOLUMN  FROM system.columns WHERE database LIKE '" +
    DB +
    `' AND table LIKE '${table}' AND name LIKE '%' ORDER BY TABLE_SCHEM, TABLE_NAME, ORDINAL_POSITION`;

  it.each(['events_dist', 'metrics_dist'])('describe-table %s: getColumns answers what the table itself answers', async (table) => {
    const a = await ask(statement(getColumns(table)));
    expect(a).toEqual(await oracle(getColumns(table)));
    // What describe-table keeps: the name and the database type, mapped by clickhouse_introspection.clj.
    expect(a.rows.map((r) => r[5])).toEqual(
      table === 'events_dist'
        ? ['String', 'UInt32', 'Float64', "DateTime('UTC')", 'Array(String)']
        : [
            'UInt64',
            'LowCardinality(String)',
            'Nullable(String)',
            'Date',
            'Decimal(12, 2)',
            "Enum8('a' = 1, 'b' = 2)",
            'IPv4',
            'UUID',
            "DateTime64(3, 'Europe/Amsterdam')",
            'Bool',
          ],
    );
  });

  // describe_table.clj get-table-pks (:sql-jdbc, which clickhouse_introspection.clj calls outside tests):
  // getPrimaryKeys(nil, schema, table); jdbc-v2 DatabaseMetaData.java getPrimaryKeys reads
  // system.tables.primary_key, which ClickHouse leaves empty for a Distributed table.
  it('describe-table: getPrimaryKeys finds none, as for a Distributed table', async () => {
    const sql =
      "SELECT NULL AS TABLE_CAT, system.tables.database AS TABLE_SCHEM, system.tables.name AS TABLE_NAME, trim(c.1) AS COLUMN_NAME, c.2 AS KEY_SEQ, 'PRIMARY' AS PK_NAME " +
      "FROM system.tables ARRAY JOIN arrayZip(splitByChar(',', primary_key), arrayEnumerate(splitByChar(',', primary_key))) as c " +
      `WHERE system.tables.primary_key <> '' AND system.tables.database ILIKE '${DB}' AND system.tables.name ILIKE 'events_dist' ORDER BY COLUMN_NAME`;
    const a = await ask(statement(sql));
    expect(a.names).toEqual(['TABLE_CAT', 'TABLE_SCHEM', 'TABLE_NAME', 'COLUMN_NAME', 'KEY_SEQ', 'PK_NAME']);
    expect(a.rows).toEqual([]);
  });

  // The fingerprinter's sample (driver/common/table_rows_sample.clj: an MBQL query of the fields with
  // :limit 10000, so max rows 10000), compiled as clickhouse_qp.clj quotes (:mysql style).
  it('fingerprint: the rows sample answers every row, as the oracle does', async () => {
    const cols = ['id', 'name', 'city', 'day', 'amount', 'kind', 'ip', 'uid', 'at', 'flag'];
    const sql = `SELECT ${cols.map((c) => `\`${DB}\`.\`metrics_dist\`.\`${c}\` AS \`${c}\``).join(', ')} FROM \`${DB}\`.\`metrics_dist\` LIMIT 10000`;
    const a = await ask(statement(remark() + sql, 10_000));
    const want = await oracle(sql);
    expect(a.types).toEqual(want.types);
    const byId = (rows: unknown[][]) => [...rows].sort((x, y) => Number(x[0]) - Number(y[0]));
    expect(byId(a.rows)).toEqual(byId(want.rows));
    expect(a.rows).toHaveLength(300);
  });

  // Field values (sync/field_values: a breakout on the field, :limit 1000): GROUP BY, ORDER BY ASC.
  it.each(['name', 'city', 'kind'])('field values of %s: the distinct values in order', async (col) => {
    const f = `\`${DB}\`.\`metrics_dist\`.\`${col}\``;
    const sql = `SELECT ${f} AS \`${col}\` FROM \`${DB}\`.\`metrics_dist\` GROUP BY ${f} ORDER BY ${f} ASC LIMIT 1000`;
    const a = await ask(statement(remark() + sql, 1000));
    expect(a).toEqual(await oracle(sql));
  });
});

describe('questions', () => {
  // clickhouse_qp.clj sql.qp/date: the truncations and extractions a breakout's temporal unit compiles to;
  // in-report-timezone wraps the column in toTimeZone when the report time zone differs from the column's.
  const UNITS: [string, (e: string) => string][] = [
    ['minute', (e) => `toStartOfMinute(${e})`],
    ['hour', (e) => `toStartOfHour(${e})`],
    ['day', (e) => `toStartOfDay(${e})`],
    ['week', (e) => `toMonday(${e})`],
    ['month', (e) => `toStartOfMonth(${e})`],
    ['quarter', (e) => `toStartOfQuarter(${e})`],
    ['year', (e) => `toStartOfYear(${e})`],
    ['hour-of-day', (e) => `toHour(${e})`],
    ['day-of-week', (e) => `toDayOfWeek(${e})`],
    ['day-of-month', (e) => `toDayOfMonth(${e})`],
    ['month-of-year', (e) => `toMonth(${e})`],
    ['week-of-year-iso', (e) => `toISOWeek(${e})`],
  ];
  const TS = `\`${DB}\`.\`events_dist\`.\`ts\``;
  const AT = `\`${DB}\`.\`metrics_dist\`.\`at\``;

  // A count by a temporal unit, as Metabase's sql query processor compiles a breakout with an
  // aggregation: the expression in SELECT, GROUP BY and ORDER BY ... ASC, max rows 10000 (max-results).
  // events.ts is a DateTime('UTC') over 8 days; metrics.at a DateTime64 in Amsterdam over 2.5 years.
  it.each(UNITS)('a count of rows by %s', async (_unit, fn) => {
    for (const [table, col, value] of [
      ['events_dist', TS, 'v'],
      ['events_dist', `toTimeZone(${TS}, 'Europe/Amsterdam')`, 'v'],
      ['metrics_dist', AT, 'id'],
      ['metrics_dist', `toTimeZone(${AT}, 'UTC')`, 'id'],
    ] as const) {
      const sql =
        `SELECT ${fn(col)} AS \`ts\`, count(*) AS \`count\`, sum(\`${DB}\`.\`${table}\`.\`${value}\`) AS \`sum\` FROM \`${DB}\`.\`${table}\` ` +
        `GROUP BY ${fn(col)} ORDER BY ${fn(col)} ASC`;
      const a = await ask(statement(remark(1) + sql, 10_000));
      expect(a, sql).toEqual(await oracle(sql));
      if (table === 'metrics_dist') expect(a.rows.length, sql).toBeGreaterThan(1);
    }
  });

  // clickhouse_qp.clj ->honeysql: :percentile as quantile(p)(x), :stddev stddevPop, :median, :var varPop,
  // :distinct as count(distinct); a date filter as parseDateTimeBestEffort with the report zone
  // (->honeysql LocalDateTime); a Text filter on a value as = or empty().
  it('aggregations Metabase compiles, under a date filter, by a Date column', async () => {
    const t = `\`${DB}\`.\`metrics_dist\``;
    const sql =
      `SELECT toStartOfMonth(${t}.\`day\`) AS \`day\`, ${t}.\`kind\` AS \`kind\`, count(*) AS \`count\`, count(distinct ${t}.\`name\`) AS \`count_2\`, ` +
      `sum(${t}.\`amount\`) AS \`sum\`, avg(${t}.\`id\`) AS \`avg\`, min(${t}.\`at\`) AS \`min\`, max(${t}.\`city\`) AS \`max\`, ` +
      `quantile(0.9)(${t}.\`id\`) AS \`percentile\`, stddevPop(${t}.\`id\`) AS \`stddev\`, median(${t}.\`id\`) AS \`median\`, varPop(${t}.\`id\`) AS \`var\` ` +
      `FROM ${t} WHERE (${t}.\`at\` >= parseDateTimeBestEffort('2024-03-31 00:00:00.000', 'Europe/Amsterdam')) ` +
      `AND (${t}.\`at\` < parseDateTimeBestEffort('2024-09-01 00:00:00.000', 'Europe/Amsterdam')) AND ((${t}.\`city\` = 'c-1') OR (empty(${t}.\`city\`) = 1) OR (${t}.\`city\` <> 'c-2')) ` +
      `GROUP BY toStartOfMonth(${t}.\`day\`), ${t}.\`kind\` ORDER BY toStartOfMonth(${t}.\`day\`) ASC, ${t}.\`kind\` ASC`;
    const a = await ask(statement(remark(1) + sql, 10_000));
    expect(a, sql).toEqual(await oracle(sql));
    expect(a.rows.length).toBeGreaterThan(1);
  });

  // A table of rows (no aggregation): query_processor/middleware/limit.clj add-default-limit adds
  // :limit 2000 (max-results-bare-rows) and setMaxRows the same.
  it('bare rows: the default limit of 2000, ordered', async () => {
    const t = `\`${DB}\`.\`events_dist\``;
    const sql = `SELECT ${t}.\`k\` AS \`k\`, ${t}.\`v\` AS \`v\`, ${t}.\`ts\` AS \`ts\`, ${t}.\`tags\` AS \`tags\` FROM ${t} ORDER BY ${t}.\`v\` ASC LIMIT 2000`;
    const a = await ask(statement(remark(1) + sql, 2000));
    expect(a).toEqual(await oracle(sql));
  });

  // Metabase keeps the first max rows (limit.clj limit-result-rows); ClickHouse's break mode stops
  // after the block that reaches max_result_rows, so the first rows are the ordered answer's.
  it('max_result_rows with break: the first rows are the ordered answer', async () => {
    const t = `\`${DB}\`.\`events_dist\``;
    const sql = `SELECT ${t}.\`v\` AS \`v\` FROM ${t} ORDER BY ${t}.\`v\` ASC`;
    const a = await ask(statement(remark(1) + sql, 50));
    const want = await oracle(sql);
    expect(a.rows.length).toBeGreaterThanOrEqual(50);
    expect(a.rows.slice(0, 50)).toEqual(want.rows.slice(0, 50));
  });

  // clickhouse.clj do-with-connection-with-options sets a report time zone as the connection's default
  // query settings with QuerySettings.setOption("session_timezone", tz): a raw option without the
  // clickhouse_setting_ prefix, which client-v2 0.8.4's addQueryParams does not send, and which
  // replaces ConnectionImpl's defaults. The request then carries no server setting but its max rows.
  it('with a report time zone: the request carries no session setting, and the question answers', async () => {
    const sql = `SELECT toStartOfDay(toTimeZone(${TS}, 'Asia/Tokyo')) AS \`ts\`, count(*) AS \`count\` FROM \`${DB}\`.\`events_dist\` GROUP BY toStartOfDay(toTimeZone(${TS}, 'Asia/Tokyo')) ORDER BY toStartOfDay(toTimeZone(${TS}, 'Asia/Tokyo')) ASC`;
    const q = statement(remark(1) + sql, 10_000);
    const a = await ask({ ...q, settings: q.settings!.filter(([k]) => k.startsWith('max_result') || k === 'result_overflow_mode') });
    expect(a).toEqual(await oracle(sql));
  });
});
