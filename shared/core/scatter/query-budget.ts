// What one query runs under, set up once per request: its single absolute deadline, its hedging policy
// and one concurrency cap shared by the query, its GLOBAL subqueries and its TPUT round, so the cap
// holds for the whole request. Shared by the JSON API (query and explain) and the ClickHouse interface.
import type { Topology } from '../config/schema.js';
import { computeDeadline, type Deadline } from './deadline.js';
import { createLimiter, type Limiter } from './fanout.js';
import type { HedgeSettings } from './call-shard.js';

export interface QueryBudget {
  deadline: Deadline;
  hedge: HedgeSettings;
  limiter: Limiter;
}

export function queryBudget(
  topo: Topology,
  env: { lambdaRemainingMs?: number; behindApiGateway?: boolean },
  req: { timeoutMs?: number; hedge?: boolean },
  now: number,
): QueryBudget {
  return {
    deadline: computeDeadline({
      now,
      requestTimeoutMs: req.timeoutMs,
      configTimeoutMs: topo.query.timeoutMs,
      lambdaRemainingMs: env.lambdaRemainingMs,
      behindApiGateway: env.behindApiGateway,
    }),
    hedge: { ...topo.query.hedge, enabled: req.hedge ?? topo.query.hedge.enabled },
    limiter: createLimiter(topo.query.maxConcurrency),
  };
}
