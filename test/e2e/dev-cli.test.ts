// `ch-scatter dev --demo` as a user runs it: one `ready` line on stdout, a million demo rows
// queryable through the HTTP API, and a clean stop on SIGINT (exit 0, no shard processes left).
import fs from 'node:fs';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterAll, expect, it, vi } from 'vitest';
import { post, spawnDev, tempDir } from './support.js';

const dir = tempDir('dev');
let child: ChildProcess | undefined;

afterAll(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
});

it('dev --demo prints one ready line, serves the demo data and stops on SIGINT', async () => {
  const config = path.join(dir, 'topology.json');
  fs.writeFileSync(
    config,
    JSON.stringify({
      cluster: 'dev',
      shards: [
        { weight: 1, replicas: [{ embedded: 'a' }, { embedded: 'b' }] },
        { weight: 2, replicas: [{ embedded: 'c' }] },
      ],
      tables: { 'analytics.sensor_events_dist': { local: 'analytics.sensor_events', shardingKey: { column: 'sensor', type: 'String' } } },
    }),
  );
  const dev = spawnDev(['--config', config, '--port', '0', '--demo']);
  child = dev.child;
  const url = await dev.ready;
  expect(dev.stderr()).toMatch(/1,000,000 rows loaded/);
  // No --users: said once, at startup.
  await vi.waitFor(() => expect(dev.stderr().match(/no users file: every credential is accepted/g)).toHaveLength(1));

  const r = await post(`${url}/query`, { sql: 'SELECT count() AS c, uniqExact(sensor) AS u FROM analytics.sensor_events_dist' });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(r.body.data).toEqual([{ c: '1000000', u: '5000' }]);
  expect(r.body.shards.total).toBe(2);

  const t0 = Date.now();
  expect(await dev.stop()).toBe(0);
  expect(Date.now() - t0).toBeLessThan(10_000);
  expect(dev.stdout()).toBe(`ready ${url}\n`); // exactly one line on stdout, ever
  expect(dev.stderr()).toMatch(/example queries/);
  await expect(fetch(`${url}/health`)).rejects.toThrow();
});
