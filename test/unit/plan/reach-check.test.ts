// The reach check alone, on parsed trees: which tables, functions, settings and formats a text may
// name, at every position and depth, and the position it reports. A property nests a forbidden read
// under any stack of SQL-bearing positions: it is always found, at its own line and column.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseSelect } from '../../../shared/core/sql/parse.js';
import { ScatterError } from '../../../shared/core/errors.js';
import { checkReach, FINAL_STAGE_REACH, shardReach, type Reach } from '../../../shared/core/plan/reach-check.js';
import { checkEngineOptions } from '../../../shared/core/plan/file-access.js';
import { FILE_FORMATS, isFileFormat, isFileSetting } from '../../../shared/core/clickhouse/file-names.js';
import { parseTopology } from '../../../shared/core/config/load.js';

const topo = parseTopology({
  cluster: 'c',
  shards: [{ replicas: [{ url: 'http://x:8123' }] }],
  tables: { 'db.t_dist': { local: 'db.t', shardingKey: { column: 'k', type: 'String', function: 'xxHash64' } } },
});
const SHARD = shardReach(topo);

function refusal(sql: string, reach: Reach): ScatterError | undefined {
  try {
    checkReach(parseSelect(sql), reach);
    return undefined;
  } catch (e) {
    if (!(e instanceof ScatterError)) throw e;
    return e;
  }
}

describe("checkReach: a request's external data", () => {
  const withIds = shardReach(topo, new Set(['ids']));
  it.each([
    ['SELECT k FROM db.t WHERE k IN (SELECT * FROM ids)', SHARD, 'ids'],
    ['SELECT k FROM db.t JOIN ids USING k', SHARD, 'ids'],
    ['SELECT k FROM db.t JOIN other USING k', withIds, 'other'],
    ['SELECT k FROM db.t WHERE k IN (SELECT * FROM default.ids)', withIds, 'default.ids'],
    ['SELECT k FROM db.t WHERE k IN (SELECT 1 FROM (SELECT * FROM idsx))', withIds, 'idsx'],
  ])('%s: refused, naming %s', (sql, reach, name) => {
    expect(refusal(sql, reach)?.message).toContain(`unknown table ${name}`);
  });
  it.each([
    'SELECT k FROM db.t WHERE k IN (SELECT * FROM ids)',
    'SELECT k FROM db.t AS a JOIN ids AS b USING k',
    'SELECT k FROM db.t WHERE k IN ids',
    'SELECT (SELECT count() FROM ids) FROM db.t',
  ])('exactly the declared names may be read: %s', (sql) => {
    expect(refusal(sql, withIds)).toBeUndefined();
    expect(refusal(sql, FINAL_STAGE_REACH)).toBeDefined();
    expect(refusal(sql.replace('FROM db.t', 'FROM _stage0'), { ...FINAL_STAGE_REACH, external: new Set(['ids']) })).toBeUndefined();
  });
});

