// Scatter and gather one planned query: every non-skipped shard is asked in
// parallel under the one absolute deadline, each partial is folded into the plan's Merger the
// moment it arrives (merges are associative and commutative, so arrival order cannot change the
// result), and at the deadline whatever has not answered is listed as missing with its reason.
import type { ExternalTable } from '../clickhouse/port.js';
import { shippedJsonEachRow } from '../clickhouse/sql-text.js';
import type { QueryPlan, ShardPlan } from '../plan/types.js';
import type { Merger } from '../partials/types.js';
import type { Topology } from '../config/schema.js';
import type { ShardRequest } from '../protocol/shard-wire.js';
import type { ShardInvoker } from './invoker.js';
import { createLimiter, type Limiter } from './fanout.js';
import type { HedgeSettings, MissingReason, ShardOutcome } from './call-shard.js';
import type { HedgeState } from './hedge.js';
import { DeadlineExceeded } from './deadline.js';
import { openFanOut, type ShardAsk } from './shard-fanout.js';
import { clientShardMessage } from './query-errors.js';
import { mergeBudget, partialUnits, type MergeBudget } from './merge-budget.js';

export interface MissingShard {
  shard: number;
  reason: MissingReason;
  message: string;
  /** Set when the shard was missing from a GLOBAL subquery rather than the main query. */
  subquery?: boolean;
}

export interface GatherInput {
  plan: QueryPlan;
  topo: Topology;
  invoker: ShardInvoker;
  queryId: string;
  deadlineAt: number;
  now(): number;
  hedge: HedgeSettings;
  state: HedgeState;
  /** Shared by a query and its GLOBAL subqueries so the cap holds for the whole request. */
  limiter?: Limiter;
  /** Abandon everything (e.g. the client went away). */
  signal?: AbortSignal;
  /** Called as each shard finishes (logs, metrics). */
  onShard?(o: ShardOutcome): void;
  /** Per shard, the replica a cursor's earlier pages read (pinned paging; undefined: any). */
  pinned?: readonly (number | null)[] | undefined;
  /** Receives the shards' outcomes when the merge refuses what they answered: the rows they read, which a caller answering another way still paid for. */
  spentOnRefusal?: ShardOutcome[];
}

/** One fold of partials into the merger (the caller's now()): a shard's, or a sub-coordinator group's. */
export interface MergeSpan {
  shard?: number;
  group?: number;
  startedAt: number;
  endedAt: number;
}

export interface GatherResult {
  merger: Merger;
  outcomes: ShardOutcome[]; // queried shards, in shard order
  missing: MissingShard[];
  skipped: ShardPlan[];
  /** When each partial was merged, in arrival order. */
  merges: MergeSpan[];
  /** The merge budget (merge-budget.ts): the caller records its finalize into it. */
  budget?: MergeBudget;
}

/** The external tables one shard's query needs, with per-shard pruned copies taking precedence. */
export function externalFor(plan: QueryPlan, shardPlan: ShardPlan): ExternalTable[] {
  const byName = new Map(plan.external.map((t) => [t.name, t]));
  for (const override of shardPlan.externalOverrides ?? []) byName.set(override.name, override);
  return shardPlan.external.map((n) => {
    const t = byName.get(n);
    if (!t) throw new Error(`plan for shard ${shardPlan.shard} names external table ${n} that the plan does not carry`);
    return encodedOnce(t);
  });
}

/**
 * `t` as it goes on the wire: its rows encoded as JSONEachRow once (bytes in a format pass as they are), shared by every shard that
 * ships it (the plan's table object is the same for all of them). A GLOBAL IN set of n rows sent to
 * s shards was serialized s times as row objects by the invoker and parsed, validated and
 * re-encoded by each shard; now it is one string. Already-encoded tables (a sub-coordinator's,
 * from its TreeRequest) pass as they are.
 */
const encoded = new WeakMap<ExternalTable, ExternalTable>();
export function encodedOnce(t: ExternalTable): ExternalTable {
  if (t.jsonEachRow !== undefined || t.data) return t;
  let e = encoded.get(t);
  if (!e) {
    e = { name: t.name, columns: t.columns, rows: [], jsonEachRow: shippedJsonEachRow(t.rows) };
    encoded.set(t, e);
  }
  return e;
}

/**
 * What callShard needs to ask one planned shard: its replica count and the request for each
 * attempt. `extra` fields go into every request (the general path's output `format`).
 */
