// The two-stage planner without an engine: what travels between the stages, the final stage's SQL,
// the notes /explain shows, and every refusal (UNSUPPORTED or QUERY_ERROR naming the construct and
// where it is). Results are checked against ClickHouse in test/integration/plan/two-stage-*.test.ts.
import { describe, expect, it } from 'vitest';
import type { ScatterError } from '../../../shared/core/errors.js';
import { planTwoStage } from '../../../shared/core/plan/two-stage/plan.js';
import { parseSelect } from '../../../shared/core/sql/parse.js';
import { printSelect } from '../../../shared/core/sql/print.js';
import { testTopology } from './fixtures.js';

const topo = testTopology();
const plan = (sql: string, mode?: 'deny' | 'local' | 'global') => planTwoStage(parseSelect(sql), topo, mode ? { distributedProductMode: mode } : {});
const leafSql = (sql: string) => plan(sql).leaves.map((l) => printSelect(l.query));

function refusal(sql: string): ScatterError {
  try {
    plan(sql);
  } catch (e) {
    return e as ScatterError;
  }
  throw new Error(`planned: ${sql}`);
}

describe('aggregates travel as states', () => {
  it('keys and states in the leaf, -Merge and everything else in the final stage', () => {
    const p = plan(
      'SELECT sensor, count() AS c, quantile(0.9)(value), count(DISTINCT user_id), sumIf(value, value > 1) FROM analytics.events_dist WHERE ts > 0 GROUP BY sensor WITH ROLLUP WITH TOTALS HAVING c > 1 ORDER BY c DESC LIMIT 10',
    );
    expect(p.leaves.map((l) => l.name)).toEqual(['_stage0']);
    expect(printSelect(p.leaves[0]!.query)).toBe(
      'SELECT sensor AS _k0, count() AS _a0, quantileState(0.9)(value) AS _a1, uniqExactState(user_id) AS _a2, sumIf(value, value > 1) AS _a3 FROM analytics.events_dist WHERE ts > 0 GROUP BY _k0',
    );
    expect(p.finalSql).toBe(
      'SELECT _k0 AS sensor, sum(_a0) AS c, quantileMerge(0.9)(_a1) AS `quantile(0.9)(value)`, uniqExactMerge(_a2) AS `countDistinct(user_id)`, ' +
        'sum(_a3) AS `sumIf(value, greater(value, 1))` FROM _stage0 GROUP BY _k0 WITH ROLLUP WITH TOTALS HAVING sum(_a0) > 1 ORDER BY sum(_a0) DESC LIMIT 10',
    );
    expect(p.notes.join('\n')).toMatch(/aggregates travel as states: quantileState\(0\.9\)\(value\) AS _a1, uniqExactState\(user_id\) AS _a2;/);
    expect(p.notes.join('\n')).toMatch(/aggregates travel as plain values: count\(\) AS _a0, sumIf\(value, value > 1\) AS _a3;/);
    expect(p.notes.join('\n')).toMatch(
      /final stage: -Merge of the states and sum\/min\/max of the plain values grouped by the keys, WITH ROLLUP, WITH TOTALS, HAVING, ORDER BY, LIMIT/,
    );
  });
  it('identical aggregate calls share one state; AVG is avg; f(DISTINCT x) is fDistinct', () => {
    expect(leafSql('SELECT AVG(value), avg(value) * 2, sum(DISTINCT value), uniq(sensor) FROM analytics.events_dist')).toEqual([
      'SELECT avgState(value) AS _a0, sumDistinctState(value) AS _a1, uniqState(sensor) AS _a2 FROM analytics.events_dist',
    ]);
  });
  it('a call that asks for a state merges into a state; -IfOrNull travels as -OrNullIf', () => {
    const p = plan("SELECT finalizeAggregation(uniqExactState(sensor)), sumIfOrNull(value, sensor = 'x') FROM analytics.events_dist");
    expect(printSelect(p.leaves[0]!.query)).toBe(
      "SELECT uniqExactState(sensor) AS _a0, sumOrNullIfState(value, sensor = 'x') AS _a1 FROM analytics.events_dist",
    );
    expect(p.finalSql).toMatch(/^SELECT finalizeAggregation\(uniqExactMergeState\(_a0\)\) AS .*, sumOrNullIfMerge\(_a1\) AS /);
  });
  it('a call that merges states merges them on the shards into a state and in the final stage with itself', () => {
    // (Planned only: the columns stand for states, as a GLOBAL JOIN's right side holds them.)
    const p = plan('SELECT uniqMerge(sensor), quantileExactMerge(0.5)(value) FROM analytics.events_dist');
    expect(printSelect(p.leaves[0]!.query)).toBe('SELECT uniqMergeState(sensor) AS _a0, quantileExactMergeState(0.5)(value) AS _a1 FROM analytics.events_dist');
    expect(p.finalSql).toMatch(/^SELECT uniqMerge\(_a0\) AS .*, quantileExactMerge\(0\.5\)\(_a1\) AS /);
  });
  it('aliases and positions resolve as ClickHouse resolves them', () => {
    const p = plan('WITH toDate(ts) AS d SELECT d AS day, count() AS c FROM analytics.events_dist GROUP BY 1 ORDER BY c, day');
    expect(printSelect(p.leaves[0]!.query)).toBe('SELECT toDate(ts) AS _k0, count() AS _a0 FROM analytics.events_dist GROUP BY _k0');
    expect(p.finalSql).toBe('SELECT _k0 AS day, sum(_a0) AS c FROM _stage0 GROUP BY _k0 ORDER BY sum(_a0), _k0');
  });
  it('window functions over aggregates run in the final stage', () => {
    expect(plan('SELECT sensor, rank() OVER (ORDER BY count() DESC) FROM analytics.events_dist GROUP BY sensor').finalSql).toBe(
      'SELECT _k0 AS sensor, rank() OVER (ORDER BY sum(_a0) DESC) AS `rank() OVER (ORDER BY count() DESC)` FROM _stage0 GROUP BY _k0',
    );
  });
});

