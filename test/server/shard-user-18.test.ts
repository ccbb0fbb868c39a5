// The shard functions' ClickHouse user on 18.16, as the test cluster configures it
// (scripts/ch-cluster/config.sh; docs/deploy.md gives the same user for a current server): readonly=2,
// only the local tables' databases, resource limits. A request without credentials is that user, so
// every query path of the 18.16 suites runs as it; here is what it can and cannot do, and what 18.16
// cannot restrict at all (the limits of users.xml, checked so a change shows up).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpAccess } from '../../shared/adapters/clickhouse/http.js';
import type { ClickHouseAccess } from '../../shared/core/clickhouse/port.js';
import { ClickHouseError } from '../../shared/core/clickhouse/port.js';
import { executeShardRequest } from '../../shared/core/shard/execute.js';
import type { ShardRequest, ShardSuccess } from '../../shared/core/protocol/shard-wire.js';
import { chHttp, chRows, useChServers } from '../support/ch-servers.js';

const servers = useChServers({ n: 1, portBase: 19780 });
let shardUser: ClickHouseAccess;

beforeAll(async () => {
  const url = servers.current.urls[0]!;
  await chHttp(url, 'CREATE TABLE default.ev (id UInt64, s String) ENGINE = MergeTree ORDER BY id');
  await chHttp(url, "INSERT INTO default.ev VALUES (1, 'a'), (2, 'b')");
  await chHttp(url, 'CREATE DATABASE other');
  await chHttp(url, 'CREATE TABLE other.secret (card String) ENGINE = MergeTree ORDER BY card');
  await chHttp(url, "INSERT INTO other.secret VALUES ('CARD-SECRET-4111')");
  shardUser = createHttpAccess({ url });
}, 60_000);
afterAll(async () => {
  await shardUser?.close();
});

async function codeOf(p: Promise<unknown>): Promise<number | undefined> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(ClickHouseError);
    expect((e as Error).message).not.toContain('CARD-SECRET');
    return (e as ClickHouseError).chCode;
  }
  throw new Error('not refused');
}

