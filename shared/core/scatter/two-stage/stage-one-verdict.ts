// Stage one as the one completeness verdict (shared/core/scatter/completeness.ts) sees it, before any
// final stage runs: every leaf's outcomes, the missing shards (the GLOBAL subqueries' too, as on the
// fast path), and a leaf no shard answered (it has no columns to build its table from; the time it had
// was the deadline less the final stage's reserve).
import { judgeCoverage, judgeShards, judgeTruncation, summarizeShards } from '../completeness.js';
import type { SubqueryLedger } from '../global-subquery.js';
import type { ShardOutcome } from '../call-shard.js';
import type { Deadline } from '../deadline.js';
import type { ShardsSummary, TableCoverage } from '../query-types.js';
import type { StageOneResult } from './stage-one.js';
import { limitError } from './transfer-limits.js';
import { splitReplica } from '../shard-read-access.js';

/** The shards' summary over every leaf: a shard is ok when it answered every leaf it was asked. */
export function summarizeStageOne(total: number, one: StageOneResult, sub: SubqueryLedger | undefined): ShardsSummary {
  return summarizeShards(
    total,
    one.skipped.length,
    one.outcomes.map((o) => o.outcome),
    [...one.missing, ...(sub?.missing ?? [])],
  );
}

/** Throws the client error stage one's outcomes make of the query; returns when the final stage may run. */
export function checkStageOne(
  one: StageOneResult,
  outcomes: readonly ShardOutcome[],
  total: number,
  requireComplete: boolean,
  deadline: Deadline,
  sub: SubqueryLedger | undefined,
  coverage?: { tables: readonly TableCoverage[]; required: number | undefined },
): void {
  // A shard's answer over a bound of its function (the exchange's memory limit): the query's, on any replica.
  const bound = outcomes.find((o) => o.code === 'TRANSFER_LIMIT');
  if (bound) throw limitError(`shard ${bound.shard}: ${splitReplica(bound.message ?? '').message}`);
  const empty = one.leaves.find((l) => !l.columns);
  const lost = empty ? one.outcomes.filter((o) => o.leaf === empty.name).map((o) => o.outcome) : [];
  const shards = summarizeStageOne(total, one, sub);
  judgeShards({
    outcomes: [...outcomes, ...(sub?.outcomes ?? [])],
    answers: outcomes,
    tooLarge: 'stage one',
    shards,
    missing: shards.missing,
    requireComplete,
    deadline,
    ...(coverage ? { coverage: coverage.tables } : {}),
    ...(empty ? { unanswered: { leaf: empty.name, lost: lost.map((o) => ({ shard: o.shard, timedOut: o.status === 'timeout', message: o.message })) } } : {}),
  });
  judgeTruncation(sub?.truncated ?? [], requireComplete, shards);
  if (coverage) judgeCoverage(coverage.tables, coverage.required, shards.missing.length > 0 || (sub?.truncated.length ?? 0) > 0, shards);
}
