// The fast path has no window-function evaluator: a window function or WINDOW clause is refused
// as UNSUPPORTED with the position of the call, before any shard is asked (the two-stage path
// answers such queries).
import { describe, expect, it } from 'vitest';
import { planQuery } from '../../../shared/core/plan/index.js';
import type { ScatterError } from '../../../shared/core/errors.js';
import { testTopology } from './fixtures.js';

async function refusal(sql: string): Promise<ScatterError> {
  try {
    await planQuery(sql, testTopology());
  } catch (e) {
    return e as ScatterError;
  }
  throw new Error(`planned: ${sql}`);
}

describe('fast path: window functions stay refused', () => {
  const cases: [string, { line: number; column: number }][] = [
    ['SELECT sum(value) OVER (PARTITION BY sensor) FROM analytics.events_dist', { line: 1, column: 8 }],
    ['SELECT sensor,\n  rank() OVER w FROM analytics.events_dist WINDOW w AS (ORDER BY ts)', { line: 2, column: 3 }],
    ['SELECT sensor, sum(count()) OVER (ORDER BY sensor) FROM analytics.events_dist GROUP BY sensor', { line: 1, column: 16 }],
  ];
  for (const [sql, position] of cases) {
    it(sql, async () => {
      const e = await refusal(sql);
      expect(e.code).toBe('UNSUPPORTED');
      expect(e.message).toMatch(/Window functions \(OVER\)/);
      expect(e.position).toEqual(position);
    });
  }
  it('a WINDOW clause nobody uses is refused too', async () => {
    const e = await refusal('SELECT sensor FROM analytics.events_dist WINDOW w AS (ORDER BY ts)');
    expect(e.code).toBe('UNSUPPORTED');
    expect(e.message).toMatch(/WINDOW clause/);
  });
  it('GROUPING SETS stays refused too', async () => {
    const e = await refusal('SELECT sensor, count() FROM analytics.events_dist GROUP BY GROUPING SETS ((sensor), ())');
    expect(e.code).toBe('UNSUPPORTED');
    expect(e.message).toMatch(/GROUPING SETS/);
    expect(e.position).toEqual({ line: 1, column: 76 });
  });
});

describe("a GLOBAL subquery's window function or ROLLUP is its own: planned apart, it refuses nothing of the main query's plan", () => {
  const planned = [
    'SELECT count() FROM analytics.events_dist WHERE sensor GLOBAL IN (SELECT sensor FROM (SELECT sensor, rank() OVER (ORDER BY ts) AS r FROM analytics.events_dist) WHERE r < 3)',
    'SELECT count() FROM analytics.events_dist WHERE sensor GLOBAL NOT IN (SELECT sensor FROM analytics.events_dist GROUP BY sensor WITH ROLLUP)',
    'SELECT e.sensor, r.n FROM analytics.events_dist AS e GLOBAL JOIN (SELECT sensor, row_number() OVER () AS n FROM analytics.events_dist) AS r USING sensor',
    "SELECT count() FROM analytics.events_dist WHERE sensor IN (SELECT sensor FROM analytics.events_dist GROUP BY sensor WITH CUBE) SETTINGS distributed_product_mode = 'global'",
    'SELECT count() FROM analytics.events_dist WHERE value > (SELECT max(v) FROM (SELECT value AS v, rank() OVER (ORDER BY ts) AS r FROM analytics.events_dist) WHERE r < 3)',
  ];
  for (const sql of planned) it(sql, async () => expect((await planQuery(sql, testTopology())).shards.length).toBeGreaterThan(0));
  it('a window function in a table-less scalar, set, local IN set or JOIN: each shard runs it', async () => {
    // Not local: the set is shipped from the coordinator, or deny refuses it.
    expect(
      (
        await refusal(
          'SELECT count() FROM analytics.events_dist WHERE sensor IN (SELECT sensor FROM (SELECT sensor, rank() OVER () AS r FROM analytics.events_dist))',
        )
      ).message,
    ).toMatch(/Window functions \(OVER\)|distributed_product_mode = 'deny'/);
    for (const sql of [
      'SELECT count() FROM analytics.events_dist WHERE value > (SELECT max(number) OVER () FROM numbers(3))',
      'SELECT count() FROM analytics.events_dist WHERE has((SELECT groupArray(x) FROM (SELECT row_number() OVER () AS x FROM numbers(3))), toUInt64(value))',
      'SELECT count() FROM analytics.events_dist WHERE value IN (SELECT max(number) OVER () FROM numbers(3))',
      'SELECT count() FROM analytics.events_dist WHERE value GLOBAL IN (SELECT number FROM numbers(10) ORDER BY row_number() OVER () LIMIT 3)',
      'SELECT count() FROM analytics.events_dist WHERE value IN (SELECT number FROM numbers(4) GROUP BY number WITH ROLLUP)',
    ]) {
      const plan = await planQuery(sql, testTopology());
      for (const s of plan.shards) expect(s.sql).toMatch(/ OVER \(\)|WITH ROLLUP/);
    }
    const local = " SETTINGS distributed_product_mode = 'local'";
    for (const sql of [
      `SELECT count() FROM analytics.events_dist WHERE sensor IN (SELECT sensor FROM (SELECT sensor, rank() OVER () AS r FROM analytics.events_dist))${local}`,
      `SELECT e.sensor, r.n FROM analytics.events_dist AS e JOIN (SELECT sensor, row_number() OVER () AS n FROM analytics.events_dist) AS r USING sensor${local}`,
    ]) {
      const plan = await planQuery(sql, testTopology());
      expect(plan.shards.length).toBeGreaterThan(0);
      for (const s of plan.shards) expect(s.sql).toMatch(/OVER \(\) AS [rn] FROM analytics\.events\b/);
    }
    // ROLLUP or CUBE in a local set is each shard's too; a window function in the main query itself under 'local' stays refused.
    for (const m of ['ROLLUP', 'CUBE']) {
      const plan = await planQuery(
        `SELECT count() FROM analytics.events_dist WHERE sensor IN (SELECT sensor FROM analytics.events_dist GROUP BY sensor WITH ${m})${local}`,
        testTopology(),
      );
      for (const s of plan.shards) expect(s.sql).toMatch(new RegExp(`FROM analytics\\.events\\b.*WITH ${m}`));
    }
    expect(
      (await refusal(`SELECT sensor, rank() OVER () FROM analytics.events_dist WHERE sensor IN (SELECT sensor FROM analytics.events_dist)${local}`)).message,
    ).toMatch(/Window functions \(OVER\)/);
  });
});
