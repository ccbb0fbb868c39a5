// One shard's part of a query: the primary attempt, at most one hedge (after the shard's p95,
// within the hedge budget, only to another replica), and retries on other replicas after a
// failure while time is left. The first success wins and every other attempt is aborted.
// Resolves (never rejects) with a ShardOutcome saying what happened, so one bad shard can never
// take the whole gather down.
import { SERVER_DIED, type ShardCallRequest, type ShardFailure, type ShardRequest, type ShardSuccess, type ShardResponse } from '../protocol/shard-wire.js';
import type { HedgeSettings, MissingReason } from '../protocol/shard-call.js';
import { InvokeError, type ShardInvoker } from './invoker.js';
import { setMaxListeners } from 'node:events';
import type { HedgeState, TokenBucket } from './hedge.js';
import type { Limiter, LimiterTask } from './fanout.js';
import { isQueryFault } from '../clickhouse/error-codes.js';
import { cancelLoser, nextAttemptId } from './shard-cancel.js';
import { DeadlineExceeded } from './deadline.js';

export type { HedgeSettings, MissingReason };

export interface AttemptRecord {
  replica: number;
  kind: ShardRequest['attempt'];
  elapsedMs: number;
  /**
   * 'timeout': still running when the deadline fell; 'aborted': cancelled because another attempt
   * of the same shard answered first (the loser of a hedge) or the query was abandoned.
   */
  status: 'ok' | MissingReason | 'aborted';
  message?: string;
  /** When the attempt was invoked and when it answered, failed or was cut off (the caller's now()). */
  startedAt: number;
  endedAt: number;
}

export interface ShardOutcome {
  shard: number;
  status: 'ok' | MissingReason;
  /** The replica that answered (or the last one tried). */
  replica: number;
  elapsedMs: number;
  hedged: boolean;
  retried: boolean;
  response?: ShardSuccess;
  message?: string;
  /** ClickHouse's error code when the shard's ClickHouse rejected the query. */
  chCode?: number;
  /** The shard's own error code, when it gave one (e.g. TOO_LARGE: its partial exceeds the response limit). */
  code?: string;
  attempts: AttemptRecord[];
  /** When the shard was first asked and when its outcome was settled (the caller's now()). */
  startedAt?: number;
  endedAt?: number;
}

export interface CallShardInput {
  shard: number;
  replicaCount: number;
  request(replica: number, attempt: ShardRequest['attempt']): ShardCallRequest;
  invoker: ShardInvoker;
  limiter: Limiter;
  deadlineAt: number;
  /** Fires at the deadline (or when the whole query is abandoned). */
  signal: AbortSignal;
  now(): number;
  hedge: HedgeSettings;
  state: HedgeState;
  /** The replica a cursor's earlier page read: asked first while it is healthy (pinned paging). */
  pinned?: number | undefined;
}

/** The error names Lambda gives a request payload over its limit (413): the documented one and the one it sends. */
const REQUEST_TOO_LARGE = new Set(['RequestTooLargeException', 'RequestEntityTooLargeException']);

/**
 * How an invocation failure is reported. Documented mapping (also in examples/README.md):
 * 429 -> throttled; crashed runtime (Unhandled, errorType Runtime.*) or unreachable/missing
 * function -> unavailable; other Unhandled, malformed payload, ClickHouse error -> error;
 * deadline -> timeout.
 */
export function classifyFailure(e: unknown): { status: MissingReason | 'aborted'; message: string; code?: string } {
  if (e instanceof InvokeError) {
    switch (e.kind) {
      case 'throttled':
        return { status: 'throttled', message: e.message };
      case 'unhandled':
        // Lambda itself refused a result over its 6 MB limit: the same answer as the shard's own TOO_LARGE.
        if (e.errorType === 'Function.ResponseSizeTooLarge') return { status: 'error', message: e.message, code: 'TOO_LARGE' };
        return { status: e.errorType?.startsWith('Runtime.') ? 'unavailable' : 'error', message: e.message };
      case 'malformed':
        return { status: 'error', message: e.message };
      case 'unavailable':
        // Lambda refused the request itself (over its 6 MB Invoke limit): every replica would.
        if (e.errorType && REQUEST_TOO_LARGE.has(e.errorType)) return { status: 'error', message: e.message, code: 'TOO_LARGE' };
        return { status: 'unavailable', message: e.message };
      case 'aborted':
        return { status: 'aborted', message: e.message };
    }
  }
  const name = (e as { name?: string })?.name;
  if (name === 'AbortError' || name === 'DeadlineExceeded') return { status: 'aborted', message: String((e as Error).message) };
  return { status: 'error', message: e instanceof Error ? e.message : String(e) };
}

