// The parity check against three real 18.16 servers (weights 1,2,1): the matching case passes,
// and deliberate mismatches (weights, shard count, expression, key type, cluster, table) are
// each reported; `ch-scatter check` exits 1 listing every difference. 18.16 cannot create a
// Distributed table with xxHash64, so identity keys stand in here (xxHash64 DDL: unit tests).
import { beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseTopology } from '../../shared/core/config/load.js';
import { createHttpAccess } from '../../shared/adapters/clickhouse/http.js';
import { checkParity } from '../../shared/core/sharding/index.js';
import { chHttp, useChServers } from '../support/ch-servers.js';

const servers = useChServers({ n: 3, portBase: 19120, weights: [1, 2, 1] });
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

beforeAll(async () => {
  for (const url of servers.current.urls) await chHttp(url, 'CREATE TABLE default.ev (id UInt64, n Int32) ENGINE = MergeTree() ORDER BY tuple()');
  const u0 = servers.current.urls[0]!;
  await chHttp(u0, 'CREATE TABLE default.ev_dist AS default.ev ENGINE = Distributed(scatter, default, ev, id)');
  await chHttp(u0, "CREATE TABLE default.ev_dist_q AS default.ev ENGINE = Distributed('scatter', 'default', 'ev', `n`)");
  await chHttp(u0, 'CREATE TABLE default.ev_dist_hash AS default.ev ENGINE = Distributed(scatter, default, ev, intHash64(id))');
  await chHttp(u0, 'CREATE TABLE default.ev_dist_nokey AS default.ev ENGINE = Distributed(scatter, default, ev)');
});

type Over = { weights?: number[]; table?: string; key?: { column: string; type: string }; cluster?: string; local?: string; shardingExpr?: string };
function config(o: Over = {}) {
  const urls = servers.current.urls;
  const weights = o.weights ?? [1, 2, 1];
  const table = o.table ?? 'default.ev_dist';
  return {
    cluster: o.cluster ?? 'scatter',
    shards: weights.map((weight, i) => ({ weight, replicas: [{ url: urls[i % urls.length]! }] })),
    tables: { [table]: { local: o.local ?? 'default.ev', shardingKey: { ...(o.key ?? { column: 'id', type: 'UInt64' }), function: 'identity' } } },
    distributedCheck: { table, endpoint: urls[0]!, ...(o.shardingExpr ? { shardingExpr: o.shardingExpr } : {}) },
  };
}

async function check(o: Over = {}) {
  const access = createHttpAccess({ url: servers.current.urls[0]! });
  try {
    return await checkParity(parseTopology(config(o)), access);
  } finally {
    await access.close();
  }
}

describe('checkParity against 18.16', () => {
  it('matching topology and DDL: ok, no warnings', async () => {
    expect(await check()).toEqual({ ok: true, problems: [], warnings: [] });
    // Quoted DDL arguments (cluster, db, table, column) still match.
    expect((await check({ table: 'default.ev_dist_q', key: { column: 'n', type: 'Int32' } })).problems).toEqual([]);
  });
  it('weights differ', async () => {
    const r = await check({ weights: [1, 1, 1] });
    expect(r.problems).toEqual(['weight of shards[1] (shard_num 2): config 1, cluster 2']);
  });
  it('shard count differs', async () => {
    const r = await check({ weights: [1, 2] });
    expect(r.problems).toEqual(['shard count: config has 2 shards, cluster "scatter" has 3']);
    const r4 = await check({ weights: [1, 2, 1, 1] });
    expect(r4.problems).toEqual(['shard count: config has 4 shards, cluster "scatter" has 3']);
  });
  it('sharding expression differs', async () => {
    const other = await check({ key: { column: 'n', type: 'Int32' } });
    expect(other.problems).toEqual(['sharding expression of default.ev_dist: DDL has id, config places rows by n']);
    const hashed = await check({ table: 'default.ev_dist_hash' });
    expect(hashed.problems).toEqual(['sharding expression of default.ev_dist_hash: DDL has intHash64(id), config places rows by id']);
    const none = await check({ table: 'default.ev_dist_nokey' });
    expect(none.problems).toEqual(['default.ev_dist_nokey has no sharding expression; config expects id']);
  });
  it('shardingExpr escape hatch compares the text', async () => {
    expect((await check({ table: 'default.ev_dist_hash', shardingExpr: 'intHash64( `id` )' })).problems).toEqual([]);
    expect((await check({ table: 'default.ev_dist_hash', shardingExpr: 'intHash32(id)' })).ok).toBe(false);
  });
  it('key type, cluster, local table and missing table are reported', async () => {
    expect((await check({ key: { column: 'id', type: 'UInt32' } })).problems).toEqual([
      'type of default.ev_dist.id: table has UInt64, config says UInt32 (the type decides the hashed bytes)',
    ]);
    const nc = await check({ cluster: 'nosuch' });
    expect(nc.problems).toContain(`cluster "nosuch" is not defined on ${servers.current.urls[0]} (remote_servers has: scatter)`);
    expect(nc.problems).toContain('default.ev_dist reads cluster "scatter", config cluster is "nosuch"');
    expect((await check({ local: 'default.other' })).problems).toEqual(['default.ev_dist points at default.ev, config local table is default.other']);
    expect((await check({ table: 'default.missing' })).problems).toEqual([`table default.missing does not exist on ${servers.current.urls[0]}`]);
  });
});

describe('ch-scatter check', () => {
  const dir = mkdtempSync(join(tmpdir(), 'h1-check-'));
  const cli = (o: Over) => {
    const file = join(dir, `c-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(file, JSON.stringify(config(o)));
    return spawnSync(process.execPath, [join(ROOT, 'bin/ch-scatter.mjs'), 'check', '--config', file], { cwd: ROOT, encoding: 'utf8' });
  };
  it('exit 0 when lined up', () => {
    const r = cli({});
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/parity OK: cluster "scatter", table default.ev_dist/);
    expect(r.status).toBe(0);
  });
  it('exit 1 listing every difference', () => {
    const r = cli({ weights: [2, 2], key: { column: 'n', type: 'Int32' } });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/parity FAILED: .*: 3 difference\(s\)/);
    expect(r.stderr).toMatch(/shard count: config has 2 shards, cluster "scatter" has 3/);
    expect(r.stderr).toMatch(/weight of shards\[0\] \(shard_num 1\): config 2, cluster 1/);
    expect(r.stderr).toMatch(/DDL has id, config places rows by n/);
  });
});
