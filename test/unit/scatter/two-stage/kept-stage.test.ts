// Which shard keeps its own stage-one rows: the one the final stage will run on (the query id's
// hash over the shards asked), for a plan of one leaf, unless the request says 0 or asks for a
// truncating overflow mode.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { QueryPlan, ShardPlan } from '../../../../shared/core/plan/types.js';
import { initiatorOrder } from '../../../../shared/core/scatter/two-stage/final-stage.js';
import { keeperOf } from '../../../../shared/core/scatter/two-stage/kept-stage.js';
import type { PlannedLeaf } from '../../../../shared/core/scatter/two-stage/stage-one.js';

const leaf = (name: string, asked: number[], total = 4): PlannedLeaf => ({
  name,
  plan: {
    shards: Array.from(
      { length: total },
      (_, i): ShardPlan => (asked.includes(i) ? { shard: i, skipped: false, sql: 'SELECT 1', external: [] } : { shard: i, skipped: true, external: [] }),
    ),
  } as unknown as QueryPlan,
});

describe('the shard that keeps its own rows', () => {
  it('is the final stage initiator over the shards asked, the same id always the same shard', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.nat(7), { minLength: 1, maxLength: 8 }), fc.string({ minLength: 1 }), (asked, id) => {
        const k = keeperOf([leaf('_stage0', asked, 8)], id, undefined);
        expect(k).toBe(initiatorOrder(id, asked)[0]);
        expect(asked).toContain(k);
      }),
    );
  });

  it('none for a plan of several leaves, or when ch_scatter_keep_initiator_rows is 0', () => {
    expect(keeperOf([leaf('_stage0', [0, 1]), leaf('_stage1', [0, 1])], 'q', undefined)).toBeUndefined();
    for (const v of [0, '0', false, 'false']) expect(keeperOf([leaf('_stage0', [0, 1])], 'q', { ch_scatter_keep_initiator_rows: v })).toBeUndefined();
    expect(keeperOf([leaf('_stage0', [0, 1])], 'q', { ch_scatter_keep_initiator_rows: 1 })).toBeDefined();
  });

  it("none under a truncating overflow mode (the initiator's own rows are cut by the query, not kept whole); throw keeps", () => {
    expect(keeperOf([leaf('_stage0', [0, 1])], 'q', { group_by_overflow_mode: 'any', max_rows_to_group_by: 10 })).toBeUndefined();
    expect(keeperOf([leaf('_stage0', [0, 1])], 'q', { read_overflow_mode: 'break' })).toBeUndefined();
    expect(keeperOf([leaf('_stage0', [0, 1])], 'q', { group_by_overflow_mode: 'throw', max_rows_to_group_by: 10 })).toBeDefined();
  });
});