function fromShardFailure(r: Exclude<ShardResponse, ShardSuccess>): { status: MissingReason; message: string; chCode?: number; code?: string } {
  const k = r.error.kind;
  const status: MissingReason = k === 'cancelled' || k === 'timeout' ? 'timeout' : k === 'unavailable' ? 'unavailable' : 'error';
  return { status, message: r.error.message, chCode: r.error.chCode, ...(r.error.code ? { code: r.error.code } : {}) };
}

/**
 * A batch item's failure as its shard's outcome, and whether the item is worth asking again on its
 * own (what a lone request's failure would have led to: a retry elsewhere), or would fail the same
 * anywhere (the query's fault, a server that died on it, a bound of the function).
 */
export function itemFailure(r: ShardFailure): { status: MissingReason; message: string; chCode?: number; code?: string; askAlone: boolean } {
  const f = fromShardFailure(r);
  const askAlone = f.code !== SERVER_DIED && f.code !== 'TRANSFER_LIMIT' && !isQueryFault(f.chCode, f.message);
  return { ...f, askAlone };
}

/**
 * Per query signal (one per gather): how many shards it has asked, and the shard calls still
 * running, which its ONE abort listener finishes when the deadline falls (or the query is
 * abandoned). One listener per query, not one per shard: a wide fan-out added and removed 64
 * listeners on the same signal per query. Weak, so a finished query's entry goes with its signal.
 */
interface QueryScope {
  fanout: number;
  live: Set<ShardCall>;
}
const scopes = new WeakMap<AbortSignal, QueryScope>();

function scopeOf(signal: AbortSignal): QueryScope {
  let scope = scopes.get(signal);
  if (!scope) {
    const s: QueryScope = { fanout: 0, live: new Set() };
    // Attempts without a controller of their own listen on this signal too (see ShardCall.launch).
    setMaxListeners(0, signal);
    // Registered before any attempt's listener, so every shard is finished (its attempts recorded
    // as cut off by the deadline) before the invokers see the abort.
    signal.addEventListener(
      'abort',
      () => {
        for (const call of s.live) call.onDeadline(); // finish() deletes from the set: safe while iterating
      },
      { once: true },
    );
    scopes.set(signal, s);
    scope = s;
  }
  return scope;
}

type Failure = { replica: number; status: MissingReason; message: string; chCode?: number; code?: string };

/** One attempt: a replica asked once (primary, hedge or retry). Its own methods are the limiter task. */
class Attempt implements LimiterTask {
  closed = false;
  t0 = 0;
  /** What was sent, once it was (a loser's cancel names its query, shard and replica). */
  sent: ShardCallRequest | undefined;
  constructor(
    readonly call: ShardCall,
    readonly replica: number,
    readonly kind: ShardRequest['attempt'],
    /** Its own controller when another attempt may run beside it (hedging); else the query's signal is its signal. */
    readonly ctl: AbortController | undefined,
  ) {}
  start(): void {
    const c = this.call;
    const input = c.input;
    let p: Promise<ShardResponse>;
    try {
      // Named by the coordinator, so a cancel can stop this attempt and nothing else of the query.
      this.sent = { ...input.request(this.replica, this.kind), attemptId: nextAttemptId() };
      const signal = this.ctl ? this.ctl.signal : input.signal;
      const sent = this.sent;
      if (sent.type !== 'batch') p = input.invoker.invoke(input.shard, sent, signal);
      else if (input.invoker.invokeBatch) p = input.invoker.invokeBatch(input.shard, sent, signal);
      else throw new InvokeError('unavailable', 'this invoker cannot send a batch');
    } catch (e) {
      p = Promise.reject(e);
    }
    p.then(
      (response) => {
        input.limiter.release();
        c.settle(this, response, undefined);
      },
      (e: unknown) => {
        input.limiter.release();
        c.settle(this, undefined, e);
      },
    );
  }
  abandon(reason: unknown): void {
    this.call.settle(this, undefined, reason);
  }
}

/**
 * The state of one shard's call. A class rather than a nest of closures: a 64-shard query made
 * six closures, a Set and a Map per shard, and the runtime's own CPU per shard call was a third of
 * an invocation's (docs/benchmarks.md#2-fan-out-overhead-fanout).
 */
class ShardCall {
  readonly started: number;
  readonly bucket: TokenBucket;
  /** Replicas asked so far, in order. */
  readonly tried: number[] = [];
  /** Attempts running, in launch order; closed once its record is written (at the latest by finish()). */
  readonly inflight: Attempt[] = [];
  readonly attempts: AttemptRecord[] = [];
  hedged = false;
  retried = false;
  done = false;
  primary = 0;
  /** Whether attempts get their own controller: only when a hedge may run beside another attempt. */
  ownControllers = false;
  lastFailure: Failure | undefined;
  hedgeTimer: NodeJS.Timeout | undefined;
  resolve!: (o: ShardOutcome) => void;

