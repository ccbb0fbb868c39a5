// Hostile authentication: with a users file, every route of the local stack (the JSON API, the
// console, /health, the admin routes and ClickHouse's interface) asks for the same credentials and
// gives the same answer for every failure; /ping alone stays open, as in ClickHouse. The check itself
// runs scrypt off the event loop, remembers a verified credential for a bounded time in a bounded
// cache, and never a failure: a wrong password costs a full scrypt however often it is tried.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { scryptSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTopology } from '../../../shared/core/config/load.js';
import { createUserCheck, hashPassword, VERIFIED_MAX, VERIFIED_TTL_MS } from '../../../shared/core/clickhouse-http/auth.js';
import { startLocalStack, type LocalStack } from '../../../local/stack.js';
import { CLICKHOUSE_MAX_BODY_BYTES } from '../../../local/api-server.js';

const USER = 'analyst';
const PASSWORD = 'right horse';
const basic = (u: string, p: string) => ({ authorization: `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}` });

let dir: string;
let stack: LocalStack;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-auth-routes-'));
  const usersFile = path.join(dir, 'users.json');
  fs.writeFileSync(usersFile, JSON.stringify({ users: [{ name: USER, password: hashPassword(PASSWORD, 1024) }] }));
  const topo = parseTopology({
    cluster: 'auth',
    shards: [{ replicas: [{ embedded: 'shard-0' }] }],
    tables: { 'default.ev_dist': { local: 'default.ev', shardingKey: { column: 'k', type: 'UInt64', function: 'identity' }, insert: true } },
    schedules: [{ name: 'tick', schedule: 'rate(1 hour)', sql: 'SELECT k FROM default.ev_dist', destination: { table: 'default.ev_dist' } }],
  });
  stack = await startLocalStack({ topo, baseDir: dir, logLevel: 'SILENT', usersFile });
  const r = await fetch(`${stack.url}/admin/exec`, {
    method: 'POST',
    headers: basic(USER, PASSWORD),
    body: JSON.stringify({ sql: 'CREATE TABLE default.ev (k UInt64) ENGINE = MergeTree ORDER BY k' }),
  });
  expect(r.status, await r.text()).toBe(200);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const ROUTES: { method: string; path: string; body?: string }[] = [
  { method: 'POST', path: '/query', body: JSON.stringify({ sql: 'SELECT count() AS c FROM default.ev_dist' }) },
  { method: 'POST', path: '/explain', body: JSON.stringify({ sql: 'SELECT count() AS c FROM default.ev_dist' }) },
  { method: 'GET', path: '/play' },
  { method: 'GET', path: '/health' },
  { method: 'POST', path: '/admin/exec', body: JSON.stringify({ sql: 'DROP TABLE default.ev' }) },
  { method: 'POST', path: '/admin/insert?table=default.ev_dist', body: '{"k":1}\n' },
  { method: 'POST', path: '/admin/schedule?name=tick' },
  { method: 'POST', path: '/', body: 'SELECT 1' },
];

const WRONG: Record<string, Record<string, string>> = {
  none: {},
  'wrong password': basic(USER, 'wrong horse'),
  'unknown user': basic('mallory', PASSWORD),
  'X-ClickHouse-Key wrong': { 'x-clickhouse-user': USER, 'x-clickhouse-key': 'nope' },
  bearer: { authorization: 'Bearer a.b.c' },
};

async function ask(route: (typeof ROUTES)[number], headers: Record<string, string>) {
  const r = await fetch(`${stack.url}${route.path}`, { method: route.method, headers, ...(route.body !== undefined ? { body: route.body } : {}) });
  return { status: r.status, text: await r.text(), headers: r.headers };
}

