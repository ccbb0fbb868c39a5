// Faults, read-only enforcement and the parity guard on real clickhouse-server 18.16 (three
// servers on loopback, ports 19700-19752), through the whole runtime: API server or coordinator
// Lambda handler -> the default query invoker -> Invoke endpoint -> shard functions -> HTTP adapter
// -> 18.16.
// (Shard-level versions of some of these, without the coordinator, are in
// test/server/http-shard-exec.test.ts and http-shard-host.test.ts.)
//
//   fault matrix  a replica refusing connections, with and without a second replica; a query
//                 slower than the deadline (running on the server while the client waits, gone
//                 from system.processes right after the answer: KILLed); the coordinator's own
//                 Lambda remaining time shorter than the request's timeout;
//   read-only     writes smuggled to the shard executor as the request SQL, through its settings or
//                 as an admin request are refused, and readonly=2 (what the executor enforces) is
//                 honoured by 18.16 itself even against a query-level SETTINGS readonly = 0;
//   parity guard  a coordinator whose config disagrees with the cluster (weights, shard count,
//                 sharding expression) refuses to serve when distributedCheck is on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTopology } from '../../shared/core/config/load.js';
import type { Topology } from '../../shared/core/config/schema.js';
import { startLocalShards, startLocalStack, type LocalShards, type LocalStack } from '../../local/stack.js';
import { createHttpAccess } from '../../shared/adapters/clickhouse/http.js';
import type { ClickHouseAccess } from '../../shared/core/clickhouse/port.js';
import { executeShardRequest } from '../../shared/core/shard/execute.js';
import type { ShardFailure, ShardRequest, ShardSuccess } from '../../shared/core/protocol/shard-wire.js';
import { chHttp, chRows, useChServers } from '../support/ch-servers.js';
import { directCoordinator, httpEvent } from './coordinator-direct.js';

const servers = useChServers({ n: 3, portBase: 19700, weights: [1, 1, 1] });
const DEAD_A = 'http://127.0.0.1:19798'; // nothing listens here: connection refused
const DEAD_B = 'http://127.0.0.1:19797';
const PER_SERVER = [100, 300, 100]; // server 1 holds the rows the slow query sleeps over
const DIST = 'default.ev_dist';
// The slow table: a view that sleeps 20 ms per row it reads (queries may not call sleep functions themselves).
const SLOW_DIST = 'default.ev_slow_dist';

let stack: LocalStack;
let urls: string[];

/** identity key `id` (UInt64), weights 1,1,1: row id lives on shard id % 3, like the Distributed table. */
function topology(shards: Array<{ weight?: number; urls: string[] }>, extra: Record<string, unknown> = {}, key = 'id'): Topology {
  return parseTopology({
    cluster: 'scatter',
    shards: shards.map((s) => ({ weight: s.weight ?? 1, replicas: s.urls.map((url) => ({ url })) })),
    tables: {
      [DIST]: { local: 'default.ev', shardingKey: { column: key, type: 'UInt64', function: 'identity' } },
      [SLOW_DIST]: { local: 'default.ev_slow', shardingKey: { column: key, type: 'UInt64', function: 'identity' } },
    },
    ...extra,
  });
}

