// What TPUT's pre-pass (run by the request's session, shared/core/scatter/query-session.ts) adds to
// the JSON API's answer, and what /explain says of a top count.
import { explainTopCount, type TopCountInfo } from '../../plan/tput/describe.js';
import { exactMethodOf, requestedTopCount } from '../../plan/tput/method.js';
import { tputEligibility } from '../../plan/tput/shape.js';
import type { QueryRequest } from '../../protocol/api-request.js';
import type { SelectStatement } from '../../sql/ast.js';
import type { QueryResponse, RunDeps } from '../query-types.js';
import { mergedSettings, productModeOf } from '../plan-inputs.js';
import type { Prepass } from './prepass.js';

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
