// When one shard holds every row, the final SQL reads the stage-one query as a subquery where it
// would read the shipped table: only for one leaf, one shard, read once.
import { describe, expect, it } from 'vitest';
import type { QueryPlan, ShardPlan } from '../../../../shared/core/plan/types.js';
import { oneShardSql } from '../../../../shared/core/scatter/two-stage/one-shard.js';
import type { PlannedLeaf } from '../../../../shared/core/scatter/two-stage/stage-one.js';

const shard = (i: number, sql?: string): ShardPlan => (sql ? { shard: i, skipped: false, sql, external: [] } : { shard: i, skipped: true, external: [] });
const leaf = (name: string, shards: ShardPlan[]): PlannedLeaf => ({ name, plan: { shards } as unknown as QueryPlan });
const STAGE_ONE = 'SELECT site AS _k0, countState() AS _a0 FROM default.ev WHERE id IN (3, 6) GROUP BY _k0';

describe('both stages on the one shard', () => {
  it('reads the stage-one query where the final SQL reads the table, keeping the name for qualified columns', () => {
    const r = oneShardSql(
      [leaf('_stage0', [shard(0, STAGE_ONE), shard(1), shard(2)])],
      'SELECT _k0 AS site, countMerge(_stage0._a0) AS c FROM _stage0 GROUP BY _k0',
    );
    expect(r?.shard.shard).toBe(0);
    expect(r?.sql).toBe(`SELECT _k0 AS site, countMerge(_stage0._a0) AS c FROM (${STAGE_ONE}) AS \`_stage0\` GROUP BY _k0`);
  });

  it('not when two shards are asked, when there are two leaves, or when the final SQL reads the leaf twice', () => {
    const fin = 'SELECT countMerge(_a0) AS c FROM _stage0';
    expect(oneShardSql([leaf('_stage0', [shard(0, STAGE_ONE), shard(1, STAGE_ONE)])], fin)).toBeUndefined();
    expect(oneShardSql([leaf('_stage0', [shard(0, STAGE_ONE)]), leaf('_stage1', [shard(0, STAGE_ONE)])], fin)).toBeUndefined();
    expect(
      oneShardSql([leaf('_stage0', [shard(0, STAGE_ONE)])], 'SELECT a.c FROM (SELECT countMerge(_a0) AS c FROM _stage0) AS a, (SELECT 1 FROM _stage0) AS b'),
    ).toBeUndefined();
  });

  it('leaves the name alone in strings, comments and as a column qualifier', () => {
    const r = oneShardSql([leaf('_stage0', [shard(0, STAGE_ONE)])], "SELECT '_stage0' AS s, _stage0.x /* _stage0 */ FROM _stage0 AS t");
    expect(r?.sql).toBe(`SELECT '_stage0' AS s, _stage0.x /* _stage0 */ FROM (${STAGE_ONE}) AS t`);
  });
});
