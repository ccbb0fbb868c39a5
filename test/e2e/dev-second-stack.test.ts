// A second `ch-scatter dev` beside a running one, as a user starts it: on the same config it stops
// with one line naming the running stack's port and how to run a second one, and starts no shard
// process; with --data-dir it runs beside the first. Also the startup line about credentials.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, expect, it, vi } from 'vitest';
import { hashPassword } from '../../shared/core/clickhouse-http/auth.js';
import { HOLDER_FILE } from '../../local/data-dir-holders.js';
import { spawnDev, tempDir, type DevProcess } from './support.js';

const dir = tempDir('second-stack');
const started: DevProcess[] = [];
const dev = (args: string[]) => {
  const d = spawnDev(args);
  started.push(d);
  return d;
};

afterAll(async () => {
  for (const d of started) if (d.child.exitCode === null) d.child.kill('SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
});

const config = path.join(dir, 'topology.json');
fs.writeFileSync(
  config,
  JSON.stringify({
    cluster: 'dev',
    shards: [{ replicas: [{ embedded: 'data/a' }] }, { replicas: [{ embedded: 'data/b' }] }],
    tables: { 'analytics.t_dist': { local: 'analytics.t', shardingKey: { column: 'k', type: 'String' } } },
  }),
);

async function clickhouse(url: string, sql: string, auth?: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`${url}/`, { method: 'POST', body: sql, headers: auth ? { authorization: `Basic ${Buffer.from(auth).toString('base64')}` } : {} });
  return { status: res.status, text: await res.text() };
}

it('a second stack on the same config: one line naming the first one, exit 1; another --data-dir runs beside it', async () => {
  const first = dev(['--config', config, '--port', '0']);
  const firstUrl = await first.ready;
  const firstPort = Number(new URL(firstUrl).port);
  // Without --users the interface says once that it checks nothing, and it does check nothing.
  await vi.waitFor(() => expect(first.stderr().match(/no users file: every credential is accepted/g)).toHaveLength(1));
  expect(await clickhouse(firstUrl, 'SELECT currentUser()', 'grafana:anything')).toEqual({ status: 200, text: 'grafana\n' });

  const second = dev(['--config', config, '--port', '0']);
  expect(await second.exited).toBe(1);
  expect(second.stdout()).toBe('');
  expect(second.stderr()).toBe(
    `ch-scatter dev: another stack on port ${firstPort} (pid ${first.child.pid}) holds the data directory ${path.join(dir, 'data/a')}; ` +
      `for a second stack use another config, or add --port ${firstPort + 1} --data-dir auto (or --data-dir DIR)\n`,
  );
  // The first stack is untouched.
  expect((await clickhouse(firstUrl, 'SELECT 1')).text).toBe('1\n');

  // --data-dir auto names its directories after the port: port 0 cannot.
  const auto0 = dev(['--config', config, '--port', '0', '--data-dir', 'auto']);
  expect(await auto0.exited).toBe(2);
  expect(auto0.stderr()).toMatch(/^ch-scatter dev: --data-dir auto names the directories after the port: give a --port other than 0; usage: /);

  const users = path.join(dir, 'users.json');
  fs.writeFileSync(users, JSON.stringify({ users: [{ name: 'grafana', password: hashPassword('secret', 1024) }] }));
  const beside = dev(['--config', config, '--port', '0', '--data-dir', path.join(dir, 'second'), '--users', users]);
  const besideUrl = await beside.ready;
  expect(beside.stderr()).not.toMatch(/no users file/);
  expect(fs.readFileSync(path.join(dir, 'second', 'a', HOLDER_FILE), 'utf8')).toBe(JSON.stringify({ pid: beside.child.pid, url: besideUrl }));
  expect(await clickhouse(besideUrl, 'SELECT currentUser()', 'grafana:secret')).toEqual({ status: 200, text: 'grafana\n' });
  expect((await clickhouse(besideUrl, 'SELECT currentUser()', 'grafana:wrong')).status).toBe(401);

  // Stopped cleanly, each stack gives its directories back.
  expect(await first.stop()).toBe(0);
  expect(await beside.stop()).toBe(0);
  for (const d of ['data/a', 'data/b', 'second/a', 'second/b']) expect(fs.existsSync(path.join(dir, d, HOLDER_FILE))).toBe(false);
  for (const d of [first, second, beside]) expect(d.stderr()).not.toMatch(/Cannot lock|failed to start|shard host/);
});
