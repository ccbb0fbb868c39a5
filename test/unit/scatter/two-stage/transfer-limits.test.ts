// The general path's transfer bounds as answers arrive: inline bytes count towards the final-stage
// request, exchanged ones do not (only a reference travels) but count towards maxBytesToTransfer and
// the final stage's own bound; the default inline threshold keeps every shard's inline rows in one Invoke.
import { describe, expect, it } from 'vitest';
import { INVOKE_PAYLOAD_LIMIT_BYTES } from '../../../../shared/core/protocol/shard-wire.js';
import { defaultInlineBytes, StageBudget, transferLimits } from '../../../../shared/core/scatter/two-stage/transfer-limits.js';
import { base64Length } from '../../../../shared/core/scatter/two-stage/wire.js';

const MB = 1024 * 1024;

describe('StageBudget with the exchange', () => {
  it('exchanged bytes never count towards the final-stage request; inline ones do', () => {
    const b = new StageBudget(transferLimits(0, 0, 100));
    b.add('_stage0', 0, 1000, 50 * MB, 'exchange');
    b.add('_stage0', 1, 1000, 50 * MB, 'exchange');
    expect(b.requestBytes()).toBe(64 * 1024 + 100);
    expect(() => b.add('_stage0', 2, 1000, 5 * MB, 'inline')).toThrow(/invoke payload limit/);
  });

  it('maxFinalStageBytes bounds inline and exchanged bytes together, naming the bound and the shard', () => {
    const b = new StageBudget(transferLimits(0, 0, 100, INVOKE_PAYLOAD_LIMIT_BYTES, 64 * MB));
    b.add('_stage0', 0, 1, 40 * MB, 'exchange');
    expect(() => b.add('_stage0', 1, 1, 30 * MB, 'exchange')).toThrow(/more than 67108864 bytes \(maxFinalStageBytes.*shard 1's 31457280 bytes/);
  });

  it('maxBytesToTransfer and maxRowsToTransfer keep counting every byte and row, kept rows too', () => {
    const bytes = new StageBudget(transferLimits(0, 10 * MB, 0));
    bytes.add('_stage0', 0, 1, 6 * MB, 'exchange');
    expect(() => bytes.add('_stage0', 1, 1, 6 * MB, 'exchange')).toThrow(/maxBytesToTransfer/);
    const rows = new StageBudget(transferLimits(100, 0, 0));
    rows.add('_stage0', 0, 60, 0, 'kept');
    expect(() => rows.add('_stage0', 1, 60, 10, 'exchange')).toThrow(/maxRowsToTransfer/);
  });

  it('the default inline threshold: at most 1 MiB a shard, and every shard inline together fits one Invoke', () => {
    for (const shards of [1, 2, 3, 4, 8, 16, 64, 256]) {
      const limits = transferLimits(0, 0, 200_000);
      const t = defaultInlineBytes(shards, limits);
      expect(t).toBeLessThanOrEqual(MB);
      expect(base64Length(t * shards) + limits.reserveBytes).toBeLessThanOrEqual(INVOKE_PAYLOAD_LIMIT_BYTES);
    }
    expect(defaultInlineBytes(3, transferLimits(0, 0, 0))).toBe(MB);
  });
});