describe('the shard user on 18.16', () => {
  it('reads the local table, through the shard executor too', async () => {
    expect((await shardUser.query('SELECT count() AS c FROM default.ev')).rows).toEqual([{ c: '2' }]);
    const req: ShardRequest = {
      type: 'query',
      queryId: 'shard-user-1',
      shard: 0,
      replica: 0,
      sql: 'SELECT s FROM default.ev ORDER BY s',
      deadline: Date.now() + 10_000,
      settings: {},
      external: [],
      attempt: 'primary',
    };
    const r = (await executeShardRequest(req, shardUser, { now: Date.now })) as ShardSuccess;
    expect(r.rows).toEqual([{ s: 'a' }, { s: 'b' }]);
  });

  it("cannot read another database's table: 291, directly, through merge() and through remote() with the admin's password", async () => {
    const tcp = servers.current.tcpPorts[0]!;
    for (const sql of [
      'SELECT * FROM other.secret',
      "SELECT * FROM merge('other', '.*')",
      `SELECT * FROM remote('127.0.0.1:${tcp}', other.secret, 'admin', 'admin')`,
      'SELECT count() FROM default.ev WHERE id IN (SELECT length(card) FROM other.secret)',
    ]) {
      expect(await codeOf(shardUser.query(sql)), sql).toBe(291);
    }
    // The catalog does not show it either.
    expect((await shardUser.query('SELECT name FROM system.databases ORDER BY name')).rows).toEqual([{ name: 'default' }, { name: 'system' }]);
    expect((await shardUser.query("SELECT count() AS c FROM system.tables WHERE database = 'other'")).rows).toEqual([{ c: '0' }]);
    expect((await shardUser.query("SELECT count() AS c FROM system.columns WHERE database = 'other'")).rows).toEqual([{ c: '0' }]);
  });

  it('cannot write: INSERT, DDL and readonly=0 are refused with 164, and the table is unchanged', async () => {
    for (const sql of [
      'INSERT INTO default.ev VALUES (3, 3)',
      'INSERT INTO default.ev SELECT * FROM default.ev SETTINGS readonly = 0',
      'ALTER TABLE default.ev DELETE WHERE 1',
      'DROP TABLE default.ev',
      'CREATE TABLE default.h (a UInt8) ENGINE = Memory',
      'SET readonly = 0',
    ]) {
      expect(await codeOf(shardUser.exec(sql)), sql).toBe(164);
    }
    await expect(shardUser.insert('default.ev', [{ id: 4, s: 'd' }])).rejects.toMatchObject({ chCode: 164 });
    expect(await chRows(servers.current.urls[0]!, 'SELECT count() AS c FROM default.ev')).toEqual([{ c: '2' }]);
  });

  it('creates the temporary tables the final stage reads (a stage table, under readonly=2)', async () => {
    const r = await shardUser.queryRaw('SELECT sum(v) AS s FROM _stage0', {
      format: 'TabSeparated',
      tables: [{ name: '_stage0', columns: [{ name: 'v', type: 'UInt64' }], data: Buffer.from('5\n7\n') }],
    });
    expect(r.bytes.toString()).toBe('12\n');
  });

  it('drops its own temporary tables (the stage cleanup); a DROP of a missing one is refused on 18.16 (164)', async () => {
    const url = servers.current.urls[0]!;
    const post = async (sql: string) => (await fetch(`${url}/?session_id=shard-user-temp&session_timeout=5`, { method: 'POST', body: sql })).text();
    expect(await post('CREATE TEMPORARY TABLE t (a UInt8)')).toBe('');
    expect(await post('DROP TEMPORARY TABLE IF EXISTS t')).toBe('');
    expect(await post('EXISTS TEMPORARY TABLE t')).toBe('0\n');
    // 18.16 reads a temporary name it does not find as a persistent table's: readonly refuses that drop.
    expect(await post('DROP TEMPORARY TABLE IF EXISTS t')).toMatch(/^Code: 164.*Cannot drop table in readonly mode/);
  });

  it("runs with the profile's readonly=2 and limits", async () => {
    const rows = await shardUser.query(
      "SELECT name, value FROM system.settings WHERE name IN ('readonly', 'max_memory_usage', 'max_concurrent_queries_for_user', 'max_execution_time') ORDER BY name",
    );
    expect(rows.rows).toEqual([
      { name: 'max_concurrent_queries_for_user', value: '64' },
      { name: 'max_execution_time', value: '60' },
      { name: 'max_memory_usage', value: '2000000000' },
      { name: 'readonly', value: '2' },
    ]);
  });
});

describe('what users.xml on 18.16 cannot restrict (a current server can: docs/deploy.md)', () => {
  it("system.processes shows other users' running queries to the shard user", async () => {
    const url = servers.current.urls[0]!;
    const slow = chHttp(url, "SELECT sleep(2), 'ADMIN-QUERY-MARKER'");
    let seen: Record<string, unknown>[] = [];
    for (let i = 0; i < 100 && seen.length === 0; i++) {
      seen = (await shardUser.query("SELECT user FROM system.processes WHERE query LIKE '%ADMIN-QUERY-MARKER%' AND query NOT LIKE '%system.processes%'")).rows;
      if (seen.length === 0) await new Promise((r) => setImmediate(r));
    }
    await slow;
    expect(seen).toEqual([{ user: 'admin' }]);
  });

  it('a limit of the profile is a default only: readonly=2 lets a query raise it (no constraints before 19.x)', async () => {
    const r = await shardUser.query("SELECT value FROM system.settings WHERE name = 'max_memory_usage' SETTINGS max_memory_usage = 100000000000");
    expect(r.rows).toEqual([{ value: '100000000000' }]);
  });

  it('url() runs for a readonly=2 user (no grants on table functions before 20.x)', async () => {
    const r = await shardUser.query(`SELECT * FROM url('${servers.current.urls[0]!}/?query=SELECT+7', TSV, 'x UInt8')`);
    expect(r.rows).toEqual([{ x: 7 }]);
  });
});
