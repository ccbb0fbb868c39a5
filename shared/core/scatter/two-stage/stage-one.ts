// Stage one of the general path: every leaf of the two-stage plan, planned per shard by the
// ordinary pipeline, fanned out through the same runtime as the fast path (callShard: one
// absolute deadline, hedging within its budget, retries on other replicas, cancellation), with
// each shard asked for TabSeparatedWithNamesAndTypes so every value and aggregate state arrives
// as the engine's own bytes. As each answer arrives its header is checked against the leaf's
// other shards and its size against the transfer limits; at the end each leaf's bodies are
// concatenated in SHARD order (never arrival order), so the final stage sees the same input
// however the shards raced.
import { InexactStage } from './state-carrier.js';
import { releaseExchanged, releaseKept } from '../shard-cancel.js';
import type { ColumnMeta, StageFormat } from '../../clickhouse/port.js';
import type { ShardRequest } from '../../protocol/shard-wire.js';
import type { ExchangeCleaner, ExchangeRef } from '../../shard/exchange.js';
import { ScatterError } from '../../errors.js';
import type { QueryPlan, ShardPlan } from '../../plan/types.js';
import type { ShardOutcome } from '../call-shard.js';
import type { Limiter } from '../fanout.js';
import { type GatherInput, shardCallFor, type MissingShard } from '../gather.js';
import { openFanOut } from '../shard-fanout.js';
import { clientShardMessage } from '../query-errors.js';
import type { StageBudget } from './transfer-limits.js';
import { describeColumns, inexactInTsv, sameColumns, splitTsvAnswer, type TsvAnswer } from './tsv.js';
import { rawBytes } from './wire.js';

/** The format every stage-one answer is asked in: names, types, then rows, states as escaped bytes. */
export const STAGE_ONE_FORMAT = 'TabSeparatedWithNamesAndTypes';

export interface PlannedLeaf {
  name: string;
  plan: QueryPlan;
  /** An aggregation without GROUP BY (StageLeaf.oneRowPerShard): its row travels as RowBinary. */
  oneRowPerShard?: boolean;
}

/**
 * How a leaf's rows travel: TabSeparatedWithNamesAndTypes, or, for one row per shard, the header
 * from DESCRIBE and the row as RowBinary. The engine writes and reads RowBinary states without
 * TabSeparated's escaping (on 18.16, a shard's `uniq` and `uniqCombined` states: 23 ms to write as
 * RowBinary, 29 ms as TabSeparated, and 16 % fewer bytes); TabSeparated stays where rows must be
 * counted, since a RowBinary aggregate state has no length to count by.
 */
export function leafFormat(leaf: Pick<PlannedLeaf, 'oneRowPerShard'>): StageFormat {
  return leaf.oneRowPerShard ? 'RowBinary' : 'TabSeparated';
}

/** What gather takes for one plan, for every leaf at once. */
export interface StageOneInput extends Omit<GatherInput, 'plan' | 'limiter'> {
  leaves: PlannedLeaf[];
  /** When stage one stops waiting: the query's deadline less the final stage's reserve. */
  deadlineAt: number;
  limiter: Limiter;
  budget: StageBudget;
  /**
   * The shard that will run the final stage keeps its rows of the one leaf in its engine
   * (kept-stage.ts); `until` is the query's deadline. Only for a plan of one leaf.
   */
  keep?: { shard: number; until: number };
  /**
   * A shard's answer with more rows' bytes than this goes to the exchange (exchange.ts) and is
   * answered as a reference; absent, every answer travels inline.
   */
  exchangeInlineBytes?: number;
  /** Deletes the objects of a stage one that failed (absent: the bucket's expiry does). */
  exchange?: ExchangeCleaner;
}

/** Where a shard kept its stage-one rows: a temporary table of that replica's session. */
export interface KeptPart {
  shard: number;
  replica: number;
  session: string;
  rows: number;
}

/** One shard's rows of a leaf: inline (`body`), or left in the exchange (`ref`, `body` empty). */
export interface LeafPart {
  shard: number;
  body: Buffer;
  rows: number;
  ref?: ExchangeRef;
}

