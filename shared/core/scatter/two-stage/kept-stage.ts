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
import { truncatingModes } from '../../clickhouse/overflow-modes.js';
import type { SettingValue } from '../../clickhouse/port.js';
import { boolSetting } from '../../clickhouse/setting-truth.js';
import { KEEP_SETTING } from '../../plan/settings.js';
import type { ShardOutcome } from '../call-shard.js';
import type { Deadline } from '../deadline.js';
import { missingOf } from '../gather.js';
import { initiatorOrder, runKeptFinalStage, type FinalStageInput, type FinalStageResult } from './final-stage.js';
import {
  joinParts,
  runStageOne,
  type KeptPart,
  type LeafAnswer,
  type LeafOutcome,
  type PlannedLeaf,
  type StageOneInput,
  type StageOneResult,
} from './stage-one.js';

/** The shard that keeps its own rows, or undefined (several leaves, or the request said 0). */
export function keeperOf(leaves: readonly PlannedLeaf[], queryId: string, settings: Record<string, SettingValue> | undefined): number | undefined {
  if (leaves.length !== 1) return undefined;
  const v = settings?.[KEEP_SETTING];
  if (v !== undefined && boolSetting(v) === false) return undefined;
  // A truncating overflow mode must cut the initiator's own rows too: 18.16's CREATE ... AS SELECT,
  // which keeps them, applies no GROUP BY limit (measured: 200,000 groups kept at max_rows_to_group_by = 10).
  if (truncatingModes(settings).length) return undefined;
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

export interface KeeperFinalInput {
  one: StageOneResult;
  kept: KeptPart;
  leaf: PlannedLeaf;
  finalInput(answers: LeafAnswer[], candidates: number[]): FinalStageInput;
  stageInput: Omit<StageOneInput, 'leaves' | 'keep'>;
  deadline: Deadline;
  now(): number;
  /** Stage one's verdict (stage-one-verdict.ts), run again when the refetch changed the answers. */
  check(one: StageOneResult): void;
}

/**
 * The final stage on the keeper, in its session. When the kept rows are out of reach, they are
 * fetched again in half the time left and `one` is updated in place (the leaf, the keeper's outcome,
 * the missing shards): the caller then runs the final stage as if nothing had been kept.
 */
export async function finalOnKeeper(input: KeeperFinalInput): Promise<{ fin?: FinalStageResult; lost?: ShardOutcome }> {
  const { one, kept, now } = input;
  const got = await runKeptFinalStage(input.finalInput(one.leaves, [kept.shard]), kept);
  if (!('lost' in got)) return { fin: got };
  const re = await refetchKept({ ...input.stageInput, deadlineAt: now() + Math.max(0, input.deadline.at - now()) / 2 }, input.leaf, one.leaves[0]!);
  one.leaves[0] = re.answer;
  one.outcomes = one.outcomes.map((o) => (o.outcome.shard === kept.shard ? re.outcome : o));
  one.missing = missingOf(one.outcomes.map((o) => o.outcome));
  // No shard's rows left at all: no table to build (the verdict says why).
  if (re.answer.parts.length === 0) delete re.answer.columns;
  input.check(one);
  return { lost: got.lost };
}
