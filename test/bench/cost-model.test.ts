// The cost bench's arithmetic (bench/cost/): Lambda's per-ms rounding, the HTTP API's 512 KB steps,
// price overrides, and the power-tuning model's CPU stretch. The bench's smoke run checks the same
// bill against real measured inputs; these pin the edges.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { billedMs, billQuery, breakEvenQps, durationUsd, httpApiMeteredRequests } from '../../bench/cost/bill.js';
import { atMemory, cpuStretch, type MeasuredQuery } from '../../bench/cost/power.js';
import { DEFAULT_PRICES, loadPrices } from '../../bench/cost/prices.js';

const p = DEFAULT_PRICES;

describe('the cost model', () => {
  it('bills every invocation in whole milliseconds, rounded up, at least one', () => {
    expect([billedMs(0.2), billedMs(1), billedMs(1.0001), billedMs(12.5)]).toEqual([1, 1, 2, 13]);
    fc.assert(
      fc.property(fc.double({ min: 0, max: 900_000, noNaN: true }), (ms) => {
        const b = billedMs(ms);
        expect(Number.isInteger(b)).toBe(true);
        expect(b).toBeGreaterThanOrEqual(ms);
        expect(b - ms).toBeLessThan(1 + 1e-9);
      }),
    );
    // 1 GB for one second is the GB-second price.
    expect(durationUsd({ ms: 999.2, memoryMb: 1024 }, p)).toBeCloseTo(p.lambdaArmPerGbSecond, 15);
  });

  it('meters an HTTP API call in 512 KB steps of request plus response', () => {
    expect([0, 1, 512 * 1024, 512 * 1024 + 1, 1536 * 1024].map((b) => httpApiMeteredRequests(b, p))).toEqual([1, 1, 1, 2, 3]);
  });

  it('adds up a query: durations, requests, front door, S3 and logs', () => {
    const b = billQuery(
      {
        coordinator: [{ ms: 10.5, memoryMb: 1024 }],
        shards: [
          { ms: 3.2, memoryMb: 256 },
          { ms: 4, memoryMb: 256 },
        ],
        frontDoor: 'http-api',
        frontDoorBytes: 600 * 1024,
        s3Puts: 0,
        s3Gets: 0,
        logBytes: 1024 ** 3,
      },
      p,
    );
    expect(b.coordinatorUsd).toBeCloseTo(0.011 * p.lambdaArmPerGbSecond, 15);
    expect(b.shardsUsd).toBeCloseTo(((0.004 + 0.004) / 4) * p.lambdaArmPerGbSecond, 15);
    expect(b.requestsUsd).toBeCloseTo(3 * p.lambdaPerRequest, 15);
    expect(b.frontDoorUsd).toBeCloseTo(2 * p.httpApiPerRequest, 15);
    expect(b.logsUsd).toBeCloseTo(p.logsIngestPerGb, 12);
    expect(b.totalUsd).toBeCloseTo(b.coordinatorUsd + b.shardsUsd + b.requestsUsd + b.frontDoorUsd + b.logsUsd, 15);
    // One node-hour's worth of queries per hour at the break-even rate.
    expect(breakEvenQps(b.totalUsd, p) * 3600 * b.totalUsd).toBeCloseTo(p.node.perHour, 9);
  });

  it('takes price overrides from a JSON file and refuses unknown keys', () => {
    const dir = mkdtempSync(join(tmpdir(), 'prices-'));
    const ok = join(dir, 'ok.json');
    writeFileSync(ok, JSON.stringify({ region: 'eu-west-1', node: { perHour: 0.04 } }));
    const { prices } = loadPrices({ CH_BENCH_PRICES: ok });
    expect([prices.region, prices.node.perHour, prices.node.instance, prices.lambdaPerRequest]).toEqual(['eu-west-1', 0.04, 'c7g.medium', p.lambdaPerRequest]);
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ lambdaPerRequests: 1 }));
    expect(() => loadPrices({ CH_BENCH_PRICES: bad })).toThrow(/unknown price keys lambdaPerRequests/);
  });

  it('stretches only the CPU part below one vCPU, and nothing above it', () => {
    expect([cpuStretch(1769), cpuStretch(3008), cpuStretch(884.5)]).toEqual([1, 1, 2]);
    const q: MeasuredQuery = {
      coordinator: [{ ms: 20, cpuMs: 5 }],
      shards: [{ ms: 10, cpuMs: 2 }],
      shardRounds: 1,
      rest: { frontDoor: 'function-url', frontDoorBytes: 0, s3Puts: 0, s3Gets: 0, logBytes: 0 },
    };
    // At half a vCPU: the coordinator's 5 ms of CPU take 10, and it waits 2 ms more for the shard's.
    expect(atMemory(q, 884.5, 884.5, p).latencyMs).toBeCloseTo(20 + 5 + 2, 9);
    expect(atMemory(q, 1769, 1769, p).latencyMs).toBe(20);
    expect(atMemory(q, 3008, 3008, p).latencyMs).toBe(20);
  });
});