export interface LeafAnswer {
  name: string;
  /** The leaf's columns as the shards reported them (undefined when no shard answered it). */
  columns?: ColumnMeta[];
  /** Every answering shard's inline rows, concatenated in shard order (a kept part adds none), in `format`. */
  body: Buffer;
  /** The parts left in the exchange, in shard order: the final stage inserts them after `body`. */
  objects: ExchangeRef[];
  format: StageFormat;
  /** The same, per shard, in shard order. */
  parts: LeafPart[];
  /** Rows of the final stage's input: shipped and kept. */
  rows: number;
  /** The rows a shard kept in its engine instead of answering with them. */
  kept?: KeptPart;
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
  const { topo } = input;
  const fan = openFanOut(input);
  let failure: unknown;
  const fail = (e: unknown) => {
    if (failure === undefined) failure = e;
    fan.stop(e);
  };
  const answers = input.leaves.map(() => new Map<number, LeafPart>());
  const kept: (KeptPart | undefined)[] = input.leaves.map(() => undefined);
  const keepFor = (shard: number, leaf: PlannedLeaf) =>
    input.keep && input.keep.shard === shard && input.leaves.length === 1 ? { keep: { table: leaf.name, until: input.keep.until } } : {};
  const reference: (ColumnMeta[] | undefined)[] = input.leaves.map(() => undefined);

  try {
    // The leaves that go to one shard travel in one invocation (FanOut.askAll): one attempt of it.
    const byShard = new Map<number, { li: number; shardPlan: ShardPlan }[]>();
    for (const [li, leaf] of input.leaves.entries())
      for (const shardPlan of leaf.plan.shards) {
        if (shardPlan.skipped) continue;
        const list = byShard.get(shardPlan.shard) ?? [];
        list.push({ li, shardPlan });
        byShard.set(shardPlan.shard, list);
      }
    const perLeaf: LeafOutcome[][] = input.leaves.map(() => []);
    await Promise.all(
      [...byShard.entries()].map(async ([shard, asked]) => {
        const hows = asked.map(({ li, shardPlan }) => {
          const leaf = input.leaves[li]!;
          return shardCallFor(leaf.plan, shardPlan, topo, input.queryId, input.deadlineAt, {
            ...askFor(leaf, input.exchangeInlineBytes),
            ...keepFor(shardPlan.shard, leaf),
          });
        });
        const got = await fan.askAll(shard, hows, (i, o) => {
          const leaf = input.leaves[asked[i]!.li]!;
          if (o.status !== 'ok' || !o.response) return;
          if (failure !== undefined) {
            // Stage one failed already: rows kept for its final stage are dropped, not left to time out.
            const k = o.response.kept;
            if (k) releaseKept(input.invoker, input.queryId, { shard: o.shard, replica: o.response.replica, session: k.session }, leaf.name, input.now);
            const x = o.response.exchanged;
            if (x) releaseExchanged(input.exchange, input.queryId, [{ shard: o.shard, key: x.key }]);
            return;
          }
          try {
            accept(leaf.name, asked[i]!.li, o);
          } catch (e) {
            fail(e);
          }
        });
        for (const [i, outcome] of got.entries()) perLeaf[asked[i]!.li]!.push({ leaf: input.leaves[asked[i]!.li]!.name, outcome });
      }),
    );
    for (const list of perLeaf) list.sort((x, y) => x.outcome.shard - y.outcome.shard);
    const outcomes = perLeaf.flat();
    if (failure !== undefined) {
      for (const [li, k] of kept.entries()) if (k) releaseKept(input.invoker, input.queryId, k, input.leaves[li]!.name, input.now);
      releaseExchanged(input.exchange, input.queryId, exchangedBy(outcomes));
      throw failure;
    }
    const leaves = input.leaves.map((leaf, li): LeafAnswer => {
      const parts = [...answers[li]!.entries()].sort((a, b) => a[0] - b[0]).map(([, a]) => a);
      const answer: LeafAnswer = { name: leaf.name, format: leafFormat(leaf), ...joinParts(parts) };
      if (reference[li]) answer.columns = reference[li];
      const k = kept[li];
      if (k) {
        answer.kept = k;
        answer.rows += k.rows;
      }
      return answer;
    });
    return { leaves, outcomes, missing: missingOfLeaves(outcomes, input.leaves.length > 1), skipped: skippedEverywhere(input.leaves) };
  } finally {
    fan.close();
  }

