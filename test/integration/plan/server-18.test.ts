// Every per-shard SQL of the golden corpus is valid on Debian's clickhouse-server 18.16 too (the
// oldest engine we target), with shipped GLOBAL data as HTTP external tables. One server holds
// every shard's local tables (this checks the text, not placement: 18.16 has no xxHash64).
// Ports 19400/19401 (this area's range).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpAccess } from '../../../shared/clickhouse/http.js';
import type { ClickHouseAccess } from '../../../shared/clickhouse/port.js';
import { planQueryWith } from '../../../shared/plan/build.js';
import type { QueryPlan, SubqueryRunner } from '../../../shared/plan/types.js';
import { CORPUS } from '../../unit/plan/corpus.js';
import { LOCAL_DDL, passThroughSplit, testTopology } from '../../unit/plan/fixtures.js';
import { externalsFor, generateData } from './cluster-fixture.js';

const HTTP = 19400;
const TCP = 19401;
const SERVER = '/usr/sbin/clickhouse-server';
const topo = testTopology();
let proc: ChildProcess | undefined;
let dir: string;
let ch: ClickHouseAccess;

// 18.16 refuses a JOIN without ANY/ALL unless join_default_strictness is set (a forwarded setting).
const SETTINGS_18 = { join_default_strictness: 'ALL' };

async function waitPing(url: string, ms: number): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      if ((await fetch(`${url}/ping`)).ok) return;
    } catch {
      /* not yet */
    }
    if (Date.now() > until) throw new Error('clickhouse-server 18.16 did not answer /ping');
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  expect(fs.existsSync(SERVER), `${SERVER} missing: run scripts/install-deps.sh`).toBe(true);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plan-18-'));
  fs.writeFileSync(
    path.join(dir, 'users.xml'),
    `<yandex><profiles><default></default></profiles>
<users><default><password></password><networks><ip>::/0</ip></networks><profile>default</profile><quota>default</quota></default></users>
<quotas><default></default></quotas></yandex>`,
  );
  fs.writeFileSync(
    path.join(dir, 'config.xml'),
    `<yandex>
<logger><level>warning</level><log>${dir}/log.txt</log><errorlog>${dir}/err.txt</errorlog></logger>
<http_port>${HTTP}</http_port><tcp_port>${TCP}</tcp_port><listen_host>127.0.0.1</listen_host>
<path>${dir}/data/</path><tmp_path>${dir}/data/tmp/</tmp_path><user_files_path>${dir}/data/user_files/</user_files_path>
<users_config>${dir}/users.xml</users_config><default_profile>default</default_profile><default_database>default</default_database>
<mark_cache_size>5368709</mark_cache_size></yandex>`,
  );
  proc = spawn(SERVER, [`--config-file=${dir}/config.xml`], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${HTTP}`;
  await waitPing(url, 20_000);
  ch = createHttpAccess({ url });
  for (const ddl of LOCAL_DDL) await ch.exec(ddl);
  for (const [table, rows] of Object.entries(generateData())) if (rows.length) await ch.insert(table, rows);
}, 60_000);

afterAll(async () => {
  await ch?.close();
  if (proc && proc.exitCode === null) {
    const gone = new Promise((r) => proc!.once('exit', r));
    proc.kill('SIGTERM');
    await gone;
  }
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

async function runAll(plan: QueryPlan): Promise<{ rows: Record<string, unknown>[]; meta: { name: string; type: string }[] }> {
  const rows: Record<string, unknown>[] = [];
  let meta: { name: string; type: string }[] = [];
  for (const s of plan.shards) {
    if (s.skipped) continue;
    const res = await ch.query(s.sql!, { settings: { ...plan.settings, ...SETTINGS_18 }, external: externalsFor(plan, s.shard) });
    rows.push(...res.rows);
    meta = res.meta;
  }
  return { rows, meta };
}

const runner: SubqueryRunner = async (stmt) => {
  const plan = await planQueryWith(stmt, topo, {}, passThroughSplit);
  return runAll(plan);
};

describe('corpus shard SQL on clickhouse-server 18.16', () => {
  it.each(CORPUS.map((e, i) => [i, e.sql, e] as const))('[%i] %s', async (_i, sql, entry) => {
    const plan = await planQueryWith(sql, topo, { ...entry.opts, runSubquery: runner }, passThroughSplit);
    const queried = plan.shards.filter((s) => !s.skipped);
    expect(queried.length).toBeGreaterThan(0);
    if (entry.rejectedBy18) {
      // 18.16 refuses the user's own query (e.g. a string in an integer IN set); the rewrite keeps the literal as written.
      await expect(runAll(plan)).rejects.toThrow(entry.rejectedBy18);
      return;
    }
    await runAll(plan); // throws with the server's message if 18.16 rejects a shard's text
  });
});