describe('count, sum, min and max travel as plain values', () => {
  it('identical calls share one partial (SUM is sum, COUNT(*) is count()); the final stage sums them', () => {
    const p = plan('SELECT SUM(value), sum(value) * 2, COUNT(*), count(), countIf(value > 1), count(sensor) FROM analytics.events_dist');
    expect(printSelect(p.leaves[0]!.query)).toBe(
      'SELECT sum(value) AS _a0, count() AS _a1, countIf(value > 1) AS _a2, count(sensor) AS _a3 FROM analytics.events_dist',
    );
    expect(p.finalSql).toMatch(
      /^SELECT sum\(_a0\) AS `SUM\(value\)`, sum\(_a0\) \* 2 AS .*, sum\(_a1\) AS .*, sum\(_a1\) AS .*, sum\(_a2\) AS .*, sum\(_a3\) AS .* FROM _stage0$/,
    );
  });
  it('min/max without group keys: a shard that saw no rows answers none (its min would be the default value)', () => {
    const p = plan('SELECT min(value), MAX(sensor), count() FROM analytics.events_dist WHERE value > 3');
    expect(printSelect(p.leaves[0]!.query)).toBe(
      'SELECT min(value) AS _a0, max(sensor) AS _a1, count() AS _a2 FROM analytics.events_dist WHERE value > 3 HAVING count() > 0',
    );
    expect(p.finalSql).toBe('SELECT min(_a0) AS `min(value)`, max(_a1) AS `MAX(sensor)`, sum(_a2) AS `count()` FROM _stage0');
    expect(p.notes.join('\n')).toMatch(/HAVING count\(\) > 0/);
  });
  it('an aggregation without GROUP BY is one row per shard (the runtime carries it as RowBinary); with keys or rows it is not', () => {
    expect(plan('SELECT count() AS c, uniq(sensor) AS u FROM analytics.events_dist').leaves[0]!.oneRowPerShard).toBe(true);
    expect(plan('SELECT user_id, uniq(sensor) AS u FROM analytics.events_dist GROUP BY user_id').leaves[0]!.oneRowPerShard).toBeUndefined();
    expect(plan('SELECT uniq(sensor) AS u FROM analytics.events_dist GROUP BY GROUPING SETS ((user_id), ())').leaves[0]!.oneRowPerShard).toBeUndefined();
    expect(plan('SELECT sensor, value FROM analytics.events_dist ORDER BY value LIMIT 3').leaves[0]!.oneRowPerShard).toBeUndefined();
  });

  it('min/max with group keys need no guard (an empty shard answers no group); count and sum never do', () => {
    expect(leafSql('SELECT sensor, min(value), max(ts) FROM analytics.events_dist GROUP BY sensor WITH TOTALS')).toEqual([
      'SELECT sensor AS _k0, min(value) AS _a0, max(ts) AS _a1 FROM analytics.events_dist GROUP BY _k0',
    ]);
    expect(leafSql('SELECT count(), sum(value) FROM analytics.events_dist')).toEqual(['SELECT count() AS _a0, sum(value) AS _a1 FROM analytics.events_dist']);
  });
  it('DISTINCT, combinators other than -If on count/sum, parametric calls and avg keep their states', () => {
    expect(
      leafSql(
        'SELECT count(DISTINCT sensor), sum(DISTINCT value), minIf(value, ts > 0), sumOrNull(value), avg(value), maxArray([value]) FROM analytics.events_dist',
      ),
    ).toEqual([
      'SELECT uniqExactState(sensor) AS _a0, sumDistinctState(value) AS _a1, minIfState(value, ts > 0) AS _a2, sumOrNullState(value) AS _a3, avgState(value) AS _a4, maxArrayState([value]) AS _a5 FROM analytics.events_dist',
    ]);
  });
});

