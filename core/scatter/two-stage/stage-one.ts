// Stage one of the general path: every leaf of the two-stage plan, planned per shard by the
// ordinary pipeline, fanned out through the same runtime as the fast path (callShard: one
// absolute deadline, hedging within its budget, retries on other replicas, cancellation), with
// each shard asked for TabSeparatedWithNamesAndTypes so every value and aggregate state arrives
// as the engine's own bytes. As each answer arrives its header is checked against the leaf's
// other shards and its size against the transfer limits; at the end each leaf's bodies are
// concatenated in SHARD order (never arrival order), so the final stage sees the same input
// however the shards raced.
import type { ColumnMeta } from '../../clickhouse/port.js';
import { ScatterError } from '../../errors.js';
import type { QueryPlan, ShardPlan } from '../../plan/types.js';
import { callShard, type ShardOutcome } from '../call-shard.js';
import { deadlineSignal } from '../deadline.js';
import type { Limiter } from '../fanout.js';
import { type GatherInput, shardCallFor, type MissingShard } from '../gather.js';
import type { StageBudget } from './transfer-limits.js';
import { describeColumns, sameColumns, splitTsvAnswer, type TsvAnswer } from './tsv.js';
import { rawBytes, withoutRaw } from './wire.js';

/** The format every stage-one answer is asked in: names, types, then rows, states as escaped bytes. */
export const STAGE_ONE_FORMAT = 'TabSeparatedWithNamesAndTypes';

export interface PlannedLeaf {
  name: string;
  plan: QueryPlan;
}

/** What gather takes for one plan, for every leaf at once. */
export interface StageOneInput extends Omit<GatherInput, 'plan' | 'limiter'> {
  leaves: PlannedLeaf[];
  /** When stage one stops waiting: the query's deadline less the final stage's reserve. */
  deadlineAt: number;
  limiter: Limiter;
  budget: StageBudget;
}

export interface LeafAnswer {
  name: string;
  /** The leaf's columns as the shards reported them (undefined when no shard answered it). */
  columns?: ColumnMeta[];
  /** Every answering shard's rows, concatenated in shard order. */
  body: Buffer;
  rows: number;
}

export interface LeafOutcome {
  leaf: string;
  outcome: ShardOutcome;
}

export interface StageOneResult {
  leaves: LeafAnswer[];
  /** One per (leaf, queried shard), in leaf then shard order. */
  outcomes: LeafOutcome[];
  missing: MissingShard[];
  /** Shards no leaf asked (the plan's skips), with the first leaf's reason. */
  skipped: ShardPlan[];
}

export async function runStageOne(input: StageOneInput): Promise<StageOneResult> {
  const { topo, now } = input;
  const stop = new AbortController();
  const onParent = () => stop.abort(input.signal?.reason);
  if (input.signal?.aborted) onParent();
  else input.signal?.addEventListener('abort', onParent, { once: true });
  const deadline = deadlineSignal(input.deadlineAt, now, stop.signal);
  let failure: unknown;
  const fail = (e: unknown) => {
    if (failure === undefined) failure = e;
    stop.abort(e);
  };
  const answers = input.leaves.map(() => new Map<number, TsvAnswer>());
  const reference: (ColumnMeta[] | undefined)[] = input.leaves.map(() => undefined);

  try {
    const perLeaf = await Promise.all(
      input.leaves.map((leaf, li) =>
        Promise.all(
          leaf.plan.shards
            .filter((s) => !s.skipped)
            .map(async (shardPlan): Promise<LeafOutcome> => {
              const outcome = await callShard({
                shard: shardPlan.shard,
                ...shardCallFor(leaf.plan, shardPlan, topo, input.queryId, input.deadlineAt, { format: STAGE_ONE_FORMAT }),
                invoker: input.invoker,
                limiter: input.limiter,
                deadlineAt: input.deadlineAt,
                signal: deadline.signal,
                now,
                hedge: input.hedge,
                state: input.state,
              });
              if (outcome.status === 'ok' && outcome.response && failure === undefined) {
                try {
                  accept(leaf.name, li, outcome);
                } catch (e) {
                  fail(e);
                }
              }
              // The bytes are kept in `answers`; drop them from the outcome the caller may log or hold.
              if (outcome.response) outcome.response = withoutRaw(outcome.response);
              input.onShard?.(outcome);
              return { leaf: leaf.name, outcome };
            }),
        ),
      ),
    );
    if (failure !== undefined) throw failure;
    const outcomes = perLeaf.flat();
    const leaves = input.leaves.map((leaf, li): LeafAnswer => {
      const got = [...answers[li]!.entries()].sort((a, b) => a[0] - b[0]).map(([, a]) => a);
      const answer: LeafAnswer = { name: leaf.name, body: Buffer.concat(got.map((a) => a.body)), rows: got.reduce((n, a) => n + a.rows, 0) };
      if (reference[li]) answer.columns = reference[li];
      return answer;
    });
    return { leaves, outcomes, missing: missingOfLeaves(outcomes, input.leaves.length > 1), skipped: skippedEverywhere(input.leaves) };
  } finally {
    deadline.dispose();
    input.signal?.removeEventListener('abort', onParent);
  }

  function accept(leaf: string, li: number, outcome: ShardOutcome): void {
    let answer: TsvAnswer;
    try {
      answer = splitTsvAnswer(rawBytes(outcome.response!));
    } catch (e) {
      throw new ScatterError('SHARD_ERROR', `shard ${outcome.shard}'s answer to ${leaf} is unreadable: ${(e as Error).message}`);
    }
    const ref = reference[li];
    if (!ref) reference[li] = answer.columns;
    else if (!sameColumns(ref, answer.columns)) {
      // Tables that differ between shards (a migration half done): ClickHouse's Distributed table fails too.
      throw new ScatterError(
        'SHARD_ERROR',
        `the shards disagree on ${leaf}'s columns: shard ${outcome.shard} answered (${describeColumns(answer.columns)}), ` +
          `another shard (${describeColumns(ref)}); the local tables differ between shards`,
      );
    }
    input.budget.add(leaf, outcome.shard, answer.rows, answer.body.length);
    answers[li]!.set(outcome.shard, answer);
  }
}

/** The missing shards of every leaf, once per shard (the first leaf's reason), leaf named when there are several. */
function missingOfLeaves(outcomes: readonly LeafOutcome[], nameLeaf: boolean): MissingShard[] {
  const seen = new Map<number, MissingShard>();
  for (const { leaf, outcome: o } of outcomes) {
    if (o.status === 'ok' || seen.has(o.shard)) continue;
    const message = o.message ?? o.status;
    seen.set(o.shard, { shard: o.shard, reason: o.status, message: nameLeaf ? `${leaf}: ${message}` : message });
  }
  return [...seen.values()].sort((a, b) => a.shard - b.shard);
}

function skippedEverywhere(leaves: readonly PlannedLeaf[]): ShardPlan[] {
  const first = leaves[0];
  if (!first) return [];
  return first.plan.shards.filter((s) => s.skipped && leaves.every((l) => l.plan.shards[s.shard]?.skipped));
}
