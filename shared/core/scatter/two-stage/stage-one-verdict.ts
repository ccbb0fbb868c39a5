// Stage one's verdict, before any final stage runs: a ClickHouse user error on a shard is the
// query's (400), an answer over the response limit is a transfer limit (413), missing shards are
// partial or, with requireComplete, 504; a leaf no shard answered has no table to build (504/502).
// Also the per-shard summary of a multi-leaf stage one (a shard is ok when every leaf it was asked
// answered).
import { ScatterError } from '../../errors.js';
import type { ShardOutcome } from '../call-shard.js';
import type { Deadline } from '../deadline.js';
import { isQueryFailure, queryFailureError } from '../query-errors.js';
import type { ShardsSummary } from '../query-types.js';
import { tooLargeError } from '../too-large.js';
import type { StageOneResult } from './stage-one.js';

/** Stage one's verdict before the final stage: query errors, oversized answers, missing shards. */
export function checkStageOne(one: StageOneResult, outcomes: ShardOutcome[], shards: ShardsSummary, requireComplete: boolean, deadline: Deadline): void {
  const bad = outcomes.find(isQueryFailure);
  if (bad) throw queryFailureError(bad, { shards });
  const big = tooLargeError(outcomes, 'query', { shards });
  if (big) {
    // A shard's stage-one rows over what a shard function may return: the transfer limit of the general path.
    throw new ScatterError('TRANSFER_LIMIT', big.message.replace("the query's partial result", "the general path's stage-one answer"), {
      details: { shards },
    });
  }
  if (one.missing.length > 0 && requireComplete) {
    throw new ScatterError(
      'INCOMPLETE_RESULT',
      `${one.missing.length} shard(s) did not answer: ${one.missing.map((m) => `shard ${m.shard} ${m.reason}`).join(', ')}`,
      {
        details: { shards },
      },
    );
  }
  // A leaf no shard answered has no columns to build its table from: there is no answer to call partial.
  const empty = one.leaves.find((l) => !l.columns);
  if (empty) {
    const lost = one.outcomes.filter((o) => o.leaf === empty.name).map((o) => o.outcome);
    if (lost.every((o) => o.status === 'timeout')) {
      throw new ScatterError('TIMEOUT', `no shard answered ${empty.name} within ${deadline.budgetMs} ms (less the final stage's reserve)`, {
        details: { shards },
      });
    }
    const first = lost.find((o) => o.status !== 'timeout') ?? lost[0];
    throw new ScatterError(
      'SHARD_ERROR',
      `all ${lost.length} queried shard(s) failed for ${empty.name}${first ? `; shard ${first.shard}: ${first.message}` : ''}`,
      {
        details: { shards },
      },
    );
  }
}

export function summarizeLeaves(total: number, one: StageOneResult): ShardsSummary {
  // Per shard: ok when it answered every leaf it was asked; otherwise its first failure.
  const byShard = new Map<number, ShardOutcome>();
  for (const { outcome } of one.outcomes) {
    const prev = byShard.get(outcome.shard);
    if (!prev || (prev.status === 'ok' && outcome.status !== 'ok')) byShard.set(outcome.shard, outcome);
  }
  const per = [...byShard.values()];
  return {
    total,
    queried: per.length,
    skipped: one.skipped.length,
    succeeded: per.filter((o) => o.status === 'ok').length,
    failed: per.filter((o) => o.status !== 'ok' && o.status !== 'timeout').length,
    timedOut: per.filter((o) => o.status === 'timeout').length,
    hedged: one.outcomes.filter((o) => o.outcome.hedged).length,
    missing: one.missing,
  };
}
