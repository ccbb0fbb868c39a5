// One round of the TPUT pre-pass: a statement over the distributed table, planned per shard by the
// ordinary pipeline (renaming, pruning, shard skipping) with a pass-through split, and sent to the
// chosen shards through callShard (hedges, retries on other replicas, cancellation) under a
// deadline that is a part of the query's one deadline. Each shard's rows are kept apart: TPUT
// needs every shard's own scores, not a merge.
import type { ColumnMeta } from '../../clickhouse/port.js';
import type { Topology } from '../../config/schema.js';
import { planQueryWith } from '../../plan/build.js';
import type { PlanOptions, QueryPlan } from '../../plan/types.js';
import { printSelect } from '../../sql/print.js';
import type { SelectQuery } from '../../sql/ast.js';
import type { HedgeSettings, ShardOutcome } from '../call-shard.js';
import type { Limiter } from '../fanout.js';
import { shardCallFor } from '../gather.js';
import type { HedgeState } from '../hedge.js';
import type { ShardInvoker } from '../invoker.js';
import { passThroughSplitter } from '../plan-inputs.js';
import { openFanOut } from '../shard-fanout.js';

export interface RoundContext {
  topo: Topology;
  invoker: ShardInvoker;
  queryId: string;
  now(): number;
  hedge: HedgeSettings;
  hedgeState: HedgeState;
  limiter: Limiter;
  planOptions: PlanOptions;
  signal?: AbortSignal;
  onShard?(o: ShardOutcome): void;
}

export interface ShardRows {
  meta: ColumnMeta[];
  rows: Record<string, unknown>[];
  /** The rows' size as JSON text: what the round moved from this shard. */
  bytes: number;
}

export interface RoundResult {
  /** The statement over the distributed table (for /explain and the answer's statistics). */
  sql: string;
  plan: QueryPlan;
  /** Shards the plan did not skip (the shards that hold rows the query may match). */
  queried: number[];
  /** Each asked shard's answer, when it answered. */
  answers: Map<number, ShardRows>;
  outcomes: ShardOutcome[];
  startedAt: number;
  endedAt: number;
}

/** Plan a round's statement (throws what the planner throws). */
export function planRound(ctx: Pick<RoundContext, 'topo' | 'planOptions'>, stmt: SelectQuery): Promise<QueryPlan> {
  return planQueryWith(stmt, ctx.topo, ctx.planOptions, passThroughSplitter);
}

/**
 * Run `plan` on the shards in `only` (all the plan's unskipped shards when absent), waiting until
 * `deadlineAt` at the latest. `wrap` rewrites each shard's planned SQL (and the statement's text)
 * before it is sent: the one-round pre-pass wraps the planned GROUP BY in its selection.
 */
export async function runRound(
  ctx: RoundContext,
  stmt: SelectQuery,
  plan: QueryPlan,
  deadlineAt: number,
  only?: ReadonlySet<number>,
  wrap: (sql: string) => string = (sql) => sql,
): Promise<RoundResult> {
  const startedAt = ctx.now();
  const queried = plan.shards.filter((s) => !s.skipped).map((s) => s.shard);
  const asked = plan.shards.filter((s) => !s.skipped && (!only || only.has(s.shard)));
  const fan = openFanOut({ ...ctx, state: ctx.hedgeState, deadlineAt });
  const answers = new Map<number, ShardRows>();
  const keepRows = (outcome: ShardOutcome) => {
    if (outcome.status !== 'ok' || !outcome.response) return;
    const { meta, rows } = outcome.response;
    answers.set(outcome.shard, { meta, rows, bytes: Buffer.byteLength(JSON.stringify(rows)) });
  };
  try {
    const outcomes = await Promise.all(
      asked.map((shardPlan) =>
        fan.ask(
          shardPlan.shard,
          shardCallFor(plan, shardPlan.sql === undefined ? shardPlan : { ...shardPlan, sql: wrap(shardPlan.sql) }, ctx.topo, ctx.queryId, deadlineAt),
          keepRows,
        ),
      ),
    );
    // The text shown: the SETTINGS clause travels apart (plan.settings), not inside the wrapped subquery.
    return { sql: wrap(printSelect({ ...stmt, settings: undefined })), plan, queried, answers, outcomes, startedAt, endedAt: ctx.now() };
  } finally {
    fan.close();
  }
}
