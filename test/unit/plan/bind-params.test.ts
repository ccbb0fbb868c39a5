// Query parameters: bound as typed values before planning (never spliced into text), checked
// against their type with ClickHouse's codes, and pruning shards exactly as the same literal does.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { planQueryWith } from '../../../shared/core/plan/index.js';
import { bindParams, fromEscapedParams } from '../../../shared/core/plan/bind-params.js';
import { parseSelect } from '../../../shared/core/sql/parse.js';
import { printSelect } from '../../../shared/core/sql/print.js';
import { ScatterError } from '../../../shared/core/errors.js';
import { passThroughSplit, testTopology } from './fixtures.js';
import { quoteStringLiteral } from '../../../shared/core/sql/quote.js';

const topo = testTopology();
const plan = (sql: string, params?: Record<string, string | number | null>) => planQueryWith(sql, topo, params ? { params } : {}, passThroughSplit);
const bound = (sql: string, params: Record<string, string | number | boolean | null>) => printSelect(bindParams(parseSelect(sql), params));

function codeOf(f: () => unknown): number | undefined {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(ScatterError);
    return ((e as ScatterError).details as { clickhouse: { code: number } }).clickhouse.code;
  }
  return undefined;
}

describe('binding', () => {
  it('String becomes a plain literal; other types a CAST of their value', () => {
    expect(bound('SELECT {s:String}, {n:UInt8} AS n, {d:Date}, {a:Array(String)}', { s: "a'b\\", n: 7, d: '2024-01-02', a: "['x']" })).toBe(
      "SELECT 'a\\'b\\\\', CAST(7, 'UInt8') AS n, CAST('2024-01-02', 'Date'), CAST('[\\'x\\']', 'Array(String)')",
    );
  });

  it('integers wrap to their width as ClickHouse reads them; NULL only for Nullable', () => {
    expect(bound('SELECT {x:UInt8}', { x: '300' })).toBe("SELECT CAST(44, 'UInt8')");
    expect(bound('SELECT {x:Int8}', { x: '-129' })).toBe("SELECT CAST(127, 'Int8')");
    expect(bound('SELECT {x:Nullable(UInt8)}', { x: null })).toBe("SELECT CAST(NULL, 'Nullable(UInt8)')");
    expect(codeOf(() => bound('SELECT {x:UInt8}', { x: null }))).toBe(457);
  });

  it.each([
    ['SELECT {x:UInt8}', {}, 456],
    ['SELECT {x:UInt8}', { x: 'abc' }, 457],
    ['SELECT {x:UInt64}', { x: '1.5' }, 457],
    ['SELECT {x:Float64}', { x: '1e' }, 457],
    ['SELECT {x:Date}', { x: 'hello' }, 38],
    ['SELECT {x:DateTime}', { x: '2024-01-02 xx' }, 41],
    ['SELECT {x:UUID}', { x: 'zz' }, 376],
    ['SELECT {x:FixedString(2)}', { x: 'abc' }, 131],
    ['SELECT {x:Identifier}', { x: 't' }, 48],
    ['SELECT 1 FROM {t:Identifier}', {}, 456],
  ] as const)('%s with %j is ClickHouse code %i', (sql, params, code) => {
    expect(codeOf(() => bound(sql, params))).toBe(code);
  });

  it('the error names the parameter and points at it', () => {
    try {
      bound('SELECT 1,\n  {abc:UInt8}', {});
      expect.unreachable();
    } catch (e) {
      expect((e as ScatterError).message).toBe('Substitution `abc` is not set');
      expect((e as ScatterError).position).toEqual({ line: 2, column: 3 });
    }
  });

  it('binds inside subqueries and IN lists', () => {
    expect(bound('SELECT 1 FROM t WHERE a IN (SELECT b FROM u WHERE c = {p:String})', { p: 'v' })).toContain("c = 'v'");
  });

  it('any string stays one value: printed, reparsed and compared, it is the string given', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const stmt = parseSelect(bound('SELECT {s:String} AS v', { s }));
        const col = stmt.kind === 'select' ? stmt.columns[0]! : undefined;
        expect(col).toMatchObject({ kind: 'literal', type: 'string', value: s, alias: 'v' });
      }),
      { numRuns: 300 },
    );
  });

  it('param_<name> values are ClickHouse-escaped text for String types, kept as written for others', () => {
    const stmt = parseSelect('SELECT {s:String}, {n:Nullable(String)}, {a:Array(String)}');
    expect(fromEscapedParams(stmt, { s: "a\\tb\\'c\\\\", n: '\\N', a: "['q\\'']", unused: 'x' })).toEqual({
      s: "a\tb'c\\",
      n: null,
      a: "['q\\'']",
      unused: 'x',
    });
  });
});

