// A local stack for the ClickHouse-interface tests: two chdb shards holding analytics.events
// (distributed as analytics.events_dist, INSERT allowed), a users file, and a single-node oracle
// (chdb) that holds the same table under the distributed name, so the interface's bytes can be
// compared with ClickHouse's own for the same statement.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { parseTopology } from '../../../shared/core/config/load.js';
import { hashPassword } from '../../../shared/core/clickhouse-http/auth.js';
import { startLocalStack, type LocalStack } from '../../../local/stack.js';
import { spawnEngine, type EngineProcess } from '../../support/engine-process/engine-process.js';

export const USER = 'analyst';
export const PASSWORD = 's3cret pass:with\'odd"chars';
export const TABLE_DDL = (name: string) =>
  `CREATE TABLE ${name} (k String, v UInt32, x Float64, ts DateTime('UTC'), tags Array(String)) ENGINE = MergeTree ORDER BY (k, ts)`;
export const ROWS_SQL = (name: string) =>
  `INSERT INTO ${name} SELECT concat('k-', toString(number % 20)), number, number / 4, toDateTime('2024-01-01 00:00:00', 'UTC') + number * 3600, [toString(number % 3)] FROM numbers(200)`;

export interface Harness {
  dir: string;
  stack: LocalStack;
  oracle: EngineProcess;
  auth: { username: string; password: string };
  stop(): Promise<void>;
}

export async function startHarness(
  opts: {
    shards?: number;
    shardFault?: Record<number, Record<string, unknown>>;
    tables?: Record<string, unknown>;
    query?: Record<string, unknown>;
    clickhouseHttp?: Record<string, unknown>;
    /** Also start the streaming front door (its URL: stack.streamUrl). */
    streamPort?: number;
  } = {},
): Promise<Harness> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-iface-'));
  const usersFile = path.join(dir, 'users.json');
  fs.writeFileSync(usersFile, JSON.stringify({ users: [{ name: USER, password: hashPassword(PASSWORD, 1024) }] }));
  const n = opts.shards ?? 2;
  const topo = parseTopology({
    cluster: 'iface',
    shards: Array.from({ length: n }, (_, i) => ({
      replicas: [{ embedded: `shard-${i}`, ...(opts.shardFault?.[i] ? { fault: opts.shardFault[i] } : {}) }],
    })),
    tables: {
      'analytics.events_dist': { local: 'analytics.events', shardingKey: { column: 'k', type: 'String', function: 'xxHash64' }, insert: true },
      'analytics.readonly_dist': { local: 'analytics.events', shardingKey: { column: 'k', type: 'String', function: 'xxHash64' } },
      ...opts.tables,
    },
    ...(opts.query ? { query: opts.query } : {}),
    ...(opts.clickhouseHttp ? { clickhouseHttp: opts.clickhouseHttp } : {}),
  });
  const stack = await startLocalStack({
    topo,
    baseDir: dir,
    logLevel: 'SILENT',
    usersFile,
    ...(opts.streamPort !== undefined ? { streamPort: opts.streamPort } : {}),
  });
  for (const sql of ['CREATE DATABASE IF NOT EXISTS analytics', TABLE_DDL('analytics.events')]) {
    const r = await fetch(`${stack.url}/admin/exec`, { method: 'POST', headers: AUTH_HEADER, body: JSON.stringify({ sql }) });
    // A replica with an injected fault refuses the DDL too; the others must take it.
    expect(r.status, await r.clone().text()).toBe(opts.shardFault ? 502 : 200);
  }
  const oracle = await spawnEngine({ path: path.join(dir, 'oracle') });
  await oracle.exec('CREATE DATABASE IF NOT EXISTS analytics');
  await oracle.exec(TABLE_DDL('analytics.events_dist'));
  await oracle.exec(TABLE_DDL('analytics.readonly_dist'));
  return {
    dir,
    stack,
    oracle,
    auth: { username: USER, password: PASSWORD },
    async stop() {
      await stack.stop();
      await oracle.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The harness user's Basic header: every route of a stack with users asks for it. */
export const AUTH_HEADER = { authorization: `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}` };

/** A raw HTTP request to the stack, answering status, headers and body bytes. */
export async function raw(
  url: string,
  init: {
    method?: string;
    query?: Record<string, string>;
    headers?: Record<string, string>;
    body?: string | Buffer;
    auth?: { username: string; password: string };
  } = {},
): Promise<{ status: number; headers: Headers; body: Buffer }> {
  const u = new URL(url);
  for (const [k, v] of Object.entries(init.query ?? {})) u.searchParams.set(k, v);
  const headers: Record<string, string> = { ...init.headers };
  if (init.auth) headers.authorization = `Basic ${Buffer.from(`${init.auth.username}:${init.auth.password}`).toString('base64')}`;
  const res = await fetch(u, { method: init.method ?? (init.body !== undefined ? 'POST' : 'GET'), headers, body: init.body });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

/** JSON formats carry run-dependent statistics (elapsed, rows read): blanked on both sides before comparing. */
export function normalize(format: string, bytes: Buffer): string {
  const text = bytes.toString('utf8');
  if (!/^JSON(Compact)?(Strings)?$/.test(format)) return text;
  return text.replace(/"statistics":\s*\{[^}]*\}/, '"statistics": {}');
}
