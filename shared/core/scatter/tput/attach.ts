// The TPUT pre-pass as POST /query and /explain use it: the request's context (its one deadline,
// in-flight cap, hedge settings) handed to the rounds, and what they found added to the answer.
import type { PlanOptions } from '../../plan/types.js';
import { explainTopCount, type TopCountInfo } from '../../plan/tput/describe.js';
import { exactMethodOf, requestedTopCount } from '../../plan/tput/method.js';
import { tputEligibility } from '../../plan/tput/shape.js';
import type { QueryRequest } from '../../protocol/api-request.js';
import type { SelectStatement } from '../../sql/ast.js';
import type { HedgeSettings } from '../call-shard.js';
import type { Deadline } from '../deadline.js';
import type { Limiter } from '../fanout.js';
import type { QueryResponse, RunDeps } from '../query-types.js';
import { mergedSettings, productModeOf } from '../plan-inputs.js';
import { topCountPrepass, type Prepass } from './prepass.js';

export interface PrepassRequest {
  req: QueryRequest;
  deps: RunDeps;
  stmt: SelectStatement | undefined;
  deadline: Deadline;
  limiter: Limiter;
  hedge: HedgeSettings;
  startedAt: number;
  planOptions: PlanOptions;
}

/** The pre-pass round when the request's statement is a top count over groups that span shards; else undefined. */
export async function prepassFor(r: PrepassRequest): Promise<Prepass | undefined> {
  if (!r.stmt || r.req.cursor) return undefined;
  const { deps } = r;
  return topCountPrepass({
    ctx: {
      topo: deps.topo,
      invoker: deps.invoker,
      queryId: deps.queryId,
      now: deps.now ?? Date.now,
      hedge: r.hedge,
      hedgeState: deps.hedgeState,
      limiter: r.limiter,
      planOptions: r.planOptions,
      ...(deps.onShard ? { onShard: deps.onShard } : {}),
    },
    stmt: r.stmt,
    setting: requestedTopCount(r.req.settings, r.stmt, deps.topo),
    productMode: productModeOf(mergedSettings(r.req, r.stmt), deps.topo),
    deadlineAt: r.deadline.at,
    startedAt: r.startedAt,
    ...(deps.topCountMemory ? { memory: deps.topCountMemory } : {}),
  });
}

/** The answer with the top count's method, and the pre-pass round in its statistics. */
export function withTopCount(body: QueryResponse, pre: Prepass | undefined): QueryResponse {
  if (!pre) return body;
  body.topCount = pre.info;
  body.statistics.shards = [...pre.stats, ...body.statistics.shards];
  body.statistics.rowsRead += pre.rowsRead;
  body.statistics.bytesRead += pre.bytesRead;
  return body;
}

/** /explain's `topCount`: the method, and TPUT's round SQL; undefined for other queries. */
export function explainTopCountFor(req: QueryRequest, deps: RunDeps, stmt: SelectStatement | undefined): (TopCountInfo & { roundSql?: string[] }) | undefined {
  if (!stmt || req.cursor) return undefined;
  const eligibility = tputEligibility(stmt, deps.topo, productModeOf(mergedSettings(req, stmt), deps.topo), req.settings);
  if (!eligibility.ok && !eligibility.topCount) return undefined;
  const setting = requestedTopCount(req.settings, stmt, deps.topo);
  return explainTopCount(exactMethodOf(setting), setting === 'tput' ? 'tput' : 'exact', eligibility, deps.topo);
}