  constructor(
    readonly input: CallShardInput,
    readonly scope: QueryScope,
  ) {
    this.started = input.now();
    this.bucket = input.state.bucket(input.hedge.maxExtraPercent);
  }

  finish(outcome: Omit<ShardOutcome, 'shard' | 'hedged' | 'retried' | 'attempts' | 'elapsedMs'> & { elapsedMs?: number }): void {
    if (this.done) return;
    this.done = true;
    if (this.hedgeTimer) clearTimeout(this.hedgeTimer);
    this.scope.live.delete(this);
    const end = this.input.now();
    // Attempts still running end here: cut off by the deadline, or the loser of a hedge, cancelled.
    // An attempt on the query's own signal is only still running when that signal fired: nothing to abort.
    for (const attempt of this.inflight) {
      this.record(attempt, outcome.status === 'timeout' ? 'timeout' : 'aborted', end);
      attempt.ctl?.abort(new Error('superseded'));
      // The loser of a hedge: aborting our Invoke call leaves its shard function and ClickHouse
      // query running, so the replica is told to stop them (shard-cancel.ts).
      if (outcome.status === 'ok' && attempt.sent) cancelLoser(this.input.invoker, attempt.sent, this.input.now);
    }
    this.inflight.length = 0;
    const { shard } = this.input;
    this.resolve({
      shard,
      hedged: this.hedged,
      retried: this.retried,
      attempts: this.attempts,
      elapsedMs: outcome.elapsedMs ?? end - this.started,
      startedAt: this.started,
      endedAt: end,
      ...outcome,
    });
  }

  untried(): number | undefined {
    const n = this.input.replicaCount;
    for (let k = 1; k <= n; k++) {
      const r = (this.primary + k) % n;
      if (!this.tried.includes(r)) return r;
    }
    return undefined;
  }

  /** The query's signal fired before its deadline for a reason of its own (a stop), not the deadline or a merge cutoff. */
  stoppedEarly(): boolean {
    const { signal, now, deadlineAt } = this.input;
    const reason: unknown = signal.reason;
    return signal.aborted && reason instanceof Error && !(reason instanceof DeadlineExceeded) && reason.name !== 'TimeoutError' && now() < deadlineAt;
  }

  /** The query's signal fired: the deadline fell (timeout), or the query stopped before it (cancelled: another shard's error, the client gone). */
  onDeadline(): void {
    const { now, shard, signal } = this.input;
    const lastFailure = this.lastFailure;
    const earlier = lastFailure ? `; earlier failure: ${lastFailure.message}` : '';
    const replica = this.inflight[0]?.replica ?? lastFailure?.replica ?? this.primary;
    if (this.stoppedEarly()) {
      const why = (signal.reason as Error).message;
      this.finish({ status: 'cancelled', replica, message: `shard ${shard} cancelled after ${Math.round(now() - this.started)} ms: ${why}${earlier}` });
      return;
    }
    this.finish({
      status: 'timeout',
      replica,
      message: `no answer from shard ${shard} before the deadline (${Math.round(now() - this.started)} ms)${earlier}`,
    });
  }

  record(attempt: Attempt, status: AttemptRecord['status'], end: number, message?: string): void {
    if (attempt.closed) return;
    attempt.closed = true;
    const elapsedMs = end - attempt.t0;
    this.attempts.push(
      message
        ? { replica: attempt.replica, kind: attempt.kind, elapsedMs, status, message, startedAt: attempt.t0, endedAt: end }
        : { replica: attempt.replica, kind: attempt.kind, elapsedMs, status, startedAt: attempt.t0, endedAt: end },
    );
  }

  launch(replica: number, kind: ShardRequest['attempt']): void {
    this.tried.push(replica);
    const attempt = new Attempt(this, replica, kind, this.ownControllers ? new AbortController() : undefined);
    attempt.t0 = this.input.now();
    this.inflight.push(attempt);
    // No listener of its own on the query's signal: the query scope's listener (registered before
    // the first launch, so it runs first) finishes the shard, and finish() aborts every attempt
    // with a controller of its own; the others were given the query's signal itself.
    this.input.limiter.submit(attempt, attempt.ctl ? attempt.ctl.signal : this.input.signal);
  }

