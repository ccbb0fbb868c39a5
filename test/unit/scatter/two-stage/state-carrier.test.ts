// The state carrier's two rewrites: each shard's SQL answers the named columns as per-row states, and
// the final SQL reads each carried stage table through a subquery that turns them back, wherever it
// reads that table (FROM, JOIN, a subquery) and under its alias.
import { describe, expect, it } from 'vitest';
import { carryAsStates, finalizeCarried, type Carried } from '../../../../shared/core/scatter/two-stage/state-carrier.js';
import type { PlannedLeaf } from '../../../../shared/core/scatter/two-stage/stage-one.js';

const leaf = {
  name: '_stage0',
  plan: {
    shards: [
      { shard: 0, skipped: false, sql: 'SELECT id AS _c0, j AS _c1 FROM db.t', external: [] },
      { shard: 1, skipped: true, external: [] },
    ],
  },
} as unknown as PlannedLeaf;

describe('state carrier', () => {
  it('wraps the named columns of every asked shard, and no skipped one', () => {
    const out = carryAsStates(leaf, ['_c0', '_c1'], new Set(['_c1']));
    expect(out.plan.shards[0]!.sql).toBe("SELECT _c0, initializeAggregation('anyState', _c1) AS _c1 FROM (SELECT id AS _c0, j AS _c1 FROM db.t)");
    expect(out.plan.shards[1]!.sql).toBeUndefined();
    expect(leaf.plan.shards[0]!.sql).toBe('SELECT id AS _c0, j AS _c1 FROM db.t');
  });

  it('reads a carried table through finalizeAggregation, under its alias, in joins and subqueries', () => {
    const carried: Carried = new Map([['_stage0', { names: ['_c0', '_c1'], wrapped: new Set(['_c1']) }]]);
    const sql = 'SELECT a._c0, b._c0 FROM _stage0 AS a INNER JOIN _stage1 AS b ON a._c0 = b._c0 WHERE a._c0 IN (SELECT _c0 FROM _stage0)';
    const out = finalizeCarried(sql, carried);
    expect(out).toContain('FROM (SELECT _c0, finalizeAggregation(_c1) AS _c1 FROM _stage0) AS a');
    expect(out).toContain('INNER JOIN _stage1 AS b');
    expect(out).toContain('IN (SELECT _c0 FROM (SELECT _c0, finalizeAggregation(_c1) AS _c1 FROM _stage0) AS _stage0)');
    expect(finalizeCarried(sql, new Map())).toBe(sql);
  });
});
