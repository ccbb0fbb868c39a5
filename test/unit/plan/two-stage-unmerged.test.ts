// distributed_group_by_no_merge in the plans, without an engine: which cut each setting picks (the
// whole query on every shard; the final stage only concatenating, or sorting and limiting the union),
// the fast path's refusal so the general path answers, and what stays refused. The answers are checked
// against ClickHouse's Distributed behaviour in test/oracle/clickhouse-tests.test.ts (chdb) and
// test/server/clickhouse-tests-18.test.ts (18.16).
import { describe, expect, it } from 'vitest';
import type { ScatterError } from '../../../shared/core/errors.js';
import { planQuery } from '../../../shared/core/plan/index.js';
import { planTwoStage } from '../../../shared/core/plan/two-stage/plan.js';
import { resolveSettings } from '../../../shared/core/plan/settings.js';
import { settingFate } from '../../../shared/core/plan/setting-fate.js';
import { twoStageOptionsOf } from '../../../shared/core/scatter/plan-inputs.js';
import { parseSelect } from '../../../shared/core/sql/parse.js';
import { printSelect } from '../../../shared/core/sql/print.js';
import { testTopology } from './fixtures.js';

const topo = testTopology();
const plan = (sql: string, groupByNoMerge?: 1 | 2) => planTwoStage(parseSelect(sql), topo, groupByNoMerge ? { groupByNoMerge } : {});
const leafSql = (sql: string, mode: 1 | 2) => plan(sql, mode).leaves.map((l) => printSelect(l.query));

function refusal(f: () => unknown): ScatterError {
  try {
    f();
  } catch (e) {
    return e as ScatterError;
  }
  throw new Error('planned');
}

describe('distributed_group_by_no_merge = 1: the whole query on each shard, concatenated', () => {
  it('WITH FILL and INTERPOLATE run on each shard, INTERPOLATE over the leaf names of the output columns', () => {
    const sql = 'SELECT sensor AS s, count() AS c FROM analytics.events_dist GROUP BY s ORDER BY s WITH FILL STALENESS 2 INTERPOLATE (c AS c + 1)';
    expect(leafSql(sql, 1)).toEqual([
      'SELECT sensor AS _c0, count() AS _c1 FROM analytics.events_dist GROUP BY sensor ORDER BY sensor WITH FILL STALENESS 2 INTERPOLATE (_c1 AS _c1 + 1)',
    ]);
    expect(plan(sql, 1).finalSql).toBe('SELECT _c0 AS s, _c1 AS c FROM _stage0');
  });
  it('aggregation, HAVING, ORDER BY and LIMIT stay on the shards; the final stage only renames', () => {
    const sql = 'SELECT sensor, count() AS c FROM analytics.events_dist GROUP BY sensor HAVING c > 1 ORDER BY c DESC LIMIT 3';
    const p = plan(sql, 1);
    expect(leafSql(sql, 1)).toEqual([
      'SELECT sensor AS _c0, count() AS _c1 FROM analytics.events_dist GROUP BY sensor HAVING count() > 1 ORDER BY count() DESC LIMIT 3',
    ]);
    expect(p.finalSql).toBe('SELECT _c0 AS sensor, _c1 AS c FROM _stage0');
    expect(p.notes.join('\n')).toMatch(/distributed_group_by_no_merge = 1: each shard runs the whole query/);
    expect(p.notes.join('\n')).toMatch(/concatenated \(nothing merged, sorted or limited again\)/);
  });
  it('an aggregation without GROUP BY answers a row per shard, carried as rows (not one-row-per-shard)', () => {
    const p = plan('SELECT count() FROM analytics.events_dist', 1);
    expect(printSelect(p.leaves[0]!.query)).toBe('SELECT count() AS _c0 FROM analytics.events_dist');
    expect(p.leaves[0]!.oneRowPerShard).toBeUndefined();
    expect(p.finalSql).toBe('SELECT _c0 AS `count()` FROM _stage0');
    // Merged, the same query is one row per shard with the empty-shard guard.
    expect(plan('SELECT count() FROM analytics.events_dist').leaves[0]!.oneRowPerShard).toBe(true);
  });
  it('aliases resolve before the cut (GROUP BY number AS n, DISTINCT, LIMIT BY stay on the shards)', () => {
    expect(leafSql('SELECT DISTINCT n FROM nums_dist GROUP BY k AS n LIMIT 1 BY n', 1)).toEqual([
      'SELECT DISTINCT k AS _c0 FROM nums_dist GROUP BY k LIMIT 1 BY k',
    ]);
  });
  it('SELECT * travels whole', () => {
    const p = plan('SELECT * FROM nums_dist LIMIT 1', 1);
    expect(printSelect(p.leaves[0]!.query)).toBe('SELECT * FROM nums_dist LIMIT 1');
    expect(p.finalSql).toBe('SELECT * FROM _stage0');
  });
  it('a subquery over a distributed table is unmerged too; the outer SELECT runs over the shards’ rows', () => {
    const p = plan('SELECT count() FROM (SELECT k FROM nums_dist LIMIT 1)', 1);
    expect(printSelect(p.leaves[0]!.query)).toBe('SELECT k AS _c0 FROM nums_dist LIMIT 1');
    expect(p.finalSql).toBe('SELECT count() FROM (SELECT _c0 AS k FROM _stage0)');
  });
});

