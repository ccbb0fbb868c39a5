// The ClickHouse interface's catalog and settings on a chdb shard (one engine process): the setting
// list is chdb's own, every setting ClickHouse knows meets its fate (never 115), system.settings'
// `readonly` says which ones the interface takes, `limit` / `offset` answer what ClickHouse's own
// settings answer, and the schema browsers' catalog queries (system.*, information_schema, SHOW
// CREATE TABLE, EXISTS DATABASE) see the distributed table and nothing of the shard's host.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTopology } from '../../../shared/core/config/load.js';
import { handleClickHouseHttp, type ChHttpDeps } from '../../../shared/core/clickhouse-http/handle.js';
import { parseChRequest } from '../../../shared/core/clickhouse-http/request.js';
import { toChException } from '../../../shared/core/clickhouse-http/exception.js';
import { CLICKHOUSE_SETTINGS } from '../../../shared/core/clickhouse/known-settings.js';
import { spawnEngine, type EngineProcess } from '../../support/engine-process/engine-process.js';

let dir: string;
let engine: EngineProcess;
let deps: ChHttpDeps;

const topo = parseTopology({
  cluster: 'iface',
  shards: [{ replicas: [{ url: 'http://x:8123' }] }],
  tables: { 'analytics.events_dist': { local: 'analytics.events', shardingKey: { column: 'k', type: 'String', function: 'xxHash64' } } },
});

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'catalog-iface-'));
  engine = await spawnEngine({ path: dir });
  await engine.exec('CREATE DATABASE IF NOT EXISTS analytics');
  await engine.exec("CREATE TABLE analytics.events (k String, v UInt32 DEFAULT 3 COMMENT 'a (note)', ts DateTime('UTC')) ENGINE = MergeTree ORDER BY k");
  await engine.exec("INSERT INTO analytics.events SELECT toString(number % 7), number, toDateTime('2024-01-01 00:00:00', 'UTC') FROM numbers(100)");
  // The shard runs catalog reads as the shard function does: readonly=2.
  deps = { topo, raw: (sql, o) => engine.queryRaw(sql, { format: o.format, settings: { readonly: 2, ...o.settings } }) };
}, 60_000);
afterAll(async () => {
  await engine?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function ask(sql: string, query: Record<string, string> = {}) {
  const r = await handleClickHouseHttp({ method: 'POST', path: '/', query: new URLSearchParams(query), headers: {}, body: Buffer.from(sql) }, deps);
  return { status: r.status, text: r.body.toString('utf8'), headers: r.headers };
}
const rows = (text: string) =>
  text
    .split('\n')
    .filter((l) => l)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
const codeOf = (query: Record<string, string>) => {
  try {
    parseChRequest({ method: 'POST', path: '/', query: new URLSearchParams(query), headers: {}, body: Buffer.from('SELECT 1') });
    return undefined;
  } catch (e) {
    return toChException(e).code;
  }
};

describe('settings as ClickHouse takes them', () => {
  it('the committed list is chdb system.settings (scripts/gen-clickhouse-settings.mjs)', async () => {
    const names = rows((await engine.queryRaw('SELECT name FROM system.settings ORDER BY name', { format: 'JSONEachRow' })).bytes.toString()).map(
      (r) => r.name,
    );
    expect([...CLICKHOUSE_SETTINGS]).toEqual(names);
  });

  it('no setting ClickHouse knows is 115; an unknown one is', () => {
    for (const name of CLICKHOUSE_SETTINGS) expect(codeOf({ [name]: '1' }), name).not.toBe(115);
    expect(codeOf({ no_such_setting: '1' })).toBe(115);
    expect(codeOf({ cast_string_to_dynamic_use_inference: '1' })).toBe(452);
    expect(codeOf({ allow_ddl: '1' })).toBe(164);
    expect(codeOf({ add_http_cors_header: '1', log_comment: 'x', date_time_input_format: 'best_effort', send_logs_level: 'trace' })).toBeUndefined();
  });

  it("system.settings' readonly is 0 exactly for the settings a request may send", async () => {
    const r = await ask('SELECT name, value, readonly FROM system.settings LIMIT 10000 FORMAT JSONEachRow');
    expect(r.status, r.text).toBe(200);
    const all = rows(r.text) as { name: string; readonly: number }[];
    expect(all.length).toBe(CLICKHOUSE_SETTINGS.length);
    const ro = new Map(all.map((x) => [x.name, x.readonly]));
    // clickhouse-connect sends these two when readonly = 0 (driver/_backend/orchestration.py init_sequence).
    expect(ro.get('cast_string_to_dynamic_use_inference')).toBe(1);
    expect(ro.get('date_time_input_format')).toBe(0);
    expect([ro.get('max_threads'), ro.get('limit'), ro.get('readonly'), ro.get('allow_ddl'), ro.get('format_schema')]).toEqual([0, 0, 0, 1, 1]);
    // A value each setting takes ('0' is a number, a bool, and refused only by its fate).
    for (const { name, readonly } of all) {
      if (name === 'readonly') continue; // 0 is refused: it would lift read-only mode
      const code = codeOf({ [name]: name.endsWith('_mode') || name.includes('format') ? 'throw' : '1' });
      if (readonly === 1) expect([164, 452, 497], name).toContain(code);
      else expect([undefined, 36, 72], name).toContain(code);
    }
  });

  it('limit and offset answer what ClickHouse answers with the same settings', async () => {
    const count = fc.option(fc.nat(40), { nil: undefined });
    await fc.assert(
      fc.asyncProperty(count, count, fc.nat(20), fc.nat(20), async (ownLimit, ownOffset, limit, offset) => {
        const clause = ownLimit === undefined ? '' : ` LIMIT ${ownLimit}${ownOffset !== undefined ? ` OFFSET ${ownOffset}` : ''}`;
        const sql = `SELECT number FROM system.numbers WHERE number < 30 ORDER BY number${clause}`;
        const mine = await ask(`${sql} FORMAT TSV`, { limit: String(limit), offset: String(offset) });
        expect(mine.status, mine.text).toBe(200);
        const theirs = await engine.queryRaw(`${sql} SETTINGS limit = ${limit}, offset = ${offset}`, { format: 'TSV' });
        expect(mine.text).toBe(theirs.bytes.toString());
      }),
      { numRuns: 40 },
    );
  });
});

describe('the catalog schema browsers read', () => {
  it('system.tables: the distributed table, its Distributed DDL, no host paths', async () => {
    const r = await ask(
      "SELECT database, name, engine, engine_full, create_table_query, data_paths, metadata_path FROM system.tables WHERE database = 'analytics' FORMAT JSONEachRow",
    );
    expect(r.status, r.text).toBe(200);
    expect(rows(r.text)).toEqual([
      {
        database: 'analytics',
        name: 'events_dist',
        engine: 'Distributed',
        engine_full: "Distributed('iface', 'analytics', 'events', xxHash64(k))",
        create_table_query:
          "CREATE TABLE analytics.events_dist (`k` String, `v` UInt32 DEFAULT 3 COMMENT 'a (note)', `ts` DateTime('UTC')) ENGINE = Distributed('iface', 'analytics', 'events', xxHash64(k))",
        data_paths: [],
        metadata_path: '',
      },
    ]);
    expect(r.text).not.toContain(dir);
  });

  it("system.tables: the keys are a Distributed table's (none), not the local MergeTree's", async () => {
    const r = await ask("SELECT primary_key, sorting_key, partition_key, sampling_key FROM system.tables WHERE name = 'events_dist' FORMAT JSONEachRow");
    expect(rows(r.text)).toEqual([{ primary_key: '', sorting_key: '', partition_key: '', sampling_key: '' }]);
    const local = await engine.queryRaw("SELECT primary_key FROM system.tables WHERE database = 'analytics' AND name = 'events'", { format: 'TSV' });
    expect(local.bytes.toString()).toBe('k\n');
  });

  it('a WITH subquery named in FROM reads what it reads: a catalog query', async () => {
    // metabase-clickhouse-driver src/metabase/driver/clickhouse_version.clj clickhouse-version-query.
    const sql = "WITH s AS (SELECT version() AS ver, splitByChar('.', ver) AS verSplit) SELECT s.ver, toInt32(verSplit[1]) FROM s FORMAT TSV";
    const r = await ask(sql);
    const v = (await engine.queryRaw('SELECT version()', { format: 'TSV' })).bytes.toString().trim();
    expect([r.status, r.text]).toEqual([200, `${v}\t${v.split('.')[0]}\n`]);
    const over = await ask("WITH s AS (SELECT name FROM system.tables WHERE database = 'analytics') SELECT count() FROM s FORMAT TSV");
    expect(over.text).toBe('1\n');
  });

  it('SHOW CREATE TABLE is the Distributed DDL; EXISTS DATABASE', async () => {
    const r = await ask('SHOW CREATE TABLE analytics.events_dist FORMAT JSONEachRow');
    expect(rows(r.text)[0]!.statement).toMatch(/^CREATE TABLE analytics\.events_dist \(`k` String, .*\) ENGINE = Distributed\('iface'/);
    expect((await ask('SHOW CREATE TABLE analytics.nope')).headers['x-clickhouse-exception-code']).toBe('390');
    expect((await ask('EXISTS DATABASE analytics')).text).toBe('1\n');
    expect((await ask('EXISTS DATABASE nope')).text).toBe('0\n');
  });

  it('system.databases: the configured databases, no paths', async () => {
    const r = await ask('SELECT name, data_path, metadata_path FROM system.databases FORMAT JSONEachRow');
    expect(rows(r.text)).toEqual([{ name: 'analytics', data_path: '', metadata_path: '' }]);
  });

  it('information_schema in both cases, as ClickHouse defines it, over the distributed tables', async () => {
    const t = await ask("SELECT table_schema, table_name, table_type FROM information_schema.tables WHERE table_schema = 'analytics' FORMAT JSONEachRow");
    expect(t.status, t.text).toBe(200);
    expect(rows(t.text)).toEqual([{ table_schema: 'analytics', table_name: 'events_dist', table_type: 'BASE TABLE' }]);
    const c = await ask('SELECT TABLE_NAME, COLUMN_NAME, DATA_TYPE FROM INFORMATION_SCHEMA.COLUMNS ORDER BY ORDINAL_POSITION FORMAT JSONEachRow');
    expect(rows(c.text).map((x) => x.COLUMN_NAME)).toEqual(['k', 'v', 'ts']);
    expect(rows(c.text)[0]).toEqual({ TABLE_NAME: 'events_dist', COLUMN_NAME: 'k', DATA_TYPE: 'String' });
    expect((await ask('SELECT schema_name FROM information_schema.schemata')).text).toBe('analytics\n');
    expect((await ask('SELECT count() FROM information_schema.views')).text).toBe('0\n');
    expect((await ask('SELECT 1 FROM information_schema.engines')).headers['x-clickhouse-exception-code']).toBe('60');
  });

  it('currentUser(), database() and version() in a catalog query', async () => {
    const r = await ask('SELECT database(), currentUser(), version() = (SELECT version()) FORMAT TSV', { database: 'analytics' });
    expect(r.text).toBe('analytics\tdefault\t1\n');
  });

  it('a query over constant tables only runs on one engine, within the row cap', async () => {
    const r = await ask("SELECT count(), sum(number) FROM numbers(5, 10) WHERE number IN (SELECT x FROM values('x UInt64', 6, 7)) FORMAT TSV");
    expect(r.text).toBe('2\t13\n');
    const big = await ask('SELECT count() FROM numbers(1000000000000) FORMAT TSV');
    expect(big.status).toBe(500); // ClickHouse's status for 396
    expect(big.headers['x-clickhouse-exception-code']).toBe('396');
    expect(big.text).toMatch(/numbers\(\) would generate 1000000000000 rows.*line 1, col/);
    const file = await ask("SELECT count() FROM file('/etc/passwd') FORMAT TSV");
    expect(file.status).toBeGreaterThanOrEqual(400);
    expect(file.text).not.toMatch(/root:/);
  });

  it("generateRandom() with a seed runs on one engine: the engine's own bytes", async () => {
    const sql = "SELECT * FROM generateRandom('a UInt32, s String, f Float64, d Nullable(Date), xs Array(Int8)', 11, 8, 3) LIMIT 20";
    const want = (await engine.queryRaw(sql, { format: 'TabSeparated', settings: { readonly: 2 } })).bytes.toString('utf8');
    const r = await ask(`${sql} FORMAT TabSeparated`);
    expect(r.status).toBe(200);
    expect(r.text).toBe(want);
    expect(r.text.split('\n').filter((l) => l)).toHaveLength(20);
    // Without a seed (or with NULL) the coordinator draws one: answered, as ClickHouse answers it.
    for (const unseeded of ["SELECT * FROM generateRandom('a UInt8') LIMIT 3", "SELECT * FROM generateRandom('a UInt8', NULL, 5) LIMIT 3"]) {
      const u = await ask(`${unseeded} FORMAT TabSeparated`);
      expect(u.status, u.text).toBe(200);
      expect(
        u.text.split('\n').filter((l) => l),
        unseeded,
      ).toHaveLength(3);
    }
    for (const [bad, why] of [
      ["SELECT count() FROM generateRandom('a UInt8', 1)", /no end/],
      ["SELECT * FROM generateRandom('a UInt8 DEFAULT 1', 1) LIMIT 3", /literal structure/],
    ] as const) {
      const e = await ask(`${bad} FORMAT TabSeparated`);
      expect(e.status, bad).toBeGreaterThanOrEqual(400);
      expect(e.text, bad).toMatch(why);
    }
  });

  it('a bare UNION takes union_default_mode here too (558 without it, as ClickHouse 26)', async () => {
    const none = await ask('SELECT 1 UNION SELECT 1 FORMAT TabSeparated');
    expect(none.headers['x-clickhouse-exception-code']).toBe('558');
    expect(none.text).toMatch(/Expected ALL or DISTINCT in SelectWithUnion query/);
    expect((await ask('SELECT 1 UNION SELECT 1 FORMAT TabSeparated', { union_default_mode: 'ALL' })).text).toBe('1\n1\n');
    expect((await ask('SELECT 1 UNION SELECT 1 FORMAT TabSeparated', { union_default_mode: 'DISTINCT' })).text).toBe('1\n');
  });
});

// The catalog requests the drivers send, copied from their sources (the file named on each), with
// the catalog placeholders and prepared-statement values as the driver fills them in. Long generated
// lists (JDBC's engine and type tables) are cut to a few entries of the same form.
describe('driver catalog replays', () => {
  const json = async (sql: string, query: Record<string, string> = {}) => {
    const r = await ask(`${sql} FORMAT JSONEachRow`, query);
    expect(r.status, `${sql}\n${r.text}`).toBe(200);
    return rows(r.text);
  };

  // clickhouse-java jdbc-v2/src/main/java/com/clickhouse/jdbc/metadata/DatabaseMetaDataImpl.java
  it('JDBC v2 getSchemas, getTables (system.tables t JOIN system.databases d ON system.tables.database = ...)', async () => {
    expect(await json("SELECT name AS TABLE_SCHEM, '' AS TABLE_CATALOG FROM system.databases ORDER BY name")).toEqual([
      { TABLE_SCHEM: 'analytics', TABLE_CATALOG: '' },
    ]);
    const tables = await json(
      "SELECT '' AS TABLE_CAT, t.database AS TABLE_SCHEM, t.name AS TABLE_NAME, if(t.is_temporary = 1, concat('Temporary', t.engine), t.engine) AS TABLE_TYPE, " +
        't.comment AS REMARKS, CAST(null as Nullable(String)) AS TYPE_CAT, d.engine AS TYPE_SCHEM, CAST(null as Nullable(String)) AS TYPE_NAME, ' +
        'CAST(null as Nullable(String)) AS SELF_REFERENCING_COL_NAME, CAST(null as Nullable(String)) AS REF_GENERATION' +
        ' FROM system.tables t JOIN system.databases d ON system.tables.database = system.databases.name' +
        " WHERE t.database LIKE '%' AND t.name LIKE '%'" +
        " AND ( (t.engine IN ('Distributed','MergeTree')) OR (t.engine NOT IN ('Log','Memory','Distributed','MergeTree') AND NOT t.engine LIKE 'System%' AND NOT t.engine LIKE 'Async%' AND t.is_temporary = 0)) AND (t.is_temporary = 0)",
    );
    expect(tables).toHaveLength(1);
    expect(tables[0]).toMatchObject({ TABLE_SCHEM: 'analytics', TABLE_NAME: 'events_dist', TABLE_TYPE: 'Distributed', TYPE_CAT: null });
  });

  it('JDBC v2 getColumns (system.columns.type, system.columns.position)', async () => {
    const sizes =
      "multiIf(character_octet_length IS NOT NULL, character_octet_length, system.columns.type == 'UInt32', 4, system.columns.type == 'DateTime', 4, numeric_precision IS NOT NULL, numeric_precision, 0)";
    const cols = await json(
      `SELECT '' AS TABLE_CAT, database AS TABLE_SCHEM, table AS TABLE_NAME, name AS COLUMN_NAME, toInt32(1111) AS DATA_TYPE, type AS TYPE_NAME, toInt32(${sizes}) AS COLUMN_SIZE, ` +
        'toInt32(0) AS BUFFER_LENGTH, toInt32(IF (numeric_scale == 0, NULL, numeric_scale)) as DECIMAL_DIGITS,  toInt32(numeric_precision_radix) AS NUM_PREC_RADIX, ' +
        "toInt32(position(type, 'Nullable(') >= 1 ?1 : 0) as NULLABLE, system.columns.comment AS REMARKS, system.columns.default_expression AS COLUMN_DEF, " +
        'toInt32(0) AS SQL_DATA_TYPE, toInt32(0) AS SQL_DATETIME_SUB, character_octet_length::Nullable(Int32) AS CHAR_OCTET_LENGTH, toInt32(system.columns.position) AS ORDINAL_POSITION, ' +
        "position(upper(type), 'NULLABLE') >= 1 ? 'YES' : 'NO' AS IS_NULLABLE,CAST(NULL as Nullable(String)) AS SCOPE_CATALOG, CAST(NULL as Nullable(String)) AS SCOPE_SCHEMA, " +
        "CAST(NULL as Nullable(String)) AS SCOPE_TABLE, CAST(NULL as Nullable(Int16)) AS SOURCE_DATA_TYPE, 'NO' as IS_AUTOINCREMENT, 'NO' as IS_GENERATEDCOLUMN " +
        " FROM system.columns WHERE database LIKE 'analytics' AND table LIKE 'events\\_dist' AND name LIKE '%' ORDER BY TABLE_SCHEM, TABLE_NAME, ORDINAL_POSITION",
    );
    expect(cols.map((c) => [c.COLUMN_NAME, c.TYPE_NAME, c.COLUMN_SIZE, c.ORDINAL_POSITION, c.COLUMN_DEF, c.REMARKS])).toEqual([
      ['k', 'String', 0, 1, '', ''],
      ['v', 'UInt32', 4, 2, '3', 'a (note)'],
      ['ts', "DateTime('UTC')", 0, 3, '', ''],
    ]);
  });

  it('JDBC v2 getTypeInfo (system.data_type_families joined with a VALUES table)', async () => {
    const types = await json(
      'SELECT name AS TYPE_NAME, CAST(0 as Int32) AS DATA_TYPE, CAST(attrs.c2 AS Nullable(Int32)) AS PRECISION, CAST(NULL as Nullable(String)) AS LITERAL_PREFIX, ' +
        'CAST(NULL as Nullable(String)) AS LITERAL_SUFFIX, CAST(NULL as Nullable(String)) AS CREATE_PARAMS, CAST(0 AS Int16) AS NULLABLE, ' +
        'CAST(not(dt.case_insensitive) AS Boolean) AS CASE_SENSITIVE, 3::Int16 AS SEARCHABLE, CAST( not(attrs.c3) AS Boolean) AS UNSIGNED_ATTRIBUTE, ' +
        'false AS FIXED_PREC_SCALE, false AS AUTO_INCREMENT, if(empty(alias_to), name, alias_to) AS LOCAL_TYPE_NAME, CAST(attrs.c4 AS Nullable(Int16)) AS MINIMUM_SCALE, ' +
        'CAST(attrs.c5 AS Nullable(Int16)) AS MAXIMUM_SCALE, CAST(0 AS Nullable(Int32)) AS SQL_DATA_TYPE, CAST(0 AS Nullable(Int32)) AS SQL_DATETIME_SUB, ' +
        "CAST(0 AS Nullable(Int32)) AS NUM_PREC_RADIX FROM system.data_type_families dt  LEFT JOIN (SELECT * FROM VALUES ( ('UInt8',3,false,0,0),('Int32',10,true,0,0),('String',0,false,0,0)) ) as attrs ON (dt.name = attrs.c1) WHERE alias_to == ''  ORDER BY name",
    );
    const byName = new Map(types.map((t) => [t.TYPE_NAME, t]));
    expect(byName.get('Int32')).toMatchObject({ PRECISION: 10, UNSIGNED_ATTRIBUTE: false });
    expect(byName.get('UInt8')).toMatchObject({ PRECISION: 3, UNSIGNED_ATTRIBUTE: true });
    expect(types.length).toBeGreaterThan(30);
  });

  // DBeaver's DDL tab asks the JDBC driver for SHOW CREATE TABLE with quoted names.
  it('DBeaver DDL tab: SHOW CREATE TABLE `db`.`table`', async () => {
    const [row] = await json('SHOW CREATE TABLE `analytics`.`events_dist`');
    expect(row!.statement).toMatch(/ENGINE = Distributed\('iface', 'analytics', 'events', xxHash64\(k\)\)$/);
  });

  // clickhouse-connect clickhouse_connect/driver/_backend/orchestration.py (init_sequence),
  // clickhouse_connect/cc_sqlalchemy/dialect.py and inspector.py (the SQLAlchemy inspector).
  it('clickhouse-connect: connect, then the SQLAlchemy inspector', async () => {
    expect(await json('SELECT version(), timezone()')).toHaveLength(1);
    const settings = await json('SELECT name, value, readonly FROM system.settings LIMIT 10000');
    const status = new Map(settings.map((x) => [x.name, x.readonly]));
    // What init_sequence then sends: date_time_input_format (readonly 0), never cast_string_to_dynamic_use_inference (readonly 1).
    expect([status.get('date_time_input_format'), status.get('cast_string_to_dynamic_use_inference')]).toEqual([0, 1]);
    const q = { date_time_input_format: 'best_effort' };
    expect(await json('SELECT currentDatabase()', q)).toEqual([{ 'currentDatabase()': 'default' }]);
    expect(await json('SHOW DATABASES', q)).toEqual([{ name: 'analytics' }]);
    expect(await json('EXISTS DATABASE `analytics`', q)).toEqual([{ result: 1 }]);
    expect(await json('SHOW TABLES FROM `analytics`', q)).toEqual([{ name: 'events_dist' }]);
    expect(await json('EXISTS TABLE `analytics`.`events_dist`', q)).toEqual([{ result: 1 }]);
    expect((await json('DESCRIBE TABLE `analytics`.`events_dist`', q)).map((c) => [c.name, c.type, c.default_type])).toEqual([
      ['k', 'String', ''],
      ['v', 'UInt32', 'DEFAULT'],
      ['ts', "DateTime('UTC')", ''],
    ]);
    expect(await json("SELECT engine, engine_full, comment FROM system.tables WHERE database = 'analytics' AND name = 'events_dist'", q)).toEqual([
      { engine: 'Distributed', engine_full: "Distributed('iface', 'analytics', 'events', xxHash64(k))", comment: '' },
    ]);
  });

  // grafana/clickhouse-datasource src/data/CHDatasource.ts (the query editor's schema lookups).
  it("Grafana's schema queries", async () => {
    expect(await json('SHOW DATABASES')).toEqual([{ name: 'analytics' }]);
    expect(await json('SHOW TABLES FROM "analytics"')).toEqual([{ name: 'events_dist' }]);
    expect((await json('DESC TABLE "analytics"."events_dist"')).map((c) => c.name)).toEqual(['k', 'v', 'ts']);
    expect(await json("SELECT name, type, table FROM system.columns WHERE database = 'analytics' AND table = 'events_dist'")).toEqual([
      { name: 'k', type: 'String', table: 'events_dist' },
      { name: 'v', type: 'UInt32', table: 'events_dist' },
      { name: 'ts', type: "DateTime('UTC')", table: 'events_dist' },
    ]);
    expect(await json('SELECT version()')).toHaveLength(1);
  });
});