  settle(attempt: Attempt, response: ShardResponse | undefined, err: unknown): void {
    const { replica } = attempt;
    const i = this.inflight.indexOf(attempt);
    if (i >= 0) this.inflight.splice(i, 1);
    const { input } = this;
    const { now, state, shard, signal } = input;
    const end = now();
    const elapsedMs = end - attempt.t0;
    if (this.done) {
      this.record(attempt, 'aborted', end); // no-op when finish() already wrote it
      return;
    }
    if (response?.ok) {
      state.replicaResult(shard, replica, true);
      this.record(attempt, 'ok', end);
      state.shard(shard).record(elapsedMs);
      state.all.record(elapsedMs);
      this.finish({ status: 'ok', replica, response });
      return;
    }
    const classified: { status: MissingReason | 'aborted'; message: string; chCode?: number; code?: string } = response
      ? fromShardFailure(response)
      : classifyFailure(err);
    if (classified.status === 'aborted') {
      this.record(attempt, signal.aborted && !this.stoppedEarly() ? 'timeout' : 'aborted', end, classified.message);
      if (signal.aborted) this.onDeadline();
      return;
    }
    this.record(attempt, classified.status, end, classified.message);
    // A replica that cannot serve (down, crashed, erroring) is avoided as primary for a while;
    // a throttle is about the function, and a query error about the query, not the replica.
    // An oversized partial is about the query too: every replica holds the same rows.
    // ...and so is an answer over a bound of the function (its memory): the same on every replica.
    const tooLarge = classified.code === 'TOO_LARGE' || classified.code === 'TRANSFER_LIMIT';
    if (classified.status === 'unavailable' || (classified.status === 'error' && !tooLarge && !isQueryFault(classified.chCode, classified.message)))
      state.replicaResult(shard, replica, false);
    const failure: Failure = {
      replica,
      status: classified.status,
      message: `replica ${replica}: ${classified.message}`,
      chCode: classified.chCode,
      code: classified.code,
    };
    this.lastFailure = failure;
    if (this.inflight.length > 0) return; // a hedge is still running: it may yet answer
    const next = this.untried();
    // Another replica would say the same; or the replica's ClickHouse died holding the query, which
    // would take the next one down too (docs/operations.md#a-server-that-dies-on-a-query).
    const deterministic = tooLarge || classified.code === SERVER_DIED || isQueryFault(classified.chCode, classified.message);
    if (next !== undefined && !deterministic && input.deadlineAt - now() > 0 && !signal.aborted) {
      this.retried = true;
      this.launch(next, 'retry');
      return;
    }
    this.finish({
      status: failure.status,
      replica,
      message: describeFailures(this.attempts),
      ...(failure.chCode !== undefined ? { chCode: failure.chCode } : {}),
      ...(failure.code ? { code: failure.code } : {}),
    });
  }

  hedge(): void {
    this.hedgeTimer = undefined;
    if (this.done || this.inflight.length === 0) return; // answered, or between a failure and its retry
    const other = this.untried();
    if (other === undefined) return;
    if (!this.bucket.take()) return; // over the hedge budget: wait it out
    this.hedged = true;
    this.launch(other, 'hedge');
  }
}

function fireHedge(call: ShardCall): void {
  call.hedge();
}

export function callShard(input: CallShardInput): Promise<ShardOutcome> {
  const { shard, replicaCount, signal, state } = input;
  const scope = scopeOf(signal);
  const call = new ShardCall(input, scope);
  // The query's fan-out, counted on its deadline signal (one per gather): a wide query may bank more.
  call.bucket.fitFanout(++scope.fanout);
  call.bucket.credit();

  return new Promise<ShardOutcome>((resolve) => {
    call.resolve = resolve;
    // Past the deadline (a request that waited longer than its budget): nothing is sent.
    if (signal.aborted || input.deadlineAt <= call.started) {
      call.done = true;
      resolve({
        shard,
        status: 'timeout',
        replica: 0,
        elapsedMs: 0,
        hedged: false,
        retried: false,
        attempts: call.attempts,
        startedAt: call.started,
        endedAt: call.started,
        message: 'deadline passed before the shard was asked',
      });
      return;
    }
    scope.live.add(call);
    const { pinned } = input;
    call.primary = pinned !== undefined && pinned < replicaCount && state.healthy(shard, pinned) ? pinned : state.nextReplica(shard, replicaCount);
    // A hedge is possible only with another replica and a delay that ends before the deadline;
    // then (and only then) each attempt needs a controller of its own, so a loser can be cancelled
    // alone. Otherwise at most one attempt runs at a time, and it only ever stops with the query.
    let delay = -1;
    if (input.hedge.enabled && replicaCount > 1) {
      delay = state.hedgeDelayMs(shard, input.hedge.afterQuantile);
      if (call.started + delay < input.deadlineAt) call.ownControllers = true;
      else delay = -1;
    }
    call.launch(call.primary, 'primary');
    if (delay >= 0 && !call.done) {
      call.hedgeTimer = setTimeout(fireHedge, delay, call);
      call.hedgeTimer.unref?.();
    }
  });
}

function describeFailures(attempts: AttemptRecord[]): string {
  return attempts
    .filter((a) => a.status !== 'ok' && a.status !== 'aborted')
    .map((a) => `replica ${a.replica} (${a.kind}): ${a.message ?? a.status}`)
    .join('; ');
}
