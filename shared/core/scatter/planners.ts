// The planners runQuery is given in production, wired once: the fast path's per-shard plan, its
// /explain rendering, and the general path's two-stage plan. The coordinator function, the CLI and the
// tests that run the whole coordinator spread it into their RunDeps.
import { explainPlan, planQuery } from '../plan/index.js';
import type { QueryPlan } from '../plan/types.js';
import { planTwoStage } from '../plan/two-stage/plan.js';
import type { PlanFn, RunDeps } from './query-types.js';

export const PLANNERS: Required<Pick<RunDeps, 'planQuery' | 'explainPlan' | 'planTwoStage'>> = {
  planQuery: planQuery as PlanFn,
  explainPlan: explainPlan as (plan: QueryPlan) => unknown,
  planTwoStage,
};