describe('checkReach: tables', () => {
  it.each([
    'SELECT k FROM db.t',
    'SELECT k FROM db.t WHERE k IN _data_123',
    'SELECT k FROM db.t AS a JOIN _data_9 AS b USING k',
    'SELECT 1 FROM system.one',
    'SELECT (SELECT 1), k FROM db.t',
    'SELECT k FROM db.t WHERE k IN (SELECT 1)',
    'WITH (1, 2) AS s SELECT k FROM db.t WHERE k IN s',
    'SELECT k AS x FROM db.t WHERE k IN x',
  ])('a shard query may run %s', (sql) => {
    expect(refusal(sql, SHARD)).toBeUndefined();
  });

  it.each([
    ['SELECT k FROM db.t_dist', 'db.t_dist'],
    ['SELECT k FROM t', 't'],
    ['SELECT k FROM db.t AS a CROSS JOIN default.secret AS b', 'default.secret'],
    ['SELECT k FROM db.t WHERE k IN system.numbers', 'system.numbers'],
    ['SELECT k, (SELECT groupArray(query) FROM system.processes) FROM db.t', 'system.processes'],
    ['SELECT * FROM (SELECT (SELECT groupArray(name) FROM system.tables) AS t)', 'system.tables'],
    ['SELECT k FROM db.t WINDOW w AS (ORDER BY (SELECT count() FROM default.s))', 'default.s'],
    ['SELECT k FROM db.t ORDER BY (SELECT count() FROM default.s)', 'default.s'],
    ['SELECT k FROM db.t GROUP BY k HAVING count() > (SELECT count() FROM default.s)', 'default.s'],
    ['SELECT k FROM db.t UNION ALL SELECT toString((SELECT count() FROM default.s))', 'default.s'],
    ['SELECT k FROM db.t AS a LEFT JOIN (SELECT (SELECT count() FROM default.s) AS n) AS b ON 1 = 1', 'default.s'],
    ['SELECT arrayMap(x -> (SELECT count() FROM default.s), [1]) FROM db.t', 'default.s'],
    ['SELECT k FROM db.t LIMIT 1 BY (SELECT count() FROM default.s)', 'default.s'],
    ['SELECT k FROM db.t WHERE k IN db.t.c', 'db.t.c'],
    ['SELECT k FROM _stage0', '_stage0'],
  ])('a shard query may not run %s: UNKNOWN_TABLE at the table', (sql, name) => {
    const e = refusal(sql, SHARD);
    expect(e?.code).toBe('UNKNOWN_TABLE');
    expect(e?.message).toContain(`unknown table ${name}`);
    // The position is where the name starts.
    const at = sql.split('\n')[0]!.indexOf(name) + 1;
    expect(e?.position).toEqual({ line: 1, column: at });
  });

  it('the final stage reads its stage tables and shipped data, nothing configured', () => {
    expect(refusal('SELECT * FROM _stage0 AS a JOIN _stage1 AS b USING k WHERE k IN _data_7', FINAL_STAGE_REACH)).toBeUndefined();
    expect(refusal('SELECT c, (SELECT count() FROM db.t) FROM _stage0', FINAL_STAGE_REACH)?.code).toBe('UNKNOWN_TABLE');
    expect(refusal('SELECT c FROM _stage0 CROSS JOIN _stagex', FINAL_STAGE_REACH)?.code).toBe('UNKNOWN_TABLE');
  });

  it('a CTE name is the CTE, not a table; its body is checked', () => {
    expect(refusal('WITH a AS (SELECT k FROM db.t) SELECT * FROM a', SHARD)).toBeUndefined();
    expect(refusal('WITH a AS (SELECT k FROM default.s) SELECT * FROM a', SHARD)?.code).toBe('UNKNOWN_TABLE');
  });

  it('table functions are refused, but for constant ones of bounded size', () => {
    expect(refusal("SELECT * FROM remote('x', db.t)", SHARD)?.code).toBe('UNSUPPORTED');
    expect(refusal("SELECT * FROM generateRandom('a UInt8', 1)", SHARD)?.code).toBe('UNSUPPORTED');
    // generateRandom(): a seed, a literal structure and lengths, read up to a literal LIMIT within the cap.
    for (const sql of [
      "SELECT k FROM db.t WHERE k IN (SELECT toString(a) FROM generateRandom('a UInt8', 1) LIMIT 10)",
      "SELECT k FROM db.t AS x JOIN (SELECT a FROM generateRandom('a Nullable(String), b Array(Tuple(x UInt8, y String))', 5, 100, 1000) LIMIT 3, 999997) AS r ON 1",
      "SELECT k, (SELECT sum(a) FROM (SELECT a FROM generateRandom('a UInt16', 0) LIMIT 5)) FROM db.t",
    ])
      expect(refusal(sql, SHARD), sql).toBeUndefined();
    for (const [sql, why] of [
      ["SELECT k FROM db.t WHERE k IN (SELECT a FROM generateRandom('a UInt8') LIMIT 10)", /without a seed/],
      ["SELECT k FROM db.t WHERE k IN (SELECT a FROM generateRandom('a UInt8', NULL) LIMIT 10)", /without a seed/],
      ["SELECT k FROM db.t WHERE k IN (SELECT a FROM generateRandom('a UInt8', rand()) LIMIT 10)", /seed/],
      ["SELECT k FROM db.t WHERE k IN (SELECT a FROM generateRandom('a UInt8', 1))", /no end/],
      ["SELECT k FROM db.t WHERE k IN (SELECT a FROM generateRandom('a UInt8', 1) WHERE a > 300 LIMIT 1)", /no end/],
      ["SELECT k FROM db.t WHERE k IN (SELECT max(a) FROM generateRandom('a UInt8', 1) LIMIT 1)", /no end/],
      ["SELECT k FROM db.t WHERE k IN (SELECT a FROM generateRandom('a UInt8', 1) ORDER BY a LIMIT 1)", /no end/],
      ["SELECT k FROM db.t AS x JOIN generateRandom('a UInt8', 1) AS r ON 1", /no end/],
      ["SELECT k FROM db.t WHERE k IN (SELECT a FROM generateRandom('a UInt8', 1) LIMIT toUInt64(5))", /no end/],
      ["SELECT k FROM db.t WHERE k IN (SELECT a FROM generateRandom('a UInt8 DEFAULT 1', 1) LIMIT 5)", /literal structure/],
      ["SELECT k FROM db.t WHERE k IN (SELECT a FROM generateRandom('a String ALIAS version()', 1) LIMIT 5)", /literal structure/],
      ["SELECT k FROM db.t WHERE k IN (SELECT a FROM generateRandom('a UInt8', 1, 1001) LIMIT 5)", /at most 1000/],
    ] as const) {
      const e = refusal(sql, SHARD);
      expect(e?.code, sql).toBe('UNSUPPORTED');
      expect(e?.message, sql).toMatch(why);
      expect(e?.position, sql).toBeDefined();
    }
    expect(refusal("SELECT k FROM db.t WHERE k IN (SELECT a FROM generateRandom('a UInt8', 1) LIMIT 999999, 2)", SHARD)?.code).toBe('TOO_LARGE');
    for (const sql of [
      'SELECT k FROM db.t WHERE k IN (SELECT toString(number) FROM numbers(1000000))',
      'SELECT k FROM db.t AS a JOIN (SELECT number FROM numbers(5, 10)) AS b ON 1',
      'SELECT k, (SELECT count() FROM zeros(3)) FROM db.t',
      "SELECT k FROM db.t WHERE k IN (SELECT x FROM values('x String', 'a', 'b'))",
      'SELECT k FROM db.t WHERE k IN (SELECT toString(number) FROM numbers(0, 10000000, 10))',
    ])
      expect(refusal(sql, SHARD), sql).toBeUndefined();
    for (const [sql, code] of [
      ['SELECT k FROM db.t WHERE k IN (SELECT toString(number) FROM numbers(1000001))', 'TOO_LARGE'],
      ['SELECT k FROM db.t WHERE k IN (SELECT toString(number) FROM numbers(1, 1000000000000))', 'TOO_LARGE'],
      ['SELECT k, (SELECT count() FROM zeros_mt(99999999999)) FROM db.t', 'TOO_LARGE'],
      ['SELECT k FROM db.t WHERE k IN (SELECT toString(number) FROM numbers(1e12))', 'UNSUPPORTED'],
      ['SELECT k FROM db.t WHERE k IN (SELECT toString(number) FROM numbers(toUInt64(1) * 1000000000000))', 'UNSUPPORTED'],
      ['SELECT k FROM db.t WHERE k IN (SELECT toString(number) FROM numbers(0, 10, 0))', 'UNSUPPORTED'],
      ['SELECT k FROM db.t WHERE k IN (SELECT toString(number) FROM numbers((SELECT count() FROM db.t)))', 'UNSUPPORTED'],
      ["SELECT k FROM db.t WHERE k IN (SELECT x FROM values('x String', (SELECT k FROM default.s)))", 'UNKNOWN_TABLE'],
      ["SELECT k FROM db.t WHERE k IN (SELECT x FROM values('x String', file('/etc/passwd')))", undefined],
    ] as const) {
      const e = refusal(sql, SHARD);
      if (code) expect(e?.code, sql).toBe(code);
      else expect(e, sql).toBeInstanceOf(ScatterError);
      expect(e?.position, sql).toBeDefined();
    }
    expect(refusal("SELECT k FROM db.t WHERE k IN (SELECT * FROM file('/etc/passwd'))", SHARD)?.code).toBe('UNSUPPORTED');
  });

  it('trusted subtrees (the catalog views) are taken as they are, and only those', () => {
    const stmt = parseSelect('SELECT * FROM (SELECT name FROM system.tables) AS v');
    const view = (stmt as unknown as { from: { table: { query: never } } }).from.table.query;
    const reach: Reach = { what: 'the catalog engine', tables: new Set(), trusted: new Set([view]) };
    expect(() => checkReach(stmt, reach)).not.toThrow();
    expect(() => checkReach(parseSelect('SELECT * FROM (SELECT name FROM system.tables) AS v'), reach)).toThrow(/unknown table system.tables/);
  });
});