beforeAll(async () => {
  urls = servers.current.urls;
  for (const [i, url] of urls.entries()) {
    await chHttp(url, 'CREATE TABLE default.ev (id UInt64, v UInt64) ENGINE = MergeTree() ORDER BY id');
    await chHttp(url, `INSERT INTO default.ev SELECT number * 3 + ${i} AS id, number AS v FROM numbers(${PER_SERVER[i]})`);
    await chHttp(url, 'CREATE VIEW default.ev_slow AS SELECT * FROM default.ev WHERE sleepEachRow(0.02) = 0');
  }
  await chHttp(urls[0]!, `CREATE TABLE ${DIST} AS default.ev ENGINE = Distributed(scatter, default, ev, id)`);
  await chHttp(urls[0]!, 'CREATE TABLE default.ev_dist_v AS default.ev ENGINE = Distributed(scatter, default, ev, v)');
  // shard 0: a dead replica and a live one; shard 1: live; shard 2: only a dead replica.
  stack = await startLocalStack({ topo: topology([{ urls: [DEAD_A, urls[0]!] }, { urls: [urls[1]!] }, { urls: [DEAD_B] }]), logLevel: 'SILENT' });
  await fetch(`${stack.url}/health`);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

async function post(body: unknown, headers: Record<string, string> = {}) {
  const t0 = performance.now();
  const r = await fetch(`${stack.url}/query`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: r.status, body: (await r.json()) as any, ms: performance.now() - t0 };
}

/** Wait (briefly) until no query whose id starts with `prefix` runs on `url`; returns how many still run. */
async function runningLike(url: string, prefix: string, waitMs = 1000): Promise<number> {
  const t0 = Date.now();
  for (;;) {
    const n = Number((await chRows<{ c: string }>(url, `SELECT count() AS c FROM system.processes WHERE query_id LIKE '${prefix}%'`))[0]!.c);
    if (n === 0 || Date.now() - t0 > waitMs) return n;
    await new Promise((r) => setTimeout(r, 25));
  }
}

// Only shard 1 can hold ids 1, 4, 7 (pruning skips the others). The view sleeps for every row it
// reads (the whole table: 300 rows), 20 ms each: ~6 s. max_block_size keeps each block's sleep
// short (18.16 refuses more than 3 s of sleep in one block).
const SLOW_SQL = `SELECT count() AS c FROM ${SLOW_DIST} WHERE id IN (1, 4, 7)`;

describe('fault matrix on clickhouse-server 18.16 through the coordinator', () => {
  it('a replica refusing connections, with a second replica: retried there, complete', async () => {
    let retried = 0;
    for (let i = 0; i < 2; i++) {
      // round-robin primaries: one of the two runs starts on the dead replica of shard 0
      const r = await post({ sql: `SELECT count() AS c, sum(v) AS s FROM ${DIST} WHERE id IN (0, 3, 6)`, timeoutMs: 5000 });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.partial).toBe(false);
      expect(r.body.data).toEqual([{ c: '3', s: '3' }]);
      expect(r.body.shards).toMatchObject({ queried: 1, skipped: 2, succeeded: 1, missing: [] });
      expect(r.body.statistics.shards[0]).toMatchObject({ shard: 0, replica: 1, status: 'ok' });
      if (r.body.statistics.shards[0].retried) retried++;
    }
    expect(retried).toBe(1);
  });

  it('a replica refusing connections, with no second replica: partial, reason unavailable, the rest exact', async () => {
    const r = await post({ sql: `SELECT count() AS c FROM ${DIST}`, timeoutMs: 5000 });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.partial).toBe(true);
    expect(r.body.shards).toMatchObject({ total: 3, queried: 3, succeeded: 2, failed: 1, timedOut: 0 });
    expect(r.body.shards.missing).toEqual([expect.objectContaining({ shard: 2, reason: 'unavailable' })]);
    expect(r.body.data).toEqual([{ c: String(PER_SERVER[0]! + PER_SERVER[1]!) }]);
    // requireComplete: the same fault is a 504 that still names the shard
    const strict = await post({ sql: `SELECT count() AS c FROM ${DIST}`, timeoutMs: 5000, requireComplete: true });
    expect(strict.status).toBe(504);
    expect(strict.body.error.code).toBe('INCOMPLETE_RESULT');
    expect(strict.body.shards.missing.map((m: { shard: number }) => m.shard)).toEqual([2]);
  });

  it('18.16 caps sleep() at 3 s per block: a slow query is many short blocks, not one sleep(5)', async () => {
    await expect(chHttp(urls[1]!, 'SELECT sleep(3.5)')).rejects.toThrow(/Code: 160/); // TOO_SLOW
    await expect(chHttp(urls[1]!, 'SELECT sleepEachRow(1) FROM numbers(4)')).rejects.toThrow(/Code: 160/);
  });

  it('ClickHouse slower than the deadline: answered at the deadline, and the server query is KILLed', async () => {
    const timeoutMs = 1000;
    const qid = `h9-slow-${Date.now()}`;
    const pending = post({ sql: SLOW_SQL, timeoutMs, settings: { max_block_size: 8 } }, { 'x-query-id': qid });
    // while the request waits, the query runs on the server (so "gone afterwards" means killed)
    const during = async () => Number((await chRows<{ c: string }>(urls[1]!, `SELECT count() AS c FROM system.processes WHERE query_id LIKE '${qid}%'`))[0]!.c);
    await expect.poll(during, { timeout: timeoutMs, interval: 25 }).toBe(1);
    const r = await pending;
    expect(r.ms).toBeLessThan(timeoutMs + 500);
    expect(r.status, JSON.stringify(r.body)).toBe(504); // the only queried shard timed out: no partial to give
    expect(r.body.error.code).toBe('TIMEOUT');
    expect(r.body.shards).toMatchObject({ queried: 1, skipped: 2, timedOut: 1, missing: [expect.objectContaining({ shard: 1, reason: 'timeout' })] });
    // the server side: nothing left running for this query id, well before the ~6 s it would take
    const t0 = Date.now();
    expect(await runningLike(urls[1]!, qid)).toBe(0);
    expect(Date.now() - t0).toBeLessThan(1000);
  });

  it("the coordinator's remaining Lambda time, shorter than the request's timeout, sets the deadline", async () => {
    const direct = directCoordinator(stack.topo, stack.invokeUrl);
    const qid = `h9-lambda-${Date.now()}`;
    const remainingMs = 1500;
    const t0 = performance.now();
    const r = await direct(
      httpEvent('POST', '/query', JSON.stringify({ sql: SLOW_SQL, timeoutMs: 20_000, settings: { max_block_size: 8 } }), { 'x-query-id': qid }),
      remainingMs,
    );
    const ms = performance.now() - t0;
    // the deadline is remaining - 250 ms safety margin = 1250 ms: an answer before Lambda kills us
    expect(ms).toBeGreaterThan(1200);
    expect(ms).toBeLessThan(remainingMs);
    expect(r.status, r.text).toBe(504);
    expect(r.body.error.code).toBe('TIMEOUT');
    const budget = Number(/no shard answered within (\d+) ms/.exec(r.body.error.message)?.[1]);
    expect(budget).toBeGreaterThan(1150); // remaining time at arrival - 250, not the request's 20 s
    expect(budget).toBeLessThanOrEqual(1250);
    expect(await runningLike(urls[1]!, qid)).toBe(0);
  });
});

