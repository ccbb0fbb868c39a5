import { describe, expect, it } from 'vitest';
import { fc, test as fcTest } from '@fast-check/vitest';
import { API_GATEWAY_LIMIT_MS, computeDeadline, deadlineSignal, DEFAULT_SAFETY_MARGIN_MS } from '../../../shared/core/scatter/deadline.js';

describe('computeDeadline', () => {
  it('uses the request timeout when it is the earliest', () => {
    const d = computeDeadline({ now: 1000, requestTimeoutMs: 2000, configTimeoutMs: 5000, lambdaRemainingMs: 30_000 });
    expect(d).toEqual({ at: 3000, budgetMs: 2000, limitedBy: 'request' });
  });
  it('falls back to the config timeout when the request has none', () => {
    const d = computeDeadline({ now: 0, configTimeoutMs: 5000 });
    expect(d.limitedBy).toBe('config');
    expect(d.at).toBe(5000);
  });
  it('keeps a safety margin from the Lambda remaining time', () => {
    const d = computeDeadline({ now: 0, requestTimeoutMs: 10_000, configTimeoutMs: 5000, lambdaRemainingMs: 3000 });
    expect(d.limitedBy).toBe('lambda');
    expect(d.at).toBe(3000 - DEFAULT_SAFETY_MARGIN_MS);
  });
  it("never exceeds the 29 s cap under API Gateway HTTP API's 30 s, but scheduled runs are not bound by it", () => {
    const d = computeDeadline({ now: 0, requestTimeoutMs: 60_000, configTimeoutMs: 5000 });
    expect(d.limitedBy).toBe('apiGateway');
    expect(d.at).toBeLessThan(API_GATEWAY_LIMIT_MS);
    const s = computeDeadline({ now: 0, requestTimeoutMs: 60_000, configTimeoutMs: 5000, behindApiGateway: false });
    expect(s.at).toBe(60_000);
  });
  it('a Lambda with less time left than the margin gets a zero budget, not a negative one', () => {
    const d = computeDeadline({ now: 100, configTimeoutMs: 5000, lambdaRemainingMs: 50 });
    expect(d.budgetMs).toBe(0);
    expect(d.at).toBe(100);
  });
  fcTest.prop([
    fc.nat(1e9),
    fc.option(fc.integer({ min: 1, max: 900_000 }), { nil: undefined }),
    fc.integer({ min: 1, max: 900_000 }),
    fc.option(fc.integer({ min: 0, max: 900_000 }), { nil: undefined }),
  ])('the deadline is the minimum of every bound', (now, req, cfg, rem) => {
    const d = computeDeadline({ now, requestTimeoutMs: req, configTimeoutMs: cfg, lambdaRemainingMs: rem });
    const bounds = [req ?? cfg, API_GATEWAY_LIMIT_MS - DEFAULT_SAFETY_MARGIN_MS, ...(rem === undefined ? [] : [rem - DEFAULT_SAFETY_MARGIN_MS])];
    expect(d.budgetMs).toBe(Math.max(0, Math.min(...bounds)));
    expect(d.at).toBe(now + d.budgetMs);
  });
});

describe('deadlineSignal', () => {
  it('fires at the absolute instant', async () => {
    const t0 = Date.now();
    const { signal } = deadlineSignal(t0 + 60, Date.now);
    await new Promise<void>((r) => signal.addEventListener('abort', () => r()));
    expect(Date.now() - t0).toBeGreaterThanOrEqual(55);
    expect((signal.reason as Error).name).toBe('DeadlineExceeded');
  });
  it('follows a parent abort and can be disposed', () => {
    const parent = new AbortController();
    const d = deadlineSignal(Date.now() + 10_000, Date.now, parent.signal);
    parent.abort(new Error('client gone'));
    expect(d.signal.aborted).toBe(true);
    d.dispose();
  });
});