describe('checkReach: functions, settings, formats', () => {
  it.each([
    "getServerSetting('path')",
    'hostName()',
    'uptime()',
    "getSetting('max_threads')",
    "hasColumnInTable('d', 't', 'c')",
    'sleep(1)',
    'sleepEachRow(1)',
    'HOSTNAME()',
  ])('%s is refused anywhere, with ClickHouse 497', (call) => {
    const e = refusal(`SELECT * FROM (SELECT (SELECT ${call}) AS x)`, { what: 'the catalog engine', tables: new Set() });
    expect(e?.code).toBe('UNSUPPORTED');
    expect(e?.details).toEqual({ clickhouse: { code: 497, name: 'ACCESS_DENIED' } });
    expect(e?.position?.column).toBe(`SELECT * FROM (SELECT (SELECT `.length + 1);
  });

  it('SETTINGS at any depth: allow-listed names only, never a file-naming one', () => {
    expect(refusal('SELECT k FROM db.t WHERE k IN (SELECT 1 SETTINGS max_threads = 2)', SHARD)).toBeUndefined();
    const file = refusal("SELECT k FROM db.t WHERE k IN (SELECT 1 SETTINGS format_template_row = '/etc/passwd')", SHARD);
    expect(file?.details).toEqual({ clickhouse: { code: 497, name: 'ACCESS_DENIED' } });
    expect(file?.message).toContain('format_template_row');
    expect(refusal('SELECT 1 SETTINGS allow_ddl = 1', SHARD)?.code).toBe('UNSUPPORTED');
  });

  it('FORMAT that opens a file is refused, at the top and in a UNION', () => {
    for (const f of FILE_FORMATS) expect(refusal(`SELECT 1 FORMAT ${f}`, SHARD)?.message, f).toContain(`FORMAT ${f}`);
    expect(refusal('SELECT 1 UNION ALL SELECT 2 FORMAT Protobuf', SHARD)?.code).toBe('UNSUPPORTED');
    expect(refusal('SELECT 1 FORMAT TabSeparated', SHARD)).toBeUndefined();
  });

  it('file-naming settings and formats, by name', () => {
    for (const n of [
      'format_schema',
      'format_schema_path',
      'output_format_schema',
      'format_template_resultset',
      'format_template_row',
      'format_template_rows_between_delimiter',
      'schema_inference_hints',
      'input_format_protobuf_schema_cache',
      'format_avro_schema_registry_url',
      'user_files_path',
      'FORMAT_SCHEMA',
    ])
      expect(isFileSetting(n), n).toBe(true);
    for (const n of ['max_threads', 'max_rows_in_distinct', 'profile', 'output_format_json_quote_64bit_integers', 'format_csv_delimiter', 'join_algorithm'])
      expect(isFileSetting(n), n).toBe(false);
    expect(isFileFormat('template')).toBe(true);
    expect(isFileFormat('CustomSeparated')).toBe(false);
    expect(() => checkEngineOptions({ format: 'JSON', settings: { output_format_schema: '/x' }, where: 'the URL' })).toThrow(/output_format_schema/);
    expect(() => checkEngineOptions({ format: 'CapnProto', where: 'the URL' })).toThrow(/FORMAT CapnProto/);
    expect(() => checkEngineOptions({ format: 'JSON', settings: { output_format_json_quote_64bit_integers: 1 }, where: 'the URL' })).not.toThrow();
  });
});