describe('distributed_group_by_no_merge = 2: aggregated on the shards, sorted and limited over the union', () => {
  it('the shards keep limit + offset; the final stage sorts and applies LIMIT/OFFSET', () => {
    const sql = 'SELECT uniq(v) AS u FROM nums_dist GROUP BY k ORDER BY u DESC LIMIT 2 OFFSET 1';
    const p = plan(sql, 2);
    expect(leafSql(sql, 2)).toEqual(['SELECT uniq(v) AS _c0 FROM nums_dist GROUP BY k ORDER BY uniq(v) DESC LIMIT 3']);
    expect(p.finalSql).toBe('SELECT _c0 AS u FROM _stage0 ORDER BY _c0 DESC LIMIT 1, 2');
    expect(p.notes.join('\n')).toMatch(/sorted by ORDER BY, LIMIT\/OFFSET \(DISTINCT, LIMIT BY and aggregation stay per shard\)/);
  });
  it('an ORDER BY expression that is no output column travels as one more column', () => {
    const p = plan('SELECT k FROM nums_dist ORDER BY v DESC, k', 2);
    expect(printSelect(p.leaves[0]!.query)).toBe('SELECT k AS _c0, v AS _c1 FROM nums_dist ORDER BY v DESC, k');
    expect(p.finalSql).toBe('SELECT _c0 AS k FROM _stage0 ORDER BY _c1 DESC, _c0');
  });
  it('LIMIT BY and DISTINCT are not applied again (ClickHouse leaves them to the shards)', () => {
    const p = plan('SELECT k FROM nums_dist LIMIT 1 BY k LIMIT 1', 2);
    expect(printSelect(p.leaves[0]!.query)).toBe('SELECT k AS _c0 FROM nums_dist LIMIT 1 BY k LIMIT 1');
    expect(p.finalSql).toBe('SELECT _c0 AS k FROM _stage0 LIMIT 1');
  });
  it('OFFSET alone keeps every row on the shards (limit + offset capped at 2^64 - 1)', () => {
    const p = plan('SELECT k FROM nums_dist ORDER BY k OFFSET 5', 2);
    expect(printSelect(p.leaves[0]!.query)).toBe('SELECT k AS _c0 FROM nums_dist ORDER BY k LIMIT 18446744073709551615');
    expect(p.finalSql).toMatch(/ORDER BY _c0 LIMIT 5, 18446744073709551615$/);
  });
});