describe('every route asks for the credentials when users are configured', () => {
  it('each failure on each route: 401, the same words, and nothing done', async () => {
    const words = new Set<string>();
    for (const route of ROUTES) {
      for (const [why, headers] of Object.entries(WRONG)) {
        const r = await ask(route, headers);
        expect(r.status, `${route.method} ${route.path} (${why}): ${r.text}`).toBe(401);
        expect(r.headers.get('www-authenticate')).toMatch(/^Basic/);
        if (route.path === '/') {
          expect(r.headers.get('x-clickhouse-exception-code')).toBe('516');
          words.add(/Authentication failed[^.(]*/.exec(r.text)![0]);
        } else {
          const body = JSON.parse(r.text) as { error: { code: string; message: string } };
          expect(body.error.code).toBe('UNAUTHORIZED');
          words.add(/Authentication failed[^.(]*/.exec(body.error.message)![0]);
        }
      }
    }
    expect([...words]).toEqual(['Authentication failed: password is incorrect, or there is no user with such name']);
    // The refused DROP and INSERT did nothing.
    const c = await ask(ROUTES[0]!, basic(USER, PASSWORD));
    expect(c.status, c.text).toBe(200);
    expect(JSON.parse(c.text).data).toEqual([{ c: '0' }]);
  });

  it('the right credentials, as Basic or X-ClickHouse-User/Key, open every route; /ping needs none', async () => {
    const key = { 'x-clickhouse-user': USER, 'x-clickhouse-key': PASSWORD };
    for (const headers of [basic(USER, PASSWORD), key]) {
      expect((await ask(ROUTES[0]!, headers)).status).toBe(200);
      expect((await ask(ROUTES[1]!, headers)).status).toBe(200);
      expect((await ask(ROUTES[2]!, headers)).status).toBe(200);
      expect((await ask(ROUTES[3]!, headers)).status).toBe(200);
      const ch = await ask(ROUTES[7]!, headers);
      expect([ch.status, ch.text]).toEqual([200, '1\n']);
    }
    const ins = await ask(ROUTES[5]!, basic(USER, PASSWORD));
    expect(ins.status, ins.text).toBe(200);
    const ping = await fetch(`${stack.url}/ping`);
    expect([ping.status, await ping.text()]).toEqual([200, 'Ok.\n']);
  });
});

describe('an over-size body', () => {
  it("is 413 in ClickHouse's terms on ClickHouse's interface, and in the API's on the API", async () => {
    const big = Buffer.alloc(CLICKHOUSE_MAX_BODY_BYTES + 1, 0x20);
    const ch = await fetch(`${stack.url}/`, { method: 'POST', headers: basic(USER, PASSWORD), body: big });
    const text = await ch.text();
    expect([ch.status, ch.headers.get('x-clickhouse-exception-code'), ch.headers.get('content-type')]).toEqual([413, '396', 'text/plain; charset=UTF-8']);
    expect(text).toMatch(/^Code: 396\. DB::Exception: request body is larger than \d+ bytes\. \(TOO_MANY_ROWS_OR_BYTES\)\n$/);
    const api = await fetch(`${stack.url}/query`, { method: 'POST', headers: basic(USER, PASSWORD), body: big });
    expect([api.status, ((await api.json()) as { error: { code: string } }).error.code]).toEqual([413, 'TOO_LARGE']);
  });
});

describe('the users check', () => {
  const N = 16384; // the users file's default cost
  const file = () => ({ users: [{ name: 'a', password: hashPassword('pw', N) }] });
  /** One scrypt of the same cost, on the event loop, in this run: the yardstick. */
  function baselineMs(): number {
    const t = performance.now();
    scryptSync('x', Buffer.alloc(16), 32, { N, maxmem: 256 * N * 8 * 2 });
    return performance.now() - t;
  }

  it('runs off the event loop: the loop keeps turning while many wrong passwords are checked at once', async () => {
    const check = createUserCheck(file());
    // Counted in loop turns, not milliseconds (a loaded machine delays timers either way): a
    // synchronous scrypt settles all sixteen checks before the loop turns once.
    let settled = 0;
    let turnsWhileChecking = 0;
    let spinning = true;
    const turn = () => {
      if (!spinning) return;
      if (settled < 16) turnsWhileChecking++;
      setImmediate(turn);
    };
    setImmediate(turn);
    const fails = await Promise.all(
      Array.from({ length: 16 }, () =>
        check({ user: 'a', password: 'no' })
          .then(
            () => 0,
            () => 1,
          )
          .finally(() => settled++),
      ),
    );
    spinning = false;
    expect(fails.reduce((a, b) => a + b, 0)).toBe(16);
    expect(turnsWhileChecking).toBeGreaterThan(1);
  });

  it('a verified credential is remembered; a wrong one after it still costs a full scrypt', async () => {
    const check = createUserCheck(file());
    await check({ user: 'a', password: 'pw' });
    expect(check.cached({ user: 'a', password: 'pw' })).toBe('a');
    expect(check.cached({ user: 'a', password: 'pW' })).toBeUndefined();
    const one = baselineMs();
    for (const c of [
      { user: 'a', password: 'pW' },
      { user: 'b', password: 'pw' },
    ]) {
      const t = performance.now();
      await expect(check(c)).rejects.toMatchObject({ chCode: 516 });
      expect(performance.now() - t).toBeGreaterThan(one / 3);
      // ...and it is never remembered.
      expect(check.cached(c)).toBeUndefined();
    }
  });

  it('bounded life and bounded size', async () => {
    let now = 0;
    const users = Array.from({ length: VERIFIED_MAX + 1 }, (_, i) => ({ name: `u${i}`, password: hashPassword(`p${i}`, 2) }));
    const check = createUserCheck({ users }, { now: () => now });
    await check({ user: 'u0', password: 'p0' });
    now = VERIFIED_TTL_MS - 1;
    expect(check.cached({ user: 'u0', password: 'p0' })).toBe('u0');
    now = VERIFIED_TTL_MS;
    expect(check.cached({ user: 'u0', password: 'p0' })).toBeUndefined();
    for (const [i] of users.entries()) await check({ user: `u${i}`, password: `p${i}` });
    // The first one verified in this round went out when the last one came in.
    expect(check.cached({ user: 'u0', password: 'p0' })).toBeUndefined();
    expect(check.cached({ user: 'u1', password: 'p1' })).toBe('u1');
    expect(check.cached({ user: `u${VERIFIED_MAX}`, password: `p${VERIFIED_MAX}` })).toBe(`u${VERIFIED_MAX}`);
  });
});
