// Table names as ClickHouse reads them, on the JSON API and the ClickHouse interface of the local stack
// (four chdb shards), against ClickHouse itself (chdb, with its own parameter binding):
//  - one backquoted name holding a dot (`cht.kv_dist`) is ONE table of the current database: 60;
//  - `{db:Identifier}.{t:Identifier}` and `{db:Identifier}.t` bind each value as one name, as
//    `db.{t:Identifier}` does, with ClickHouse's codes for a missing (456), empty (457) or dotted value.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Session } from 'chdb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareAnswers } from './compare.js';
import { useChtStack } from './clickhouse-tests/stack.js';
import { queryApiRunner } from './harness.js';

const o = useChtStack();

// ClickHouse's own binding: a database `cht` holding `kv` (the local name of cht.kv_dist).
let dir: string;
let engine: Session;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ch-scatter-names-'));
  engine = new Session(dir);
  engine.query('CREATE DATABASE cht', 'CSV');
  engine.query('CREATE TABLE cht.kv (key UInt64) ENGINE = Memory', 'CSV');
});
afterAll(() => {
  engine?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** ClickHouse's error code for the query over its local names, or 0 when it answers. */
function clickhouseCode(sql: string, params: Record<string, string> = {}): number {
  const local = sql.replace(/\bkv_dist\b/g, 'kv');
  const localParams = Object.fromEntries(Object.entries(params).map(([k, v]) => [k, v.replace(/\bkv_dist\b/g, 'kv')]));
  try {
    engine.queryBind(local, localParams, 'TSV');
    return 0;
  } catch (e) {
    // A failed query can leave its output behind for the next one (chdb 3.4): flush it.
    engine.query('SELECT 1 FORMAT Null', 'CSV');
    return Number(/Code: (\d+)\./.exec(String(e))?.[1]);
  }
}

async function viaApi(sql: string, params: Record<string, string> = {}) {
  const res = await fetch(`${o.stack.url}/query`, { method: 'POST', body: JSON.stringify({ sql, params }) });
  return { status: res.status, body: (await res.json()) as { error?: { code: string; message: string; position?: unknown }; clickhouse?: { code: number } } };
}

async function viaInterface(sql: string, params: Record<string, string> = {}, settings: Record<string, string> = {}) {
  const qs = new URLSearchParams([...Object.entries(params).map(([k, v]): [string, string] => [`param_${k}`, v]), ...Object.entries(settings)]);
  const res = await fetch(`${o.stack.url}/?${qs}`, { method: 'POST', body: sql });
  const text = await res.text();
  return { status: res.status, text, code: Number(/^Code: (\d+)\./.exec(text)?.[1] ?? 0) };
}

const SUM = 'SELECT count() AS c, sum(key) AS s FROM';
const WRITTEN = `${SUM} cht.kv_dist`;

describe('one backquoted name holding a dot', () => {
  for (const sql of [`${SUM} \`cht.kv_dist\``, `${SUM} "cht.kv_dist" AS t`]) {
    it(`${sql}: ClickHouse's 60 at the table, on the JSON API and the interface`, async () => {
      expect(clickhouseCode(sql)).toBe(60);
      const api = await viaApi(sql);
      expect([api.status, api.body.error?.code, api.body.error?.position]).toEqual([400, 'UNKNOWN_TABLE', { line: 1, column: 41 }]);
      expect(api.body.error?.message).toMatch(/unknown table default\.`cht\.kv_dist` \(a quoted name's dot is part of the name/);
      const ch = await viaInterface(sql);
      expect([ch.status, ch.code]).toEqual([404, 60]);
      expect(ch.text).toMatch(/unknown table default\.`cht\.kv_dist`.*line 1, column 41/);
    });
  }
  it('a database and a table each quoted are the configured table', async () => {
    const sql = `${SUM} \`cht\`.\`kv_dist\``;
    expect(clickhouseCode(sql)).toBe(0);
    const got = await queryApiRunner(o.stack.url)(sql);
    expect(compareAnswers(got, await o.reference(WRITTEN), { ordered: false })).toBeUndefined();
  });
});

describe('{db:Identifier}.{t:Identifier} and {db:Identifier}.t', () => {
  const FORMS: Array<[string, Record<string, string>]> = [
    [`${SUM} {d:Identifier}.{t:Identifier}`, { d: 'cht', t: 'kv_dist' }],
    [`${SUM} {d:Identifier}.kv_dist AS x`, { d: 'cht' }],
    [`${SUM} cht.{t:Identifier}`, { t: 'kv_dist' }],
    [
      `SELECT count() AS c FROM {d:Identifier}.{t:Identifier} WHERE key GLOBAL IN (SELECT key FROM {d:Identifier}.{t:Identifier} WHERE key < 5)`,
      { d: 'cht', t: 'kv_dist' },
    ],
  ];
  for (const [sql, params] of FORMS) {
    it(`${sql} ${JSON.stringify(params)}: the table written out, on the JSON API and the interface`, async () => {
      expect(clickhouseCode(sql, params)).toBe(0);
      const written = sql.replace(/\{d:Identifier\}/g, params.d ?? 'cht').replace(/\{t:Identifier\}/g, params.t ?? 'kv_dist');
      const want = await o.reference(written);
      const api = await fetch(`${o.stack.url}/query`, { method: 'POST', body: JSON.stringify({ sql, params }) });
      const body = (await api.json()) as { meta: never; data: never };
      expect(api.status).toBe(200);
      expect(compareAnswers({ meta: body.meta, rows: body.data }, want, { ordered: false })).toBeUndefined();
      const ch = await viaInterface(`${sql} FORMAT JSON`, params, { output_format_json_quote_64bit_integers: '1' });
      expect(ch.status, ch.text.slice(0, 300)).toBe(200);
      const chBody = JSON.parse(ch.text) as { meta: never; data: never };
      expect(compareAnswers({ meta: chBody.meta, rows: chBody.data }, want, { ordered: false })).toBeUndefined();
    });
  }
  const BAD: Array<[Record<string, string>, number]> = [
    [{ t: 'kv_dist' }, 456],
    [{ d: 'cht' }, 456],
    [{ d: '', t: 'kv_dist' }, 457],
    [{ d: 'cht', t: '' }, 457],
    [{ d: 'cht.x', t: 'kv_dist' }, 81],
    [{ d: 'cht', t: 'kv_dist.x' }, 60],
    [{ d: 'cht', t: 'nope' }, 60],
  ];
  for (const [params, code] of BAD) {
    const sql = `${SUM} {d:Identifier}.{t:Identifier}`;
    it(`${JSON.stringify(params)}: ClickHouse's ${code} at the table`, async () => {
      expect(clickhouseCode(sql, params)).toBe(code);
      const api = await viaApi(sql, params);
      expect(api.status).toBe(400);
      expect(api.body.error?.position).toEqual({ line: 1, column: 41 });
      if (code !== 60) expect(api.body.clickhouse?.code).toBe(code);
      else expect(api.body.error?.code).toBe('UNKNOWN_TABLE');
      // ClickHouse names no position for a parameter's value (456, 457, 81); the table's 60 has one.
      const ch = await viaInterface(sql, params);
      expect(ch.code, ch.text).toBe(code);
      if (code === 60) expect(ch.text).toMatch(/line 1, column 41/);
    });
  }
});
