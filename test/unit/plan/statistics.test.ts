// What statistics pruning decides, given each shard's ranges (the chdb property in
// test/integration/scatter/statistics-pruning.test.ts checks it against real rows): which predicates
// and types rule a shard out, and the cases that must never prune (OR, NOT, strings, floats, an alias
// or a JOIN that changes what a column name means, a zone whose clock goes back).
import { describe, expect, it } from 'vitest';
import { parseTopology } from '../../../shared/core/config/load.js';
import { planQuery } from '../../../shared/core/plan/index.js';
import type { ShardTableStats, TableStatistics } from '../../../shared/core/plan/statistics.js';

const topo = parseTopology({
  cluster: 't',
  shards: [0, 1].map((i) => ({ replicas: [{ url: `http://ch-${i}:8123` }] })),
  tables: {
    'db.t_dist': {
      local: 'db.t',
      shardingKey: { column: 'id', type: 'UInt64', function: 'identity' },
      statistics: ['ts', 'tz', 'd', 'n', 's', 'f', 'nn'],
    },
    'db.u_dist': { local: 'db.u', shardingKey: { column: 'id', type: 'UInt64', function: 'identity' } },
  },
});

const shard = (lo: number, zone = 'UTC', rows = 10n): ShardTableStats => ({
  rows,
  timezone: zone,
  columns: {
    ts: { type: 'DateTime', min: `2024-01-0${lo} 00:00:00`, max: `2024-01-0${lo} 23:59:59` },
    tz: { type: "DateTime('Europe/Amsterdam')", min: `2024-10-2${lo} 00:00:00`, max: `2024-10-2${lo} 12:00:00` },
    d: { type: 'Date', min: `2024-01-0${lo}`, max: `2024-01-0${lo}` },
    n: { type: 'Int32', min: String(lo * 100), max: String(lo * 100 + 9) },
    s: { type: 'String', min: `a${lo}`, max: `a${lo}z` },
    f: { type: 'Float64', min: String(lo), max: String(lo + 0.5) },
    nn: null,
  },
});
const stats = (zone = 'UTC'): TableStatistics => ({ table: 'db.t_dist', shards: [shard(1, zone), shard(5, zone)] });

async function skipped(where: string, zone = 'UTC', table = 'db.t_dist'): Promise<boolean[]> {
  const plan = await planQuery(`SELECT count() FROM ${table} WHERE ${where}`, topo, { statistics: async (t) => (t === 'db.t_dist' ? stats(zone) : undefined) });
  return plan.shards.map((s) => s.skipped);
}

describe('statistics pruning decisions', () => {
  it('prunes on ranges, BETWEEN, = and IN of integers, Dates and DateTimes, ANDed with anything', async () => {
    expect(await skipped('n >= 500')).toEqual([true, false]);
    expect(await skipped('n < 500')).toEqual([false, true]);
    expect(await skipped('n BETWEEN 100 AND 109')).toEqual([false, true]);
    expect(await skipped('150 > n')).toEqual([false, true]);
    expect(await skipped('n IN (105, 300, NULL)')).toEqual([false, true]);
    expect(await skipped('n = -1')).toEqual([false, true]); // both ruled out: shard 0 still answers, for the answer's shape
    expect(await skipped("d = '2024-01-05'")).toEqual([true, false]);
    expect(await skipped("d > toDate('2024-01-01')")).toEqual([true, false]);
    expect(await skipped("ts >= '2024-01-02 00:00:00' AND lower(s) = 'x'")).toEqual([true, false]);
    expect(await skipped("ts < toDateTime('2024-01-01 23:59:59')")).toEqual([false, true]);
    expect(await skipped("ts <= toDateTime('2024-01-01 23:59:59')")).toEqual([false, true]);
  });

  it('never prunes on OR, NOT, strings, floats, all-NULL columns, unparsed literals or functions of the column', async () => {
    for (const where of [
      'n >= 500 OR n < 0',
      'NOT (n < 500)',
      "s > 'b'",
      'f > 100',
      'nn > 5',
      "ts > '2024-01-02'",
      "ts > toDateTime('2024-01-02 00:00:00', 'UTC')",
      'n + 0 >= 500',
      'n >= 500.5',
      "d > '2024-02-31'",
    ])
      expect(await skipped(where), where).toEqual([false, false]);
  });

  it('an alias or a JOIN that changes what the name means turns statistics pruning off', async () => {
    // `n` in WHERE is the alias: no statistics of the column n prune it (the fast path refuses the
    // alias beside its column outright, and the general path's leaves have no aliases left).
    const alias = await planQuery('SELECT n * 0 AS n, count() AS c FROM db.t_dist WHERE n >= 500 GROUP BY n', topo, { statistics: async () => stats() });
    expect(alias.shards.map((s) => s.skipped)).toEqual([false, false]);
    await expect(planQuery('SELECT n * 0 AS n FROM db.t_dist WHERE n >= 500', topo, { statistics: async () => stats() })).rejects.toThrow(
      /the alias n names a column/,
    );
    const join = await planQuery('SELECT count() FROM db.t_dist AS a GLOBAL JOIN (SELECT 1 AS n) AS b USING n WHERE n >= 500', topo, {
      statistics: async () => stats(),
    });
    expect(join.shards.map((s) => s.skipped)).toEqual([false, false]);
  });

  it('a DateTime in a zone whose clock goes back is compared with a two-day margin; UTC exactly', async () => {
    // Shard 0 holds 2024-10-21 (Amsterdam); a day later is within the margin, three days later is not.
    expect(await skipped("tz >= '2024-10-22 13:00:00'")).toEqual([false, false]);
    expect(await skipped("tz >= '2024-10-24 13:00:00'")).toEqual([true, false]);
    // Server zone decides for a DateTime without one.
    expect(await skipped("ts >= '2024-01-02 00:00:00'", 'Europe/Amsterdam')).toEqual([false, false]);
    expect(await skipped("ts >= '2024-01-04 00:00:00'", 'Europe/Amsterdam')).toEqual([true, false]);
  });

  it('a shard with no rows is ruled out by any predicate on a configured column; the reason says which', async () => {
    const empty: TableStatistics = { table: 'db.t_dist', shards: [{ ...shard(1), rows: 0n }, shard(5)] };
    const plan = await planQuery("SELECT count() FROM db.t_dist WHERE s = 'q'", topo, { statistics: async () => empty });
    expect(plan.shards[0]).toMatchObject({ skipped: true, reason: "statistics: the shard holds no row of db.t_dist (so none where s = 'q')" });
    const nothing = await planQuery('SELECT count() FROM db.t_dist', topo, { statistics: async () => empty });
    expect(nothing.shards.map((s) => s.skipped)).toEqual([false, false]);
  });

  it('unknown shard statistics never prune; optimize_skip_unused_shards = 0 turns pruning off', async () => {
    const partly: TableStatistics = { table: 'db.t_dist', shards: [undefined, shard(5)] };
    const plan = await planQuery('SELECT count() FROM db.t_dist WHERE n >= 9000', topo, { statistics: async () => partly });
    expect(plan.shards.map((s) => s.skipped)).toEqual([false, true]);
    const off = await planQuery('SELECT count() FROM db.t_dist WHERE n >= 500 SETTINGS optimize_skip_unused_shards = 0', topo, {
      statistics: async () => stats(),
    });
    expect(off.shards.map((s) => s.skipped)).toEqual([false, false]);
  });
});
