// The planner: one SELECT over a Distributed table -> one ShardPlan per configured shard (as
// ClickHouse's Distributed engine rewrites it). The pipeline is in build.ts; this binds it to the
// aggregate split of shared/core/partials.
import type { SelectStatement } from '../sql/ast.js';
import type { Topology } from '../config/schema.js';
import { splitQuery } from '../partials/index.js';
import type { PlanOptions, QueryPlan } from './types.js';
import { planQueryWith } from './build.js';

export type { PlanOptions, QueryPlan, ShardPlan, SubqueryRunner, ResolvedTable } from './types.js';
export { explainPlan, renderExplainText, type ExplainResponse, type ExplainShard } from './explain.js';
export { externalName } from './globals.js';
export { FORWARDED_SETTINGS } from './settings.js';
export { planQueryWith, type Splitter } from './build.js';

/** Plan one query: parse (if text) -> analyze -> GLOBAL data -> split -> per-shard rewrite -> print. */
export function planQuery(input: string | SelectStatement, topo: Topology, opts: PlanOptions = {}): Promise<QueryPlan> {
  return planQueryWith(input, topo, opts, splitQuery, { mergesInCoordinator: true });
}
