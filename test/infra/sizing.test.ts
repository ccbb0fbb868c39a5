// Timeouts and memory derived from the query deadline: the invariants the stack relies on.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  API_GATEWAY_MAX_S,
  COORDINATOR_MARGIN_MS,
  deriveSizing,
  HTTP_API_INTEGRATION_MAX_S,
  ONE_VCPU_MB,
  SHARD_MEMORY_MB,
  SizingError,
} from '../../cdk/sizing.js';

describe('deriveSizing', () => {
  it('gives the default 5 s deadline a 9 s coordinator, a 6 s shard function and a 10 s integration', () => {
    const s = deriveSizing({ timeoutMs: 5000 }, 4);
    expect(s).toEqual({ coordinatorTimeoutS: 9, shardTimeoutS: 6, integrationTimeoutS: 10, coordinatorMemoryMb: 1024, shardMemoryMb: 256 });
  });

  it('holds the invariants for every deadline that fits under API Gateway', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 24_999 }), fc.integer({ min: 1, max: 512 }), (t, shards) => {
        const s = deriveSizing({ timeoutMs: t }, shards);
        expect(s.coordinatorTimeoutS * 1000).toBeGreaterThan(t + COORDINATOR_MARGIN_MS);
        expect(s.coordinatorTimeoutS).toBeLessThanOrEqual(API_GATEWAY_MAX_S);
        expect(s.shardTimeoutS * 1000).toBeGreaterThanOrEqual(t);
        expect(s.shardTimeoutS).toBeLessThanOrEqual(s.coordinatorTimeoutS);
        expect(s.integrationTimeoutS).toBeGreaterThan(s.coordinatorTimeoutS);
        expect(s.integrationTimeoutS).toBeLessThanOrEqual(HTTP_API_INTEGRATION_MAX_S);
        expect(s.coordinatorMemoryMb).toBeGreaterThanOrEqual(1024);
        // Never more than one vCPU's worth: the merge runs on one thread.
        expect(s.coordinatorMemoryMb).toBeLessThanOrEqual(ONE_VCPU_MB);
        expect(s.shardMemoryMb).toBe(SHARD_MEMORY_MB);
      }),
      { numRuns: 500 },
    );
  });

  it('refuses a deadline that cannot fit, naming the config path and the largest that does', () => {
    expect(() => deriveSizing({ timeoutMs: 26_000 }, 4)).toThrow(SizingError);
    expect(() => deriveSizing({ timeoutMs: 25_000 }, 4)).toThrow(/\$\.query\.timeoutMs: 25000 ms .* 28 s .*at most 24999 ms/);
    // The largest accepted deadline leaves the integration a second above the coordinator, within 29 s.
    expect(deriveSizing({ timeoutMs: 24_999 }, 4)).toMatchObject({ coordinatorTimeoutS: 28, integrationTimeoutS: 29 });
  });

  it('gives the coordinator a full vCPU for tight deadlines and wide fan-outs, and no more', () => {
    expect(deriveSizing({ timeoutMs: 1500 }, 4).coordinatorMemoryMb).toBe(ONE_VCPU_MB);
    expect(deriveSizing({ timeoutMs: 5000 }, 16).coordinatorMemoryMb).toBe(1024);
    expect(deriveSizing({ timeoutMs: 5000 }, 17).coordinatorMemoryMb).toBe(ONE_VCPU_MB);
    expect(deriveSizing({ timeoutMs: 5000 }, 1000).coordinatorMemoryMb).toBe(ONE_VCPU_MB);
    expect(deriveSizing({ timeoutMs: 1500 }, 1000).coordinatorMemoryMb).toBe(ONE_VCPU_MB);
  });

  it('lets explicit memory overrides win', () => {
    const s = deriveSizing({ timeoutMs: 5000 }, 4, { coordinatorMb: 2048, shardMb: 256 });
    expect([s.coordinatorMemoryMb, s.shardMemoryMb]).toEqual([2048, 256]);
  });
});
