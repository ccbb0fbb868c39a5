// The final stage of the general path: the -Merge of the states and everything after it, run by
// the ClickHouse engine behind ONE shard function, as the Distributed engine's initiator runs it.
// The request ships each leaf's rows as a temporary table (the header's types, aggregate states
// included) and the final SQL, under the query's one deadline.
//
// Which shard: a deterministic choice over the shards that answered stage one (so their engine,
// the version that wrote the states, merges them): the query id's hash picks the first, the others
// follow in shard order. Within a shard, callShard retries the other replicas after an
// infrastructure failure; after the whole shard fails that way (unavailable, throttled, crashed),
// the next shard is tried while time is left. A ClickHouse user error is the query's fault and
// would be the same everywhere: it is answered at once (400), never retried.
import type { ExternalTable, SettingValue } from '../../clickhouse/port.js';
import type { Topology } from '../../config/schema.js';
import { ScatterError } from '../../errors.js';
import type { ShardOutcome } from '../call-shard.js';
import type { Limiter } from '../fanout.js';
import { createHedgeState, type HedgeState } from '../hedge.js';
import type { ShardInvoker } from '../invoker.js';
import { openFanOut, type FanOut } from '../shard-fanout.js';
import { isQueryFailure, queryFailureError, clientShardMessage } from '../query-errors.js';
import { limitError } from './transfer-limits.js';
import { rawBytes, type RawShardRequest, type StageTable } from './wire.js';

/** The final stage could not read a stage-one answer from the exchange (its message names the object). */
export class ExchangeLost extends Error {
  constructor(readonly outcome: ShardOutcome) {
    super(outcome.message ?? 'an exchange object is unreadable');
    this.name = 'ExchangeLost';
  }
}

export interface FinalStageInput {
  tables: StageTable[];
  sql: string;
  /** The request's external data the final SQL may read (ClickHouse's initiator holds it too). */
  external?: ExternalTable[];
  format: string;
  settings: Record<string, SettingValue>;
  /** Shards to try, in order (initiatorOrder). */
  candidates: number[];
  topo: Topology;
  invoker: ShardInvoker;
  queryId: string;
  deadlineAt: number;
  now(): number;
  limiter: Limiter;
  /** The query's hedge state: the final stage keeps its own replica memory beside it. */
  state: HedgeState;
  signal?: AbortSignal;
}

export interface FinalStageResult {
  bytes: Buffer;
  shard: number;
  replica: number;
  /** Every shard tried, in order (the last one answered). */
  attempts: ShardOutcome[];
  rowsRead: number;
  bytesRead: number;
}