describe('pruning on parameters', () => {
  it('a parameter compared with the sharding key skips the same shards as the literal', async () => {
    for (const v of ['s-1', 's-2', 's-77', "o'brien"]) {
      const byParam = await plan('SELECT count() FROM analytics.events_dist WHERE sensor = {s:String}', { s: v });
      const byLiteral = await plan(`SELECT count() FROM analytics.events_dist WHERE sensor = ${quoteStringLiteral(v)}`);
      expect(byParam.shards.map((s) => s.skipped)).toEqual(byLiteral.shards.map((s) => s.skipped));
      expect(byParam.shards.filter((s) => !s.skipped)).toHaveLength(1);
    }
  });

  it('an integer key compared with a typed parameter prunes too (IN list of parameters included)', async () => {
    const p = await plan('SELECT count() FROM nums_dist WHERE k IN ({a:UInt8}, {b:UInt8})', { a: 1, b: '1' });
    const lit = await plan('SELECT count() FROM nums_dist WHERE k IN (1, 1)');
    expect(p.shards.map((s) => s.skipped)).toEqual(lit.shards.map((s) => s.skipped));
    expect(p.shards.filter((s) => !s.skipped).length).toBeLessThan(topo.shards.length);
  });

  it('the shard SQL carries the value, never the {name:Type} text', async () => {
    const p = await plan('SELECT count() FROM analytics.events_dist WHERE sensor = {s:String}', { s: "x' OR 1 = 1 --" });
    const sql = p.shards.find((s) => !s.skipped)!.sql!;
    expect(sql).toContain("sensor = 'x\\' OR 1 = 1 --'");
    expect(sql).not.toContain('{s:String}');
  });
});

describe('parameters as counts', () => {
  it('LIMIT, OFFSET and LIMIT BY take the plain integer', async () => {
    expect(bound('SELECT a FROM t LIMIT {n:UInt8} OFFSET {o:UInt64}', { n: 5, o: '2' })).toBe('SELECT a FROM t LIMIT 2, 5');
    expect(bound('SELECT a FROM t LIMIT {n:UInt8} BY a', { n: 1 })).toBe('SELECT a FROM t LIMIT 1 BY a');
    const p = await plan('SELECT sensor FROM analytics.events_dist ORDER BY sensor LIMIT {n:UInt16}', { n: 3 });
    expect(p.shards.find((s) => !s.skipped)!.sql).toMatch(/LIMIT 3$/);
  });
});

describe('FROM {name:Identifier}', () => {
  it('is the table the value names, at any depth, bound before planning', () => {
    expect(
      bound('SELECT count() FROM analytics.{t:Identifier} AS e WHERE sensor IN (SELECT sensor FROM analytics.{t:Identifier} FINAL)', { t: 'events_dist' }),
    ).toBe('SELECT count() FROM analytics.events_dist AS e WHERE sensor IN (SELECT sensor FROM analytics.events_dist FINAL)');
    expect(bound('SELECT 1 FROM {t:Identifier} JOIN {u:Identifier} USING k', { t: 'nums_dist', u: 'signed_dist' })).toBe(
      'SELECT 1 FROM nums_dist INNER JOIN signed_dist USING (k)',
    );
    expect(printSelect(parseSelect('SELECT 1 FROM {t:Identifier} AS x, db.{u:Identifier}'))).toBe('SELECT 1 FROM {t:Identifier} AS x, db.{u:Identifier}');
  });
  it('plans as the table written out, and still reads only configured tables', async () => {
    const [viaParam, written] = await Promise.all([plan('SELECT count() FROM {t:Identifier}', { t: 'nums_dist' }), plan('SELECT count() FROM nums_dist')]);
    expect(JSON.stringify(viaParam)).toBe(JSON.stringify(written));
    // ClickHouse reads the value as one name: `analytics.events_dist` is no table of the current database.
    for (const t of ['analytics.events_dist', 'x; DROP TABLE y'])
      await expect(plan('SELECT count() FROM {t:Identifier}', { t })).rejects.toMatchObject({ code: 'UNKNOWN_TABLE', position: { line: 1, column: 21 } });
    // An empty value is ClickHouse's 457.
    expect(codeOf(() => bound('SELECT count() FROM {t:Identifier}', { t: '' }))).toBe(457);
    await expect(plan('SELECT count() FROM system.{t:Identifier}', { t: 'tables' })).rejects.toMatchObject({
      code: 'UNKNOWN_TABLE',
      position: { line: 1, column: 21 },
    });
  });
});

