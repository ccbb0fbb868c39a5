// One shard's part of a query: the primary attempt, at most one hedge (after the shard's p95,
// within the hedge budget, only to another replica), and retries on other replicas after a
// failure while time is left. The first success wins and every other attempt is aborted.
// Resolves (never rejects) with a ShardOutcome saying what happened, so one bad shard can never
// take the whole gather down.
import type { ShardRequest, ShardSuccess, ShardResponse } from '../protocol/shard-wire.js';
import { InvokeError, type ShardInvoker } from './invoker.js';
import type { HedgeState } from './hedge.js';
import type { Limiter } from './fanout.js';
import { isQueryFault } from '../clickhouse/error-codes.js';

/** Why a shard is missing from an answer (`shards.missing[].reason`, docs/api.md#post-query). */
export type MissingReason = 'timeout' | 'error' | 'unavailable' | 'throttled';

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

export interface HedgeSettings {
  enabled: boolean;
  afterQuantile: number;
  maxExtraPercent: number;
}

export interface CallShardInput {
  shard: number;
  replicaCount: number;
  request(replica: number, attempt: ShardRequest['attempt']): ShardRequest;
  invoker: ShardInvoker;
  limiter: Limiter;
  deadlineAt: number;
  /** Fires at the deadline (or when the whole query is abandoned). */
  signal: AbortSignal;
  now(): number;
  hedge: HedgeSettings;
  state: HedgeState;
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

interface Attempt {
  replica: number;
  kind: ShardRequest['attempt'];
  t0: number;
  ctl: AbortController;
  closed: boolean;
}

/** Shards asked so far per query signal; weak, so a finished query's entry goes with its signal. */
const fanoutBySignal = new WeakMap<AbortSignal, number>();

export function callShard(input: CallShardInput): Promise<ShardOutcome> {
  const { shard, replicaCount, invoker, limiter, signal, now, state } = input;
  const started = now();
  const bucket = state.bucket(input.hedge.maxExtraPercent);
  // The query's fan-out, counted on its deadline signal (one per gather): a wide query may bank more.
  const fanout = (fanoutBySignal.get(signal) ?? 0) + 1;
  fanoutBySignal.set(signal, fanout);
  bucket.fitFanout(fanout);
  bucket.credit();

  return new Promise<ShardOutcome>((resolve) => {
    const tried = new Set<number>();
    // replica -> its running attempt; `closed` once its record is written (at the latest by finish()).
    const inflight = new Map<number, Attempt>();
    const attempts: AttemptRecord[] = [];
    let hedged = false;
    let retried = false;
    let done = false;
    let lastFailure: { replica: number; status: MissingReason; message: string; chCode?: number; code?: string } | undefined;
    let hedgeTimer: NodeJS.Timeout | undefined;

    const finish = (outcome: Omit<ShardOutcome, 'shard' | 'hedged' | 'retried' | 'attempts' | 'elapsedMs'> & { elapsedMs?: number }) => {
      if (done) return;
      done = true;
      if (hedgeTimer) clearTimeout(hedgeTimer);
      signal.removeEventListener('abort', onDeadline);
      const end = now();
      // Attempts still running end here: cut off by the deadline, or the loser of a hedge, cancelled.
      for (const attempt of inflight.values()) {
        record(attempt, outcome.status === 'timeout' ? 'timeout' : 'aborted', end);
        attempt.ctl.abort(new Error('superseded'));
      }
      inflight.clear();
      resolve({ shard, hedged, retried, attempts, elapsedMs: outcome.elapsedMs ?? end - started, startedAt: started, endedAt: end, ...outcome });
    };

    const untried = (): number | undefined => {
      for (let k = 1; k <= replicaCount; k++) {
        const r = (primary + k) % replicaCount;
        if (!tried.has(r)) return r;
      }
      return undefined;
    };

    const onDeadline = () => {
      const waiting = [...inflight.keys()];
      finish({
        status: 'timeout',
        replica: waiting[0] ?? lastFailure?.replica ?? primary,
        message:
          `no answer from shard ${shard} before the deadline (${Math.round(now() - started)} ms)` +
          (lastFailure ? `; earlier failure: ${lastFailure.message}` : ''),
      });
    };

    const record = (attempt: Attempt, status: AttemptRecord['status'], end: number, message?: string) => {
      if (attempt.closed) return;
      attempt.closed = true;
      attempts.push({
        replica: attempt.replica,
        kind: attempt.kind,
        elapsedMs: end - attempt.t0,
        status,
        ...(message ? { message } : {}),
        startedAt: attempt.t0,
        endedAt: end,
      });
    };

    const launch = (replica: number, kind: ShardRequest['attempt']) => {
      tried.add(replica);
      const attempt: Attempt = { replica, kind, t0: now(), ctl: new AbortController(), closed: false };
      inflight.set(replica, attempt);
      // No listener of its own on the query's signal: onDeadline (registered before the first
      // launch, so it runs first) finishes the shard, and finish() aborts every attempt in flight.
      limiter
        .run(() => invoker.invoke(shard, input.request(replica, kind), attempt.ctl.signal), attempt.ctl.signal)
        .then(
          (response) => settle(attempt, response, undefined),
          (e) => settle(attempt, undefined, e),
        );
    };

    const settle = (attempt: Attempt, response: ShardResponse | undefined, err: unknown) => {
      const { replica } = attempt;
      if (inflight.get(replica) === attempt) inflight.delete(replica);
      const end = now();
      const elapsedMs = end - attempt.t0;
      if (done) {
        record(attempt, 'aborted', end); // no-op when finish() already wrote it
        return;
      }
      if (response?.ok) {
        state.replicaResult(shard, replica, true);
        record(attempt, 'ok', end);
        state.shard(shard).record(elapsedMs);
        state.all.record(elapsedMs);
        finish({ status: 'ok', replica, response });
        return;
      }
      const classified: { status: MissingReason | 'aborted'; message: string; chCode?: number; code?: string } = response
        ? fromShardFailure(response)
        : classifyFailure(err);
      if (classified.status === 'aborted') {
        record(attempt, signal.aborted ? 'timeout' : 'aborted', end, classified.message);
        if (signal.aborted) onDeadline();
        return;
      }
      record(attempt, classified.status, end, classified.message);
      // A replica that cannot serve (down, crashed, erroring) is avoided as primary for a while;
      // a throttle is about the function, and a query error about the query, not the replica.
      // An oversized partial is about the query too: every replica holds the same rows.
      const tooLarge = classified.code === 'TOO_LARGE';
      if (classified.status === 'unavailable' || (classified.status === 'error' && !tooLarge && !isQueryFault(classified.chCode, classified.message)))
        state.replicaResult(shard, replica, false);
      const failure = {
        replica,
        status: classified.status,
        message: `replica ${replica}: ${classified.message}`,
        chCode: classified.chCode,
        code: classified.code,
      };
      lastFailure = failure;
      if (inflight.size > 0) return; // a hedge is still running: it may yet answer
      const next = untried();
      const deterministic = tooLarge || isQueryFault(classified.chCode, classified.message); // another replica would say the same
      if (next !== undefined && !deterministic && input.deadlineAt - now() > 0 && !signal.aborted) {
        retried = true;
        launch(next, 'retry');
        return;
      }
      finish({
        status: failure.status,
        replica,
        message: describeFailures(attempts),
        ...(failure.chCode !== undefined ? { chCode: failure.chCode } : {}),
        ...(failure.code ? { code: failure.code } : {}),
      });
    };

    if (signal.aborted) {
      const primaryIdx = 0;
      resolve({
        shard,
        status: 'timeout',
        replica: primaryIdx,
        elapsedMs: 0,
        hedged,
        retried,
        attempts,
        startedAt: started,
        endedAt: started,
        message: 'deadline passed before the shard was asked',
      });
      return;
    }
    signal.addEventListener('abort', onDeadline, { once: true });
    const primary = state.nextReplica(shard, replicaCount);
    launch(primary, 'primary');

    if (input.hedge.enabled && replicaCount > 1) {
      const delay = state.hedgeDelayMs(shard, input.hedge.afterQuantile);
      if (started + delay < input.deadlineAt) {
        hedgeTimer = setTimeout(() => {
          if (done || inflight.size === 0) return; // answered, or between a failure and its retry
          const other = untried();
          if (other === undefined) return;
          if (!bucket.take()) return; // over the hedge budget: wait it out
          hedged = true;
          launch(other, 'hedge');
        }, delay);
        hedgeTimer.unref?.();
      }
    }
  });
}

function describeFailures(attempts: AttemptRecord[]): string {
  return attempts
    .filter((a) => a.status !== 'ok' && a.status !== 'aborted')
    .map((a) => `replica ${a.replica} (${a.kind}): ${a.message ?? a.status}`)
    .join('; ');
}
