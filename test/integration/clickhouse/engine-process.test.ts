// Engines in child processes: several directories at once (impossible in one process),
// overlapping calls, BigInt over IPC, and a crashed child rejecting pending calls.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClickHouseError } from '../../../shared/core/clickhouse/port.js';
import { startEmbeddedCluster, type EmbeddedCluster } from '../../support/embedded-cluster.js';

let cluster: EmbeddedCluster;

beforeAll(async () => {
  cluster = await startEmbeddedCluster({ shards: 2, withOracle: true });
});
afterAll(async () => {
  await cluster?.stop();
});

describe('engine processes', () => {
  it('runs one engine per directory, each in its own process', async () => {
    const pids = new Set(cluster.processes.map((p) => p.pid));
    expect(pids.size).toBe(3);
    expect(pids.has(process.pid)).toBe(false);
    await cluster.execAll('CREATE TABLE t (k UInt64, s String) ENGINE = MergeTree ORDER BY k');
    await cluster.shards[0]!.insert('t', [
      { k: 1n, s: 'a' },
      { k: '2', s: 'b' },
    ]);
    await cluster.shards[1]!.insert('t', [{ k: 3, s: 'c' }]);
    const [a, b, o] = await Promise.all([
      cluster.shards[0]!.query('SELECT count() AS c FROM t'),
      cluster.shards[1]!.query('SELECT count() AS c FROM t'),
      cluster.oracle!.query('SELECT count() AS c FROM t'),
    ]);
    expect([a.rows, b.rows, o.rows]).toEqual([[{ c: '2' }], [{ c: '1' }], [{ c: '0' }]]);
  });

  it('serves many overlapping calls and passes errors with their codes', async () => {
    const s = cluster.shards[0]!;
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => s.query(`SELECT ${i} AS i, sum(k) AS sk FROM t`)));
    expect(results.map((r) => r.rows[0])).toEqual(Array.from({ length: 20 }, (_, i) => ({ i, sk: '3' })));
    const e = (await s.query('SELECT nope FROM t').catch((x: unknown) => x)) as ClickHouseError;
    expect(e).toBeInstanceOf(ClickHouseError);
    expect(e.chCode).toBe(47);
    expect(e.kind).toBe('server');
  });

  it('aborts a call locally on its signal', async () => {
    const ac = new AbortController();
    const p = cluster.shards[1]!.query('SELECT sleep(0.3) AS z', { signal: ac.signal });
    ac.abort();
    const e = (await p.catch((x: unknown) => x)) as ClickHouseError;
    expect(e.kind).toBe('aborted');
    expect((await cluster.shards[1]!.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });

  it('rejects pending calls with kind connection when the child dies', async () => {
    const victim = cluster.processes[2]!; // the oracle
    const p = victim.query('SELECT sleep(2) AS z');
    await new Promise((r) => setTimeout(r, 100));
    victim.kill();
    const e = (await p.catch((x: unknown) => x)) as ClickHouseError;
    expect(e).toBeInstanceOf(ClickHouseError);
    expect(e.kind).toBe('connection');
    await victim.exited;
    const e2 = (await victim.query('SELECT 1').catch((x: unknown) => x)) as ClickHouseError;
    expect(e2.kind).toBe('connection');
    expect(await victim.ping()).toBe(false);
  });
});