// ClickHouse 26 binds `{db:Identifier}.{t:Identifier}` and `{db:Identifier}.t` as it binds `db.{t:Identifier}`:
// each value one name (checked on chdb with queryBind: the same rows, and these codes).
describe('FROM {db:Identifier}.{t:Identifier}', () => {
  it('is read, printed back and bound like the database and table written out, at any depth', () => {
    const sql =
      'SELECT count() FROM {d:Identifier}.{t:Identifier} AS e JOIN {d:Identifier}.nums_dist USING k WHERE k IN (SELECT k FROM {d:Identifier}.{t:Identifier})';
    expect(printSelect(parseSelect(sql))).toBe(sql.replace('JOIN', 'INNER JOIN').replace('USING k', 'USING (k)'));
    expect(bound(sql, { d: 'analytics', t: 'events_dist' })).toBe(
      'SELECT count() FROM analytics.events_dist AS e INNER JOIN analytics.nums_dist USING (k) WHERE k IN (SELECT k FROM analytics.events_dist)',
    );
  });
  it('plans as the table written out, and still reads only configured tables', async () => {
    const [viaParams, written] = await Promise.all([
      plan('SELECT count() FROM {d:Identifier}.{t:Identifier}', { d: 'analytics', t: 'events_dist' }),
      plan('SELECT count() FROM analytics.events_dist'),
    ]);
    expect(JSON.stringify(viaParams)).toBe(JSON.stringify(written));
    expect(JSON.stringify(await plan('SELECT count() FROM {d:Identifier}.events_dist', { d: 'analytics' }))).toBe(JSON.stringify(written));
    await expect(plan('SELECT count() FROM {d:Identifier}.{t:Identifier}', { d: 'system', t: 'tables' })).rejects.toMatchObject({
      code: 'UNKNOWN_TABLE',
      position: { line: 1, column: 21 },
    });
  });
  it.each([
    [{ t: 'events_dist' }, 456],
    [{ d: 'analytics' }, 456],
    [{ d: '', t: 'events_dist' }, 457],
    [{ d: 'analytics', t: '' }, 457],
    [{ d: 'analytics.x', t: 'events_dist' }, 81],
  ] as const)('%j is ClickHouse code %i, at the table', (params, code) => {
    const sql = 'SELECT count() FROM {d:Identifier}.{t:Identifier}';
    expect(codeOf(() => bound(sql, params))).toBe(code);
    try {
      bound(sql, params);
    } catch (e) {
      expect((e as ScatterError).position).toEqual({ line: 1, column: 21 });
    }
  });
  it("a table value with a dot is one name: ClickHouse's 60, naming db.a.b", async () => {
    const e = await plan('SELECT count() FROM {d:Identifier}.{t:Identifier}', { d: 'analytics', t: 'events_dist.x' }).then(
      () => undefined as never,
      (x: ScatterError) => x,
    );
    expect([e.code, e.message, e.position]).toEqual([
      'UNKNOWN_TABLE',
      "Unknown table expression identifier 'analytics.events_dist.x' (line 1, column 21)",
      { line: 1, column: 21 },
    ]);
  });
});
