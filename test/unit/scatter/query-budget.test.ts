// One query's budget: the deadline the request, the configuration and the platform allow; the
// request's hedge switch over the configured policy; one concurrency cap for everything it runs.
import { describe, expect, it } from 'vitest';
import { queryBudget } from '../../../shared/core/scatter/query-budget.js';
import { topo } from './fakes.js';

describe('queryBudget', () => {
  const t = topo([1, 1], { timeoutMs: 4000, maxConcurrency: 1, hedge: { enabled: true } });

  it('takes the tightest deadline: the request, the configuration, the Lambda, API Gateway', () => {
    expect(queryBudget(t, { behindApiGateway: false }, {}, 1000).deadline).toEqual({ at: 5000, budgetMs: 4000, limitedBy: 'config' });
    expect(queryBudget(t, { behindApiGateway: false }, { timeoutMs: 1500 }, 1000).deadline).toMatchObject({ at: 2500, limitedBy: 'request' });
    expect(queryBudget(t, { behindApiGateway: false, lambdaRemainingMs: 2000 }, {}, 0).deadline.limitedBy).toBe('lambda');
  });

  it("the request's hedge switch wins over the configuration's, the rest of the policy stays", () => {
    expect(queryBudget(t, {}, {}, 0).hedge.enabled).toBe(true);
    const off = queryBudget(t, {}, { hedge: false }, 0).hedge;
    expect(off).toEqual({ ...t.query.hedge, enabled: false });
  });

  it('one cap for the whole request: a second task waits for the first', async () => {
    const { limiter } = queryBudget(t, {}, {}, 0);
    const order: string[] = [];
    let release!: () => void;
    const first = limiter.run(
      () =>
        new Promise<void>((r) => {
          order.push('first');
          release = r;
        }),
    );
    const second = limiter.run(async () => {
      order.push('second');
    });
    await Promise.resolve();
    expect(order).toEqual(['first']);
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(['first', 'second']);
  });
});