export function shardCallFor(
  plan: QueryPlan,
  shardPlan: ShardPlan,
  topo: Topology,
  queryId: string,
  deadlineAt: number,
  extra?: Pick<ShardRequest, 'format' | 'keep' | 'describe'>,
): ShardAsk {
  const shardCfg = topo.shards[shardPlan.shard];
  if (!shardCfg) throw new Error(`plan names shard ${shardPlan.shard}, the topology has ${topo.shards.length}`);
  if (shardPlan.sql === undefined) throw new Error(`plan for shard ${shardPlan.shard} has no SQL`);
  const external = externalFor(plan, shardPlan);
  const sql = shardPlan.sql;
  const shard = shardPlan.shard;
  const settings = plan.settings;
  return {
    replicaCount: shardCfg.replicas.length,
    request: (replica, attempt) => ({ type: 'query', queryId, shard, replica, sql, deadline: deadlineAt, settings, external, attempt, ...extra }),
  };
}

function pinnedAsk(ask: ShardAsk, pinned: number | null | undefined): ShardAsk {
  return pinned === undefined || pinned === null ? ask : { ...ask, pinned };
}

/** Every shard that did not answer, with its reason (the `shards.missing` of a response). */
export function missingOf(outcomes: readonly ShardOutcome[]): MissingShard[] {
  return outcomes
    .filter((o) => o.status !== 'ok')
    .map((o) => ({ shard: o.shard, reason: o.status as MissingReason, message: o.message ? clientShardMessage(o.message) : o.status }));
}

export async function gather(input: GatherInput): Promise<GatherResult> {
  const { plan, topo, now } = input;
  const merger = plan.createMerger();
  const limiter = input.limiter ?? createLimiter(topo.query.maxConcurrency);
  // A merge failure abandons the remaining shards at once, like the deadline would.
  const fan = openFanOut({ ...input, limiter });
  const skipped = plan.shards.filter((s) => s.skipped);
  const queried = plan.shards.filter((s) => !s.skipped);
  let mergeError: unknown;
  const merges: MergeSpan[] = [];
  // The deadline covers the merge and the finalize (merge-budget.ts): stop waiting for shards when
  // the time left only covers the finalize of what is merged (re-armed after every merge).
  const budget = mergeBudget(input.deadlineAt);
  let cutoffTimer: ReturnType<typeof setTimeout> | undefined;
  let armedAt = input.deadlineAt;
  const armCutoff = () => {
    // Timers fire to the millisecond: a cutoff within 1 ms of the armed one (or of the deadline,
    // which stops everything anyway) needs no new timer. Small partials, the common case, then
    // cost no timer at all (a clear and a set per shard was measurable at 64 shards).
    const at = budget.cutoff();
    if (at > armedAt - 1) return;
    if (cutoffTimer) clearTimeout(cutoffTimer);
    armedAt = at;
    cutoffTimer = setTimeout(() => fan.stop(new DeadlineExceeded(at)), Math.max(0, at - now()));
    cutoffTimer.unref?.();
  };
  armCutoff();

  const mergeOnArrival = (outcome: ShardOutcome) => {
    if (outcome.status !== 'ok' || !outcome.response || mergeError !== undefined) return;
    const startedAt = now();
    const units = partialUnits(outcome.response.rows);
    if (!budget.fits(units, startedAt)) {
      // Too late to merge and still answer by the deadline: the answer goes without it.
      Object.assign(outcome, { status: 'timeout', message: `shard ${outcome.shard} ${budget.describeDrop(units, startedAt)}` });
      return;
    }
    try {
      merger.add(outcome.shard, outcome.response.rows, outcome.response.meta); // merge on arrival
    } catch (e) {
      mergeError = e; // e.g. a transfer limit: stop everything, report it
      fan.stop(e);
    }
    const endedAt = now();
    merges.push({ shard: outcome.shard, startedAt, endedAt });
    budget.recordMerge(units, endedAt - startedAt);
    armCutoff();
  };

  try {
    const outcomes = await Promise.all(
      queried.map((shardPlan) =>
        fan.ask(
          shardPlan.shard,
          pinnedAsk(shardCallFor(plan, shardPlan, topo, input.queryId, input.deadlineAt), input.pinned?.[shardPlan.shard]),
          mergeOnArrival,
        ),
      ),
    );
    if (mergeError !== undefined) {
      input.spentOnRefusal?.push(...outcomes);
      throw mergeError;
    }
    // Shards cut at the merge cutoff, before the deadline itself: say why they were not awaited.
    const cut = fan.stopped.reason instanceof DeadlineExceeded ? fan.stopped.reason.at : undefined;
    if (cut !== undefined && cut < input.deadlineAt) {
      const note = `; stopped waiting ${Math.round(input.deadlineAt - cut)} ms before the deadline, the time the finalize of the merged partials needs`;
      for (const o of outcomes) if (o.status === 'timeout' && o.response === undefined) o.message = `${o.message ?? 'timeout'}${note}`;
    }
    return { merger, outcomes, missing: missingOf(outcomes), skipped, merges, budget };
  } finally {
    if (cutoffTimer) clearTimeout(cutoffTimer);
    fan.close();
  }
}