describe('shard queries are read-only on 18.16', () => {
  let ch: ClickHouseAccess;
  beforeAll(() => {
    ch = createHttpAccess({ url: urls[0]! });
  });
  afterAll(async () => {
    await ch?.close();
  });
  const req = (over: Partial<ShardRequest> & Record<string, unknown>): ShardRequest =>
    ({
      type: 'query',
      queryId: 'h9-ro',
      shard: 0,
      replica: 0,
      sql: 'SELECT 1 AS one',
      deadline: Date.now() + 5000,
      settings: {},
      external: [],
      attempt: 'primary',
      ...over,
    }) as ShardRequest;
  const state = async () => ({
    rows: await chRows(urls[0]!, 'SELECT count() AS c, sum(v) AS s FROM default.ev'),
    tables: await chRows(urls[0]!, "SELECT database, name FROM system.tables WHERE database NOT IN ('system') ORDER BY database, name"),
    databases: await chRows(urls[0]!, 'SELECT name FROM system.databases ORDER BY name'),
  });

  it('writes smuggled to the shard executor are refused, and nothing changed', async () => {
    const before = await state();
    const attempts: Array<Record<string, unknown>> = [
      { sql: 'INSERT INTO default.ev SELECT * FROM default.ev' },
      { sql: 'INSERT INTO default.ev SELECT * FROM default.ev', settings: { readonly: 0 } },
      { sql: 'INSERT INTO default.ev SELECT * FROM default.ev', settings: { readonly: 0, allow_ddl: 1 } },
      { sql: 'SELECT count() FROM default.ev SETTINGS readonly = 0' },
      { sql: 'SELECT count() FROM default.ev settings readonly=0, max_threads=1' },
      { sql: 'CREATE TABLE default.h9_evil (a UInt8) ENGINE = Memory', settings: { allow_ddl: 1 } },
      { sql: 'CREATE DATABASE h9_evil' },
      { sql: 'DROP TABLE default.ev' },
      { sql: 'TRUNCATE TABLE default.ev' },
      { sql: 'ALTER TABLE default.ev DELETE WHERE 1' },
      { sql: 'RENAME TABLE default.ev TO default.ev2' },
      { sql: 'OPTIMIZE TABLE default.ev FINAL' },
      { sql: 'SELECT 1; DROP TABLE default.ev' },
      { sql: 'SET readonly = 0' },
      { type: 'exec', sql: 'DROP TABLE default.ev' },
      { type: 'insert', table: 'default.ev', rows: [{ id: 999, v: 1 }] },
    ];
    for (const a of attempts) {
      const r = (await executeShardRequest(req(a), ch, { now: Date.now })) as ShardFailure;
      expect(r.ok, JSON.stringify(a)).toBe(false);
      expect(r.error.kind, JSON.stringify(a)).toBe('error');
    }
    expect(await state()).toEqual(before);
  });

  it('readonly=2, as the executor sets it, is enforced by 18.16 itself (a query-level SETTINGS readonly = 0 cannot lift it)', async () => {
    const before = await state();
    for (const sql of [
      'INSERT INTO default.ev SELECT * FROM default.ev',
      'INSERT INTO default.ev SELECT * FROM default.ev SETTINGS readonly = 0',
      'CREATE TABLE default.h9_evil (a UInt8) ENGINE = Memory',
      'DROP TABLE default.ev',
      'ALTER TABLE default.ev DELETE WHERE 1',
    ]) {
      await expect(ch.exec(sql, { settings: { readonly: 2 } }), sql).rejects.toMatchObject({ chCode: expect.any(Number) });
    }
    await expect(ch.query('SELECT count() AS c FROM default.ev SETTINGS readonly = 0', { settings: { readonly: 2 } })).rejects.toThrow(
      /readonly|Cannot modify/i,
    );
    expect(await state()).toEqual(before);
    // ...while reads still work under it
    const ok = (await executeShardRequest(req({ sql: 'SELECT count() AS c FROM default.ev' }), ch, { now: Date.now })) as ShardSuccess;
    expect(ok.rows).toEqual([{ c: String(PER_SERVER[0]) }]);
  });
});

