// The one fan-out primitive every runtime step asks its shards through (gather, the tree, TPUT
// rounds, stage one, one-shard, the final stage). It owns what each used to wire itself: the
// parent signal (the client went away), a stop of its own (a merge failure, a merge cutoff), the
// deadline signal under both, the limiter, callShard with its fields, dropping an answer's data
// once the caller has taken it, and onShard.
import type { ShardBatchItem, ShardRequest, ShardSuccess } from '../protocol/shard-wire.js';
import { type CallShardInput, callShard, itemFailure, type HedgeSettings, type ShardOutcome } from './call-shard.js';
import { deadlineSignal } from './deadline.js';
import type { Limiter } from './fanout.js';
import type { HedgeState } from './hedge.js';
import type { ShardInvoker } from './invoker.js';

export interface FanOutInput {
  invoker: ShardInvoker;
  /** Shared by every fan-out of one request, so the in-flight cap holds for all of them. */
  limiter: Limiter;
  /** The instant this fan-out stops waiting (the query's deadline, or a part of it). */
  deadlineAt: number;
  now(): number;
  hedge: HedgeSettings;
  state: HedgeState;
  /** Abandon everything (e.g. the client went away). */
  signal?: AbortSignal;
  /** Called as each shard's call settles, after its data was taken and dropped (logs, metrics). */
  onShard?(o: ShardOutcome): void;
}

/** How to ask one shard: its replica count and the request for each attempt (gather.ts shardCallFor). */
export interface ShardAsk {
  replicaCount: number;
  /** The replica to ask first while it is healthy (a cursor's pinned replica). */
  pinned?: number | undefined;
  request(replica: number, attempt: ShardRequest['attempt']): ShardRequest;
}

export interface FanOut {
  /** Fires at the deadline, on stop(), or when the parent signal fires. */
  readonly signal: AbortSignal;
  /** Fires on stop() or with the parent; its reason tells a stop from the deadline itself. */
  readonly stopped: AbortSignal;
  /** Abandon the calls still running (their shards end as at the deadline). */
  stop(reason: unknown): void;
  /**
   * Ask one shard. `take` sees the outcome with its data (rows, raw bytes) and may throw, which
   * rejects this call before onShard; afterwards the outcome keeps its statistics only.
   */
  ask(shard: number, how: ShardAsk, take?: (o: ShardOutcome) => void): Promise<ShardOutcome>;
  /**
   * Ask one shard several things (`hows` answer plain ShardRequests) in one invocation, when the
   * invoker can batch: one attempt of the shard for all of them, each item's answer its own
   * outcome, in order. An item that failed where a lone request would have been retried is asked
   * again alone. `take(i, o)` is each item's `take`.
   */
  askAll(shard: number, hows: readonly ShardAsk[], take?: (i: number, o: ShardOutcome) => void): Promise<ShardOutcome[]>;
  /** Clear the deadline timer and the parent listener. */
  close(): void;
}

export function openFanOut(input: FanOutInput): FanOut {
  const stop = new AbortController();
  const parent = input.signal;
  const onParent = () => stop.abort(parent?.reason);
  if (parent?.aborted) onParent();
  else parent?.addEventListener('abort', onParent, { once: true });
  const deadline = deadlineSignal(input.deadlineAt, input.now, stop.signal);
  return {
    signal: deadline.signal,
    stopped: stop.signal,
    stop: (reason) => stop.abort(reason),
    ask,
    async askAll(shard, hows, take) {
      const first = hows[0];
      if (!first || hows.length === 1 || !input.invoker.invokeBatch) return Promise.all(hows.map((how, i) => ask(shard, how, (o) => take?.(i, o))));
      const batch = await call(shard, {
        replicaCount: first.replicaCount,
        pinned: first.pinned,
        request(replica, attempt) {
          const items = hows.map((how) => how.request(replica, attempt));
          const base = items[0]!;
          return {
            type: 'batch',
            queryId: base.queryId,
            shard: base.shard,
            replica,
            deadline: base.deadline,
            attempt,
            requests: items.map(batchItem),
          };
        },
      });
      const answers = batch.response?.batch;
      return Promise.all(
        hows.map(async (how, i): Promise<ShardOutcome> => {
          const item = answers?.[i];
          let outcome: ShardOutcome;
          if (batch.status !== 'ok') outcome = { ...batch };
          else if (!item || answers.length !== hows.length)
            outcome = { ...batch, status: 'error', message: `shard ${shard} answered a batch of ${hows.length} with ${answers?.length ?? 'no'} answers` };
          else if (item.ok) outcome = { ...batch, response: item };
          else {
            const f = itemFailure(item);
            if (f.askAlone) return ask(shard, how, (o) => take?.(i, o));
            const { askAlone: _, ...failed } = f;
            outcome = { ...batch, ...failed };
          }
          if (outcome.status !== 'ok') delete outcome.response;
          take?.(i, outcome);
          if (outcome.response) outcome.response = withoutData(outcome.response);
          input.onShard?.(outcome);
          return outcome;
        }),
      );
    },
    close() {
      deadline.dispose();
      parent?.removeEventListener('abort', onParent);
    },
  };

  function call(shard: number, how: Pick<CallShardInput, 'replicaCount' | 'pinned' | 'request'>): Promise<ShardOutcome> {
    return callShard({
      shard,
      replicaCount: how.replicaCount,
      request: how.request,
      invoker: input.invoker,
      limiter: input.limiter,
      deadlineAt: input.deadlineAt,
      signal: deadline.signal,
      now: input.now,
      hedge: input.hedge,
      state: input.state,
      pinned: how.pinned,
    });
  }

  async function ask(shard: number, how: ShardAsk, take?: (o: ShardOutcome) => void): Promise<ShardOutcome> {
    const outcome = await call(shard, how);
    take?.(outcome);
    // The caller holds what it took: a wide fan-out must not hold every answer twice.
    if (outcome.response) outcome.response = withoutData(outcome.response);
    input.onShard?.(outcome);
    return outcome;
  }
}

/** A request as a batch item: without what its batch says for all of them. */
function batchItem(r: ShardRequest): ShardBatchItem {
  const { type: _t, queryId: _q, shard: _s, replica: _r, deadline: _d, attempt: _a, attemptId: _i, ...item } = r;
  return item;
}

/** The answer without its rows and raw bytes (kept in the outcome for its statistics). */
export function withoutData(r: ShardSuccess): ShardSuccess {
  if (r.raw === undefined) return { ...r, rows: [] };
  const { raw: _raw, ...rest } = r;
  return { ...rest, rows: [] };
}