describe('rows', () => {
  it('ORDER BY and LIMIT (limit + offset) are pushed down; the final stage re-sorts and cuts', () => {
    const p = plan('SELECT sensor, value FROM analytics.events_dist WHERE value > 1 ORDER BY value DESC LIMIT 5, 10');
    expect(printSelect(p.leaves[0]!.query)).toBe('SELECT sensor AS _c0, value AS _c1 FROM analytics.events_dist WHERE value > 1 ORDER BY _c1 DESC LIMIT 15');
    expect(p.finalSql).toBe('SELECT _c0 AS sensor, _c1 AS value FROM _stage0 ORDER BY _c1 DESC LIMIT 5, 10');
  });
  it('window functions keep every row on the way', () => {
    const p = plan('SELECT sensor, lagInFrame(value, 1) OVER (PARTITION BY sensor ORDER BY ts) FROM analytics.events_dist ORDER BY ts LIMIT 3');
    expect(printSelect(p.leaves[0]!.query)).toBe('SELECT sensor AS _c0, value AS _c1, ts AS _c2 FROM analytics.events_dist');
    expect(p.finalSql).toMatch(/lagInFrame\(_c1, 1\) OVER \(PARTITION BY _c0 ORDER BY _c2\)/);
  });
});

describe('subqueries, CTEs, UNION, IN', () => {
  it('a subquery in FROM: the inner SELECT is split, the outer runs in the final stage', () => {
    const p = plan('WITH t AS (SELECT sensor, count() AS c FROM analytics.events_dist GROUP BY sensor) SELECT max(c) FROM t');
    expect(p.finalSql).toBe('SELECT max(c) FROM (SELECT _k0 AS sensor, sum(_a0) AS c FROM _stage0 GROUP BY _k0) AS t');
  });
  it('UNION ALL: one leaf per branch', () => {
    const p = plan('SELECT sensor FROM analytics.events_dist UNION ALL SELECT name FROM analytics.users_dist');
    expect(p.leaves.map((l) => l.name)).toEqual(['_stage0', '_stage1']);
    expect(p.finalSql).toBe('SELECT _c0 AS sensor FROM _stage0 UNION ALL SELECT _c0 AS name FROM _stage1');
  });
  it('local IN (same table, same key) stays on the shard and says why it is exact', () => {
    const p = plan('SELECT count() FROM analytics.events_dist WHERE sensor IN (SELECT sensor FROM analytics.events_dist WHERE value > 3)');
    expect(p.leaves[0]!.distributedProductMode).toBe('local');
    expect(p.notes.join('\n')).toMatch(/local IN: sensor IN \(subquery over analytics\.events_dist\).*sharded by xxHash64\(String\).*\(exact\)/);
  });
  it('a scalar subquery over a distributed table stays in the leaf (it runs once before the shards) and says so', () => {
    const p = plan('SELECT count() FROM analytics.events_dist WHERE value > (SELECT avg(value) FROM analytics.events_dist)');
    expect(printSelect(p.leaves[0]!.query)).toBe(
      'SELECT count() AS _a0 FROM analytics.events_dist WHERE value > (SELECT avg(value) FROM analytics.events_dist)',
    );
    expect(p.notes.join('\n')).toMatch(/scalar subquery over analytics\.events_dist runs once before the shards/);
  });
  it('not a local IN when the subquery mixes keys across shards', () => {
    for (const sub of [
      'SELECT sensor FROM analytics.events_dist ORDER BY value LIMIT 3',
      'SELECT any(sensor) FROM analytics.events_dist',
      'SELECT sensor FROM analytics.events_dist GROUP BY sensor, value WITH ROLLUP',
    ]) {
      expect(refusal(`SELECT count() FROM analytics.events_dist WHERE sensor IN (${sub})`).message).toMatch(/distributed_product_mode = 'deny'/);
    }
    expect(
      plan('SELECT count() FROM analytics.events_dist WHERE user_id IN (SELECT user_id FROM analytics.users_dist)', 'global').leaves[0]!.query.where,
    ).toMatchObject({ name: 'globalIn' });
  });
});