/** 32-bit FNV-1a of the query id: spreads final stages over the shards, the same id always the same shard. */
function hashId(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** The order in which shards are asked to run the final stage: hash(queryId) picks the first of `answered`. */
export function initiatorOrder(queryId: string, answered: readonly number[]): number[] {
  const shards = [...new Set(answered)].sort((a, b) => a - b);
  if (shards.length === 0) return [];
  const first = hashId(queryId) % shards.length;
  return [...shards.slice(first), ...shards.slice(0, first)];
}

// The final stage's latencies and replica failures are kept apart from stage one's: a final stage
// (a merge over shipped tables) is not a sample of the shard's scan latency, and must not move its
// hedge trigger.
const finalStates = new WeakMap<HedgeState, HedgeState>();
function finalStateFor(state: HedgeState): HedgeState {
  let s = finalStates.get(state);
  if (!s) {
    s = createHedgeState();
    finalStates.set(state, s);
  }
  return s;
}

/** Where stage one kept the initiator's own rows: that replica's session (kept-stage.ts). */
export interface FinalStagePin {
  shard: number;
  replica: number;
  session: string;
}

/** The final stage asks one shard at a time, without hedging, with its own replica memory. */
function openFinalFanOut(input: FinalStageInput): FanOut {
  return openFanOut({ ...input, hedge: { enabled: false, afterQuantile: 1, maxExtraPercent: 0 }, state: finalStateFor(input.state) });
}

/** One shard's attempt at the final stage: its result, or the outcome to fail over from. A query failure throws. */
async function attemptOn(
  input: FinalStageInput,
  fan: FanOut,
  shard: number,
  pin: FinalStagePin | undefined,
): Promise<{ result: FinalStageResult } | { outcome: ShardOutcome }> {
  const cfg = input.topo.shards[shard];
  if (!cfg) throw new Error(`final stage: no shard ${shard} in the topology`);
  let bytes: Buffer | undefined;
  const how = {
    // A kept stage lives on one replica: no other can stand in for it.
    replicaCount: pin ? 1 : cfg.replicas.length,
    request: (replica: number, attempt: RawShardRequest['attempt']): RawShardRequest => ({
      type: 'query',
      queryId: `${input.queryId}-final`,
      shard,
      replica: pin ? pin.replica : replica,
      sql: input.sql,
      deadline: input.deadlineAt,
      settings: input.settings,
      external: input.external ?? [],
      attempt,
      format: input.format,
      tables: input.tables,
      answer: true,
      ...(pin ? { session: pin.session } : {}),
    }),
  };
  const outcome = await fan.ask(shard, how, (o) => {
    if (o.status !== 'ok' || !o.response) return;
    try {
      bytes = rawBytes(o.response);
    } catch (e) {
      throw new ScatterError('SHARD_ERROR', `the final stage on shard ${shard}: ${(e as Error).message}`);
    }
  });
  if (pin) outcome.replica = pin.replica;
  if (bytes && outcome.response) {
    return {
      result: {
        bytes,
        shard,
        replica: outcome.replica,
        attempts: [outcome],
        rowsRead: outcome.response.statistics.rowsRead,
        bytesRead: outcome.response.statistics.bytesRead,
      },
    };
  }
  if (isQueryFailure(outcome)) {
    // The final SQL is ClickHouse's to judge; its verdict would be the same on every shard.
    const e = queryFailureError(outcome, {});
    throw new ScatterError(e.code, e.message.replace(`on shard ${shard}`, `in the final stage (shard ${shard})`), { details: e.details });
  }
  if (outcome.code === 'TOO_LARGE') throw tooLarge(outcome);
  if (outcome.code === 'TRANSFER_LIMIT') throw limitError(`the final stage on shard ${shard}: ${clientShardMessage(outcome.message ?? '')}`);
  // Another shard would read the same objects: the caller leaves the lost parts out instead.
  if (outcome.code === 'EXCHANGE_LOST') throw new ExchangeLost(outcome);
  return { outcome };
}

/**
 * The final stage on the shard that kept its own stage-one rows (`pin`): its answer, or the
 * outcome that says the kept rows are out of reach (the replica failed, the session is gone), so
 * the caller fetches them again. A query failure, an oversized answer and the deadline throw as
 * in runFinalStage.
 */
export async function runKeptFinalStage(input: FinalStageInput, pin: FinalStagePin): Promise<FinalStageResult | { lost: ShardOutcome }> {
  const fan = openFinalFanOut(input);
  try {
    const got = await attemptOn(input, fan, pin.shard, pin);
    if ('result' in got) return got.result;
    if (got.outcome.status === 'timeout' || input.now() >= input.deadlineAt) throw timedOut([got.outcome]);
    return { lost: got.outcome };
  } finally {
    fan.close();
  }
}

export async function runFinalStage(input: FinalStageInput): Promise<FinalStageResult> {
  const { now } = input;
  const attempts: ShardOutcome[] = [];
  const fan = openFinalFanOut(input);
  try {
    for (const shard of input.candidates) {
      if (fan.signal.aborted) break;
      const got = await attemptOn(input, fan, shard, undefined);
      if ('result' in got) return { ...got.result, attempts: [...attempts, ...got.result.attempts] };
      attempts.push(got.outcome);
      if (got.outcome.status === 'timeout') break;
    }
  } finally {
    fan.close();
  }
  const last = attempts[attempts.length - 1];
  // Every shard tried said the same ClickHouse error: the final SQL's fault after all (a code not
  // known as a user error, e.g. an invalid WITH FILL), answered as such rather than as a shard failure.
  const codes = new Set(attempts.map((a) => (a.status === 'error' ? a.chCode : undefined)));
  if (last && attempts.length > 1 && codes.size === 1 && last.chCode !== undefined) {
    const e = queryFailureError(last, { finalStage: attempts.map(summary) });
    throw new ScatterError(e.code, e.message.replace(`on shard ${last.shard}`, `in the final stage (every shard tried)`), { details: e.details });
  }
  if (!last || last.status === 'timeout' || now() >= input.deadlineAt) throw timedOut(attempts);
  throw new ScatterError(
    'SHARD_ERROR',
    `the final stage failed on every shard tried: ${attempts.map((a) => `shard ${a.shard} ${a.status}: ${clientShardMessage(a.message ?? '')}`).join('; ')}`,
    { details: { finalStage: attempts.map(summary) } },
  );
}

function timedOut(attempts: ShardOutcome[]): ScatterError {
  const last = attempts[attempts.length - 1];
  return new ScatterError(
    'TIMEOUT',
    `the final stage did not finish before the deadline${last ? ` (shard ${last.shard}: ${clientShardMessage(last.message ?? last.status)})` : ''}; ` +
      'the shards answered, but no answer is complete without the final stage',
    { details: { finalStage: attempts.map(summary) } },
  );
}

/** The final answer (or its request) over what one invocation may carry. */
export function tooLarge(o: ShardOutcome): ScatterError {
  const m = clientShardMessage(o.message ?? '');
  if (/Request(Entity)?TooLargeException/.test(o.message ?? '')) {
    return new ScatterError('TRANSFER_LIMIT', `the final stage's request to shard ${o.shard} is over Lambda's 6 MB invoke payload limit: ${m}`);
  }
  return new ScatterError(
    'TOO_LARGE',
    `the final answer from shard ${o.shard} is larger than a shard function may return (Lambda's 6 MB response limit): ${m}. Add a LIMIT or aggregate further`,
  );
}

function summary(o: ShardOutcome): { shard: number; replica: number; status: string; message?: string } {
  return { shard: o.shard, replica: o.replica, status: o.status, ...(o.message ? { message: o.message } : {}) };
}
