// One absolute deadline per query (deadline propagation). Every shard request, hedge,
// retry and GLOBAL subquery of a query carries this same instant, so no step can quietly extend
// the time the client waits. It is the earliest of:
//   - the request's timeoutMs (or the config's query.timeoutMs when the request has none),
//   - the Lambda's remaining time minus a safety margin (time to merge, finalize and answer),
//   - 29 s, one second under API Gateway HTTP API's 30 s integration limit (after which the client
//     gets a 503 we cannot shape).

import { setMaxListeners } from 'node:events';

/** The coordinator's cap: one second under API Gateway HTTP API's 30 s maximum integration timeout. */
export const API_GATEWAY_LIMIT_MS = 29_000;
/** Kept back from the Lambda's remaining time to finalize, serialize and return. */
export const DEFAULT_SAFETY_MARGIN_MS = 250;

export type DeadlineLimit = 'request' | 'config' | 'lambda' | 'apiGateway';

export interface DeadlineInput {
  now: number; // epoch ms when the request arrived
  requestTimeoutMs?: number;
  configTimeoutMs: number;
  /** context.getRemainingTimeInMillis() when running in Lambda; absent for scheduled/local callers without one. */
  lambdaRemainingMs?: number;
  safetyMarginMs?: number;
  /** false for scheduled runs, which are not behind API Gateway. */
  behindApiGateway?: boolean;
}

export interface Deadline {
  /** Absolute epoch ms. */
  readonly at: number;
  readonly budgetMs: number;
  /** Which bound set the deadline (for logs and statistics). */
  readonly limitedBy: DeadlineLimit;
}

export function computeDeadline(input: DeadlineInput): Deadline {
  const margin = input.safetyMarginMs ?? DEFAULT_SAFETY_MARGIN_MS;
  const candidates: Array<[number, DeadlineLimit]> = [];
  if (input.requestTimeoutMs !== undefined) candidates.push([input.requestTimeoutMs, 'request']);
  else candidates.push([input.configTimeoutMs, 'config']);
  if (input.lambdaRemainingMs !== undefined) candidates.push([input.lambdaRemainingMs - margin, 'lambda']);
  if (input.behindApiGateway !== false) candidates.push([API_GATEWAY_LIMIT_MS - margin, 'apiGateway']);
  let best = candidates[0]!;
  for (const c of candidates) if (c[0] < best[0]) best = c;
  const budgetMs = Math.max(0, Math.floor(best[0]));
  return { at: input.now + budgetMs, budgetMs, limitedBy: best[1] };
}

/** Milliseconds left until `at` (never negative). */
export function timeLeft(at: number, now: number): number {
  return Math.max(0, at - now);
}

/**
 * An AbortSignal that fires at the absolute deadline (or when `parent` aborts). The timer is
 * unref'd so a pending deadline never keeps a process alive; call dispose() when done early.
 */
export function deadlineSignal(at: number, now: () => number, parent?: AbortSignal): { signal: AbortSignal; dispose(): void } {
  const ctl = new AbortController();
  // Every shard attempt of a wide fan-out listens on this one signal; that is by design, not a leak.
  setMaxListeners(0, ctl.signal);
  const fire = () => ctl.abort(new DeadlineExceeded(at));
  const timer = setTimeout(fire, Math.max(0, at - now()));
  timer.unref?.();
  const onParent = () => ctl.abort(parent?.reason);
  if (parent) {
    if (parent.aborted) onParent();
    else parent.addEventListener('abort', onParent, { once: true });
  }
  return {
    signal: ctl.signal,
    dispose() {
      clearTimeout(timer);
      parent?.removeEventListener('abort', onParent);
    },
  };
}

export class DeadlineExceeded extends Error {
  constructor(readonly at: number) {
    super(`deadline ${new Date(at).toISOString()} passed`);
    this.name = 'DeadlineExceeded';
  }
}