// Wrappers that put an expression {S} at a SQL-bearing position of a SELECT over `db.t`.
const WRAPPERS = [
  'SELECT {S} AS x',
  'SELECT k FROM db.t WHERE length(toString({S})) > 0',
  'SELECT k FROM db.t GROUP BY k HAVING count() > length(toString({S}))',
  'SELECT k FROM db.t ORDER BY {S}',
  'SELECT sum(1) OVER (PARTITION BY {S}) FROM db.t',
  'SELECT * FROM (SELECT {S} AS x)',
  'SELECT k FROM db.t AS a CROSS JOIN (SELECT {S} AS x) AS b',
  'SELECT k FROM db.t UNION ALL SELECT toString({S})',
  'WITH {S} AS w SELECT w FROM db.t',
  'SELECT k FROM db.t WHERE k IN (SELECT {S})',
  'SELECT arrayMap(x -> {S}, [1]) FROM db.t',
  'SELECT CASE WHEN 1 THEN {S} END FROM db.t',
  'SELECT k FROM db.t ARRAY JOIN [{S}] AS a',
  'SELECT k FROM db.t LIMIT 1 BY k, {S}',
  'SELECT k FROM db.t PREWHERE {S} > 0',
  'SELECT k FROM db.t WINDOW w AS (ORDER BY {S})',
  'SELECT k FROM db.t AS a GLOBAL JOIN (SELECT 1 AS j) AS b ON {S} = b.j',
];

describe('checkReach: any nesting', () => {
  it('a forbidden read under any stack of positions is refused at its own position', () => {
    const forbidden = fc.constantFrom('(SELECT count() FROM default.secret)', '(SELECT 1 FROM db.t_dist)', 'hostName()', "getServerSetting('path')");
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...WRAPPERS), { minLength: 1, maxLength: 5 }), forbidden, (stack, read) => {
        // Each wrapper holds the previous text as a scalar subquery.
        let sql: string = read;
        for (const w of stack) sql = w.replace('{S}', sql.startsWith('SELECT') || sql.startsWith('WITH') ? `(${sql})` : sql);
        const e = refusal(sql, SHARD);
        expect(e, sql).toBeDefined();
        const name = read.includes('FROM') ? read.slice(read.indexOf('FROM ') + 5, -1) : read.slice(0, read.indexOf('('));
        expect(e!.position?.column, sql).toBe(sql.indexOf(name) + 1);
      }),
      { numRuns: 300 },
    );
  });
});
