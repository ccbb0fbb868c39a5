// The ClickHouse interface's catalog answers on a clickhouse-server 18.16 shard: the views of
// system.tables / system.columns, SHOW, DESCRIBE, EXISTS and the handshake SELECTs are SQL that 18.16
// runs (its system tables have other columns than today's), rendered by 18.16 itself.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccess } from '../../shared/adapters/clickhouse/factory.js';
import type { ClickHouseAccess } from '../../shared/core/clickhouse/port.js';
import { parseTopology } from '../../shared/core/config/load.js';
import { handleClickHouseHttp, type ChHttpDeps } from '../../shared/core/clickhouse-http/handle.js';
import { chHttp, useChServers } from '../support/ch-servers.js';

const servers = useChServers({ n: 1, portBase: 19640 });
let ch: ClickHouseAccess;
let deps: ChHttpDeps;

const topo = parseTopology({
  cluster: 'c',
  shards: [{ replicas: [{ url: 'http://x:8123' }] }],
  tables: { 'analytics.events_dist': { local: 'analytics.events', shardingKey: { column: 'k', type: 'String', function: 'xxHash64' } } },
});

beforeAll(async () => {
  ch = await createAccess({ url: servers.current.urls[0]! });
  await chHttp(servers.current.urls[0]!, 'CREATE DATABASE IF NOT EXISTS analytics');
  await chHttp(servers.current.urls[0]!, 'CREATE TABLE analytics.events (k String, v UInt32, ts DateTime) ENGINE = MergeTree ORDER BY k');
  await chHttp(servers.current.urls[0]!, 'CREATE TABLE analytics.events_dist (k String, v UInt32, ts DateTime) ENGINE = MergeTree ORDER BY k');
  // The shard runs catalog reads as the shard function would: readonly=2.
  deps = { topo, raw: (sql, o) => ch.queryRaw(sql, { format: o.format, settings: { readonly: 2, ...o.settings } }) };
});
afterAll(async () => {
  await ch?.close();
});

async function ask(sql: string, query: Record<string, string> = {}) {
  const r = await handleClickHouseHttp({ method: 'POST', path: '/', query: new URLSearchParams(query), headers: {}, body: Buffer.from(sql) }, deps);
  return { status: r.status, text: r.body.toString('utf8'), headers: r.headers };
}

describe('catalog answers on 18.16', () => {
  it('handshake SELECTs: the server version and time zone, the request database', async () => {
    const r = await ask('SELECT 1, version(), currentDatabase()', { database: 'analytics' });
    expect(r.status, r.text).toBe(200);
    expect(r.text).toMatch(/^1\t18\.16\.[\d.]+\tanalytics\n$/);
    expect(r.headers['x-clickhouse-timezone']).toBeTruthy();
  });

  it('SHOW TABLES, DESCRIBE and EXISTS are 18.16 bytes for the distributed name', async () => {
    expect((await ask('SHOW TABLES FROM analytics')).text).toBe('events_dist\n');
    const mine = await ask('DESCRIBE TABLE analytics.events_dist FORMAT TSVWithNamesAndTypes');
    const theirs = await ch.queryRaw('DESCRIBE TABLE analytics.events_dist', { format: 'TSVWithNamesAndTypes' });
    expect(mine.text).toBe(theirs.bytes.toString('utf8'));
    expect((await ask('EXISTS TABLE analytics.events_dist')).text).toBe('1\n');
  });

  it('system.tables and system.columns views over 18.16 system tables', async () => {
    const t = await ask("SELECT database, name, engine FROM system.tables WHERE database = 'analytics' FORMAT JSONEachRow");
    expect(t.status, t.text).toBe(200);
    expect(t.text).toBe('{"database":"analytics","name":"events_dist","engine":"Distributed"}\n');
    const c = await ask("SELECT name, type FROM system.columns WHERE table = 'events_dist' FORMAT TSV");
    const own = await ch.queryRaw("SELECT name, type FROM system.columns WHERE database = 'analytics' AND table = 'events_dist'", { format: 'TSV' });
    expect(c.text).toBe(own.bytes.toString('utf8'));
  });

  it('system.tables gives the Distributed engine and DDL over 18.16s own columns; SHOW CREATE TABLE; EXISTS DATABASE', async () => {
    const t = await ask("SELECT engine_full, create_table_query, data_path, metadata_path FROM system.tables WHERE name = 'events_dist' FORMAT JSONEachRow");
    expect(t.status, t.text).toBe(200);
    const row = JSON.parse(t.text) as Record<string, string>;
    expect(row.engine_full).toBe("Distributed('c', 'analytics', 'events', xxHash64(k))");
    expect(row.create_table_query).toMatch(
      /^CREATE TABLE analytics\.events_dist \(.*k String.*\) ENGINE = Distributed\('c', 'analytics', 'events', xxHash64\(k\)\)$/,
    );
    expect([row.data_path, row.metadata_path]).toEqual(['', '']);
    expect((await ask('SHOW CREATE TABLE analytics.events_dist FORMAT TSVRaw')).text).toBe(`${row.create_table_query}\n`);
    expect((await ask('EXISTS DATABASE analytics')).text).toBe('1\n');
  });

  it('system.settings has a readonly column on 18.16 too: 0 for what a request may send', async () => {
    const r = await ask("SELECT name, readonly FROM system.settings WHERE name IN ('max_threads', 'allow_ddl', 'max_execution_time') ORDER BY name FORMAT TSV");
    expect(r.status, r.text).toBe(200);
    expect(r.text).toBe('allow_ddl\t1\nmax_execution_time\t0\nmax_threads\t0\n');
  });

  it('GET /, HEAD / and /replicas_status answer what 18.16 answers', async () => {
    for (const [method, p] of [
      ['GET', '/'],
      ['HEAD', '/'],
      ['GET', '/replicas_status'],
    ] as const) {
      const theirs = await fetch(new URL(p, servers.current.urls[0]!), { method });
      const mine = await handleClickHouseHttp({ method, path: p, query: new URLSearchParams(), headers: {}, body: Buffer.alloc(0) }, deps);
      expect(mine.status, `${method} ${p}`).toBe(theirs.status);
      if (method === 'GET') expect(mine.body.toString()).toBe(await theirs.text());
    }
  });

  it('an unknown column is 18.16s own code and name', async () => {
    const r = await ask('SELECT nope FROM system.one');
    expect(r.headers['x-clickhouse-exception-code']).toBe('47');
    expect(r.text).toMatch(/^Code: 47\. DB::Exception: .*\(UNKNOWN_IDENTIFIER\)/);
  });
});