describe('the parity guard at coordinator startup (distributedCheck on)', () => {
  // Shard functions of a healthy three-shard topology (the guard reads each shard's system.clusters
  // through its shard function).
  let shards: LocalShards;
  beforeAll(async () => {
    shards = await startLocalShards(topology(urls.map((u) => ({ urls: [u] }))));
  }, 60_000);
  afterAll(async () => {
    await shards?.stop();
  });
  const check = () => ({ distributedCheck: { table: DIST, endpoint: urls[0]! } });
  const ask = async (topo: Topology) => {
    const h = directCoordinator(topo, shards.invokeUrl);
    const a = await h(httpEvent('POST', '/query', JSON.stringify({ sql: `SELECT count() AS c FROM ${DIST}`, timeoutMs: 5000 })));
    const b = await h(httpEvent('POST', '/query', JSON.stringify({ sql: `SELECT count() AS c FROM ${DIST}`, timeoutMs: 5000 })));
    return [a, b];
  };

  it('serves when the config matches the cluster', async () => {
    const [a] = await ask(
      topology(
        urls.map((u) => ({ urls: [u] })),
        check(),
      ),
    );
    expect(a!.status, a!.text).toBe(200);
    expect(a!.body.data).toEqual([{ c: String(PER_SERVER.reduce((x, y) => x + y, 0)) }]);
  });

  for (const [what, topo, why] of [
    [
      'weights differ',
      () =>
        topology(
          urls.map((u, i) => ({ urls: [u], weight: i === 1 ? 2 : 1 })),
          check(),
        ),
      /weight/i,
    ],
    [
      'shard count differs',
      () =>
        topology(
          urls.slice(0, 2).map((u) => ({ urls: [u] })),
          check(),
        ),
      /shard/i,
    ],
    [
      'sharding expression differs',
      () =>
        topology(
          urls.map((u) => ({ urls: [u] })),
          check(),
          'v',
        ),
      /expression|key|sharding/i,
    ],
  ] as const) {
    it(`refuses to serve when ${what}: every request fails with the reason`, async () => {
      const results = await ask(topo());
      for (const r of results) {
        expect(r.status, r.text).toBe(500);
        expect(r.body.error.code).toBe('INTERNAL');
        expect(r.body.error.message).toMatch(/parity/i);
        expect(r.body.error.message).toMatch(why);
        expect(r.text).not.toMatch(/\n\s+at /);
      }
    });
  }
});