describe('refusals name the construct and its position', () => {
  const cases: [string, string, RegExp, { line: number; column: number }][] = [
    ['SELECT DISTINCT ON (sensor) sensor FROM analytics.events_dist', 'UNSUPPORTED', /DISTINCT ON/, { line: 1, column: 21 }],
    ["SELECT count() FROM url('http://x/', CSV, 'a UInt8')", 'UNSUPPORTED', /table function url\(\)/, { line: 1, column: 21 }],
    ['SELECT count() FROM numbers(10)', 'UNSUPPORTED', /reads no distributed table/, { line: 1, column: 1 }],
    ['SELECT *, value FROM analytics.events_dist', 'UNSUPPORTED', /SELECT \* together with other columns/, { line: 1, column: 8 }],
    [
      'SELECT sensor, value FROM analytics.events_dist GROUP BY sensor',
      'QUERY_ERROR',
      /Column value is not under an aggregate function/,
      { line: 1, column: 16 },
    ],
    ['SELECT sum(count()) FROM analytics.events_dist', 'QUERY_ERROR', /found inside another aggregate function/, { line: 1, column: 8 }],
    ['SELECT count() FROM analytics.nope', 'UNKNOWN_TABLE', /unknown table analytics\.nope/, { line: 1, column: 21 }],
    [
      'SELECT count() FROM (SELECT sensor FROM analytics.events_dist SETTINGS max_threads = 1)',
      'UNSUPPORTED',
      /a SETTINGS clause inside a subquery \(max_threads\) is not supported on the general path/,
      { line: 1, column: 86 },
    ],
    [
      'SELECT count() FROM analytics.events_dist WHERE value > (SELECT 1 SETTINGS max_threads = 2)',
      'UNSUPPORTED',
      /a SETTINGS clause inside a subquery \(max_threads\)/,
      { line: 1, column: 90 },
    ],
    [
      'SELECT count() FROM analytics.events_dist WHERE user_id IN (SELECT user_id FROM analytics.users_dist)',
      'UNSUPPORTED',
      /distributed_product_mode = 'deny'/,
      { line: 1, column: 57 },
    ],
  ];
  for (const [sql, code, msg, position] of cases) {
    it(sql, () => {
      const e = refusal(sql);
      expect(e.code).toBe(code);
      expect(e.message).toMatch(msg);
      expect(e.position).toEqual(position);
    });
  }
  it('a query that reads no distributed table', () => {
    expect(refusal('SELECT 1').message).toMatch(/reads no distributed table/);
  });
});

describe('two different columns ClickHouse names alike', () => {
  const FULL = 'analytics.events_dist AS a GLOBAL FULL JOIN analytics.events_dist AS b USING sensor';
  it("the answer's SELECT: the later one gets a stage alias, the plan keeps the client's names", () => {
    const p = plan(`SELECT a.sensor, sensor, ts FROM ${FULL}`);
    expect(p.answerNames).toEqual(['sensor', 'sensor', 'ts']);
    // As wide as the client's name, so Pretty and Vertical lay the answer out as under that name.
    expect(p.finalSql).toMatch(/^SELECT \S+ AS sensor, \S+ AS _n1___, \S+ AS ts FROM _stage0/);
    expect(p.notes).toContain('final stage: _n1___ is answered as sensor, a second column of that name');
  });
  it('columns of one meaning need no stage alias', () => {
    expect(plan(`SELECT sensor, sensor FROM ${FULL}`).answerNames).toBeUndefined();
  });
  it('in a subquery they are refused, naming the column', () => {
    expect(refusal(`SELECT count() FROM (SELECT a.sensor, sensor FROM ${FULL})`).message).toMatch(/two different columns both named sensor in a subquery/);
  });
});
