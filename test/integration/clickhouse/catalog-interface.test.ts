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
});