describe('what stays refused, with ClickHouse’s code where it has one', () => {
  it('window functions under 2: ClickHouse’s NOT_IMPLEMENTED (48)', () => {
    const e = refusal(() => plan('SELECT k, row_number() OVER (ORDER BY k) FROM nums_dist', 2));
    expect(e.code).toBe('UNSUPPORTED');
    expect(e.message).toMatch(/Window functions does not support processing from WithMergeableStateAfterAggregation \(line 1, column 11\)/);
    expect(e.details).toMatchObject({ clickhouse: { code: 48 } });
    // Under 1 each shard runs them over its own rows.
    expect(plan('SELECT k, row_number() OVER (ORDER BY k) FROM nums_dist', 1).finalSql).toBe(
      'SELECT _c0 AS k, _c1 AS `row_number() OVER (ORDER BY k ASC)` FROM _stage0',
    );
  });
  it('WITH TOTALS, WITH FILL under 2, DISTINCT ordered by what it does not select, * among other columns', () => {
    expect(refusal(() => plan('SELECT k, count() FROM nums_dist GROUP BY k WITH TOTALS', 1)).message).toMatch(
      /^WITH TOTALS under distributed_group_by_no_merge = 1/,
    );
    expect(refusal(() => plan('SELECT k FROM nums_dist ORDER BY k WITH FILL', 2)).message).toMatch(/WITH FILL/);
    expect(refusal(() => plan('SELECT DISTINCT k FROM nums_dist ORDER BY v', 2)).message).toMatch(/SELECT DISTINCT ordered by an expression/);
    expect(refusal(() => plan('SELECT *, k FROM nums_dist', 1)).message).toMatch(/SELECT \* together with other columns/);
    // Passed through by a query that does not aggregate, a subquery's totals are still refused.
    expect(refusal(() => plan('SELECT s FROM (SELECT sum(k) AS s FROM nums_dist WITH TOTALS)', 1)).message).toMatch(/^WITH TOTALS under/);
  });
  it("a subquery's WITH TOTALS under an aggregation is dropped, as ClickHouse drops it; the outer query's runs once", () => {
    const inner = plan('SELECT sum(s) FROM (SELECT sum(k) AS s FROM nums_dist WITH TOTALS)', 1);
    expect(printSelect(inner.leaves[0]!.query)).toBe('SELECT sum(k) AS _c0 FROM nums_dist');
    expect(inner.finalSql).toBe('SELECT sum(s) FROM (SELECT _c0 AS s FROM _stage0)');
    expect(plan('SELECT sum(s) FROM (SELECT sum(k) AS s FROM nums_dist) WITH TOTALS', 1).finalSql).toBe(
      'SELECT sum(s) FROM (SELECT _c0 AS s FROM _stage0) WITH TOTALS',
    );
  });
});

describe('the setting', () => {
  it('is read as ClickHouse reads it: 0 merges, 2 is after aggregation, any other number is 1', () => {
    expect(twoStageOptionsOf({ distributed_group_by_no_merge: 0 }, topo).groupByNoMerge).toBeUndefined();
    expect(twoStageOptionsOf({ distributed_group_by_no_merge: 2 }, topo).groupByNoMerge).toBe(2);
    expect(twoStageOptionsOf({ distributed_group_by_no_merge: '7' }, topo).groupByNoMerge).toBe(1);
    expect(twoStageOptionsOf({ distributed_group_by_no_merge: true }, topo).groupByNoMerge).toBe(1);
    expect(refusal(() => twoStageOptionsOf({ distributed_group_by_no_merge: 'x' }, topo)).code).toBe('BAD_REQUEST');
  });
  it('is the planner’s: never forwarded to a shard, and refused inside a subquery', async () => {
    expect(settingFate('distributed_group_by_no_merge')).toBe('planner');
    const s = resolveSettings({ distributed_group_by_no_merge: 2 }, undefined, topo.query, {});
    expect(s.groupByNoMerge).toBe(2);
    expect(s.forward).toEqual({});
    const e = await planQuery('SELECT count() FROM nums_dist WHERE k IN (SELECT k FROM nums_dist SETTINGS distributed_group_by_no_merge = 1)', topo).catch(
      (x: unknown) => x as ScatterError,
    );
    expect((e as ScatterError).message).toMatch(/applies to the whole query/);
  });
  it('the fast path refuses it (UNSUPPORTED), so the general path answers', async () => {
    const e = await planQuery('SELECT count() FROM nums_dist SETTINGS distributed_group_by_no_merge = 1', topo).catch((x: unknown) => x as ScatterError);
    expect((e as ScatterError).code).toBe('UNSUPPORTED');
    expect((e as ScatterError).message).toMatch(/asks for the shards' answers unmerged; the fast path merges them/);
    // 0 is today's merge.
    const p = await planQuery('SELECT count() FROM nums_dist SETTINGS distributed_group_by_no_merge = 0', topo);
    expect(p.shards.filter((s) => !s.skipped)).toHaveLength(4);
  });
});