  function accept(leaf: string, li: number, outcome: ShardOutcome): void {
    let answer: TsvAnswer;
    try {
      // A kept answer is the header alone, as TabSeparatedWithNamesAndTypes without rows.
      // So is an exchanged one: its rows are in the object.
      const headerOnly = outcome.response!.kept !== undefined || outcome.response!.exchanged !== undefined;
      answer = splitTsvAnswer(rawBytes(outcome.response!), headerOnly ? 'TabSeparated' : leafFormat(input.leaves[li]!));
    } catch (e) {
      throw new ScatterError('SHARD_ERROR', `shard ${outcome.shard}'s answer to ${leaf} is unreadable: ${(e as Error).message}`);
    }
    const ref = reference[li];
    const inexact = leafFormat(input.leaves[li]!) === 'TabSeparated' ? inexactInTsv(answer.columns) : undefined;
    if (inexact) {
      // Never answered with values whose type changed on the way: the runner asks again for states (state-carrier.ts).
      throw new InexactStage(
        leaf,
        answer.columns,
        answer.columns.filter((c) => inexactInTsv([c])).map((c) => c.name),
      );
    }
    if (!ref) reference[li] = answer.columns;
    else if (!sameColumns(ref, answer.columns)) {
      // Tables that differ between shards (a migration half done): ClickHouse's Distributed table fails too.
      throw new ScatterError(
        'SHARD_ERROR',
        `the shards disagree on ${leaf}'s columns: shard ${outcome.shard} answered (${describeColumns(answer.columns)}), ` +
          `another shard (${describeColumns(ref)}); the local tables differ between shards`,
      );
    }
    const k = outcome.response!.kept;
    if (k) {
      // The rows stayed in the shard's engine: they count towards the final stage's input rows,
      // and no byte of them travels.
      input.budget.add(leaf, outcome.shard, k.rows, 0, 'kept');
      kept[li] = { shard: outcome.shard, replica: outcome.response!.replica, session: k.session, rows: k.rows };
      return;
    }
    const object = outcome.response!.exchanged;
    if (object) {
      // The rows wait in the exchange for the final stage's function: only the reference travels on.
      if (object.shard !== outcome.shard) throw new ScatterError('SHARD_ERROR', `shard ${outcome.shard} answered with another shard's exchange object`);
      input.budget.add(leaf, outcome.shard, object.rows, object.bytes, 'exchange');
      answers[li]!.set(outcome.shard, { shard: outcome.shard, body: Buffer.alloc(0), rows: object.rows, ref: object });
      return;
    }
    input.budget.add(leaf, outcome.shard, answer.rows, answer.body.length, 'inline');
    answers[li]!.set(outcome.shard, { shard: outcome.shard, body: answer.body, rows: answer.rows });
  }
}

/**
 * What each shard is asked for: its answer's format, and for RowBinary the DESCRIBE header before it
 * (one row: never large enough for the exchange).
 */
function askFor(leaf: PlannedLeaf, inlineBytes: number | undefined): Pick<ShardRequest, 'format' | 'describe' | 'exchange'> {
  if (leafFormat(leaf) === 'RowBinary') return { format: 'RowBinary', describe: true };
  return { format: STAGE_ONE_FORMAT, ...(inlineBytes !== undefined ? { exchange: { inlineBytes } } : {}) };
}

/** A leaf's parts, in shard order, as one body (what the final stage's table is filled with). */
export function joinParts(parts: LeafPart[]): Pick<LeafAnswer, 'body' | 'objects' | 'parts' | 'rows'> {
  const sorted = [...parts].sort((a, b) => a.shard - b.shard);
  return {
    parts: sorted,
    body: Buffer.concat(sorted.map((p) => p.body)),
    objects: sorted.flatMap((p) => (p.ref ? [p.ref] : [])),
    rows: sorted.reduce((n, p) => n + p.rows, 0),
  };
}

/** The exchange objects stage one's answers name, with their writers: deleted when the query ends. */
export function exchangedBy(outcomes: readonly LeafOutcome[]): { shard: number; key: string }[] {
  return outcomes.flatMap(({ outcome: o }) => (o.response?.exchanged ? [{ shard: o.shard, key: o.response.exchanged.key }] : []));
}

/** The missing shards of every leaf, once per shard (the first leaf's reason), leaf named when there are several. */
function missingOfLeaves(outcomes: readonly LeafOutcome[], nameLeaf: boolean): MissingShard[] {
  const seen = new Map<number, MissingShard>();
  for (const { leaf, outcome: o } of outcomes) {
    if (o.status === 'ok' || seen.has(o.shard)) continue;
    // As the fast path's missing shards (missingOf): without the replica and the rewritten SQL the engine quotes.
    const message = o.message ? clientShardMessage(o.message) : o.status;
    seen.set(o.shard, { shard: o.shard, reason: o.status, message: nameLeaf ? `${leaf}: ${message}` : message });
  }
  return [...seen.values()].sort((a, b) => a.shard - b.shard);
}

function skippedEverywhere(leaves: readonly PlannedLeaf[]): ShardPlan[] {
  const first = leaves[0];
  if (!first) return [];
  return first.plan.shards.filter((s) => s.skipped && leaves.every((l) => l.plan.shards[s.shard]?.skipped));
}
