// A GLOBAL IN / JOIN right-hand side run where a partial set is never acceptable (/explain, the
// ClickHouse interface): planned, gathered under the caller's deadline, and refused as
// INCOMPLETE_RESULT when any shard is missing, or TOO_LARGE when a shard's partial was.
import { ScatterError } from '../errors.js';
import type { QueryPlan, SubqueryRunner } from '../plan/types.js';
import type { SelectStatement } from '../sql/ast.js';
import { gather, type GatherInput } from './gather.js';
import { tooLargeError } from './too-large.js';

export function completeSubqueryRunner(
  base: Omit<GatherInput, 'plan'>,
  planSubquery: (stmt: SelectStatement, self: SubqueryRunner) => Promise<QueryPlan>,
  opts: { missingInDetails?: boolean } = {},
): SubqueryRunner {
  const run: SubqueryRunner = async (stmt) => {
    const g = await gather({ ...base, plan: await planSubquery(stmt, run) });
    const big = tooLargeError(g.outcomes, 'GLOBAL subquery');
    if (big) throw big;
    if (g.missing.length > 0) {
      throw new ScatterError(
        'INCOMPLETE_RESULT',
        `GLOBAL subquery incomplete: ${g.missing.map((m) => `shard ${m.shard} ${m.reason}`).join(', ')}`,
        opts.missingInDetails ? { details: { shards: { missing: g.missing } } } : undefined,
      );
    }
    const fin = g.merger.finalize();
    return { meta: fin.meta, rows: fin.data };
  };
  return run;
}
