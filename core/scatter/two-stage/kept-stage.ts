// The initiator keeps its own rows. The shard that will run the final stage is known before stage
// one starts (the query id's hash over the shards asked, as initiatorOrder picks it among those
// that answered), so its stage one does not answer with its rows: it keeps them in a temporary
// table of a private session on its own ClickHouse server, and the final stage, sent to the same
// replica, adds the other shards' rows to that table and runs there. One shard's rows never cross
// the two hops (shard -> coordinator -> final stage), which is what ClickHouse's Distributed
// table does with the initiator's own part. docs/architecture.md#the-initiator-keeps-its-own-rows.
//
// It is an optimisation with a way back, never a new way to fail:
// - an engine without sessions (chdb) answers the request as if `keep` were not there;
// - when the kept rows are out of reach at the final stage (that replica failed, its session is
//   gone), they are fetched again as an ordinary stage-one answer, and the final stage runs as
//   without keeping, on the shards that answered.
// Only plans of one leaf keep: with several, each leaf would need the same replica's session.
import type { SettingValue } from '../../clickhouse/port.js';
import { KEEP_SETTING } from '../../plan/settings.js';
import { initiatorOrder } from './final-stage.js';
import { joinParts, runStageOne, type LeafAnswer, type LeafOutcome, type PlannedLeaf, type StageOneInput } from './stage-one.js';

/** The shard that keeps its own rows, or undefined (several leaves, or the request said 0). */
export function keeperOf(leaves: readonly PlannedLeaf[], queryId: string, settings: Record<string, SettingValue> | undefined): number | undefined {
  if (leaves.length !== 1) return undefined;
  const v = settings?.[KEEP_SETTING];
  if (v !== undefined && ['0', 'false'].includes(String(v).toLowerCase())) return undefined;
  const queried = leaves[0]!.plan.shards.filter((s) => !s.skipped).map((s) => s.shard);
  return initiatorOrder(queryId, queried)[0];
}

/**
 * The kept part of `answer`, fetched again as an ordinary stage-one answer (no keep) until
 * `deadlineAt`: the leaf with that part among its shipped ones, and the fetch's outcome. When the
 * shard does not answer, the leaf comes back without it (the caller reports the shard missing).
 */
export async function refetchKept(
  input: Omit<StageOneInput, 'leaves' | 'keep'>,
  leaf: PlannedLeaf,
  answer: LeafAnswer,
): Promise<{ answer: LeafAnswer; outcome: LeafOutcome }> {
  const kept = answer.kept!;
  const only: PlannedLeaf = {
    ...leaf,
    plan: { ...leaf.plan, shards: leaf.plan.shards.map((s) => (s.shard === kept.shard ? s : { ...s, skipped: true, reason: 'answered in stage one' })) },
  };
  input.budget.forget(kept.rows);
  const again = await runStageOne({ ...input, leaves: [only] });
  const part = again.leaves[0]!.parts[0];
  const { kept: _gone, ...shipped } = answer;
  const rebuilt: LeafAnswer = { ...shipped, ...joinParts(part ? [...answer.parts, part] : answer.parts) };
  return { answer: rebuilt, outcome: again.outcomes[0]! };
}
