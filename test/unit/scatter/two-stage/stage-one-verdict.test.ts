// A shard over its function's bound (the exchange's memory limit) fails the whole query as 413
// TRANSFER_LIMIT, naming the shard and the engine's text without the replica prefix the call wrote.
import { describe, expect, it } from 'vitest';
import type { ShardOutcome } from '../../../../shared/core/scatter/call-shard.js';
import { computeDeadline } from '../../../../shared/core/scatter/deadline.js';
import { checkStageOne } from '../../../../shared/core/scatter/two-stage/stage-one-verdict.js';
import type { StageOneResult } from '../../../../shared/core/scatter/two-stage/stage-one.js';

const deadline = computeDeadline({ now: Date.now(), configTimeoutMs: 5_000 });
const none: StageOneResult = { leaves: [], outcomes: [], missing: [], skipped: [] };
const outcome = (shard: number, o: Partial<ShardOutcome>): ShardOutcome => ({
  shard,
  replica: 1,
  status: 'error',
  elapsedMs: 1,
  hedged: false,
  retried: false,
  attempts: [],
  ...o,
});

describe('checkStageOne', () => {
  it("a shard over its function's bound is TRANSFER_LIMIT naming the shard, the replica prefix cut", () => {
    const over = outcome(2, { code: 'TRANSFER_LIMIT', message: 'replica 1: the exchange holds 9 MB, over maxExchangeBytes (8 MB)' });
    expect(() => checkStageOne(none, [outcome(0, { status: 'ok' }), over], 3, false, deadline, undefined)).toThrow(
      expect.objectContaining({
        code: 'TRANSFER_LIMIT',
        message: expect.stringMatching(/^shard 2: the exchange holds 9 MB, over maxExchangeBytes \(8 MB\)\. Filter/),
      }),
    );
  });

  it('a message the call wrote without a replica prefix is kept whole', () => {
    const over = outcome(1, { code: 'TRANSFER_LIMIT', message: 'over the bound' });
    expect(() => checkStageOne(none, [over], 3, false, deadline, undefined)).toThrow(/^shard 1: over the bound\. Filter/);
  });
});
