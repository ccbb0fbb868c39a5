// Telling a shard to stop work nobody waits for any more: the loser of a hedge (its replica's
// ClickHouse query and shard function would run on to the deadline) and the rows a keeper holds
// for a final stage that will not come. One cancel invocation of the shard function, the same in
// AWS and on the local stack; fire and forget: the answer never waits for it, and its failure
// only leaves the work to the deadline (and the session's timeout) as before.
import { randomBytes } from 'node:crypto';
import type { ShardCallRequest, ShardCancelRequest } from '../protocol/shard-wire.js';
import type { ShardInvoker } from './invoker.js';

/**
 * Attempt ids: this container's random tag and a counter (16 hex digits). Unique among the attempts
 * of one query id even when two coordinators are sent the same one (a client's own query_id), and
 * no random draw per shard call (the fan-out's hot path).
 */
const CONTAINER_TAG = randomBytes(4).toString('hex');
let attempts = 0;
export function nextAttemptId(): string {
  attempts = (attempts + 1) >>> 0;
  return CONTAINER_TAG + attempts.toString(16).padStart(8, '0');
}

/** How long a cancel invocation may take: it only KILLs and drops. */
export const CANCEL_TIMEOUT_MS = 5_000;

/** Send `payload` as a cancel to its shard, without waiting; failures are dropped. */
export function sendCancel(invoker: ShardInvoker, payload: ShardCancelRequest): void {
  if (!invoker.cancel) return;
  const signal = AbortSignal.timeout(CANCEL_TIMEOUT_MS);
  invoker.cancel(payload.shard, payload, signal).catch(() => undefined);
}

/** Stop the attempt that `sent` started: its replica KILLs the attempt's ClickHouse queries. */
export function cancelLoser(invoker: ShardInvoker, sent: ShardCallRequest, now: () => number): void {
  if (sent.attemptId === undefined) return;
  sendCancel(invoker, {
    type: 'cancel',
    queryId: sent.queryId,
    shard: sent.shard,
    replica: sent.replica,
    attemptId: sent.attemptId,
    deadline: now() + CANCEL_TIMEOUT_MS,
  });
}

/**
 * Drop the stage-one rows a shard keeps in `kept.session` as `table`, when the query ends without
 * the final stage that would read (and drop) them: an error, the deadline, a missing shard with
 * requireComplete, a final stage sent elsewhere.
 */
export function releaseKept(
  invoker: ShardInvoker,
  queryId: string,
  kept: { shard: number; replica: number; session: string },
  table: string,
  now: () => number,
): void {
  sendCancel(invoker, {
    type: 'cancel',
    queryId,
    shard: kept.shard,
    replica: kept.replica,
    kept: { session: kept.session, table },
    deadline: now() + CANCEL_TIMEOUT_MS,
  });
}

/**
 * Delete the stage-one answers shards left in the exchange for a query that has ended (answered or
 * not): each writer deletes its own objects, the only ones its function may write. The bucket's
 * expiry rule is the backstop (a cancel that fails, a hedge loser's object).
 */
export function releaseExchanged(
  invoker: ShardInvoker,
  queryId: string,
  objects: readonly { shard: number; replica: number; key: string }[],
  now: () => number,
): void {
  const byWriter = new Map<string, { shard: number; replica: number; keys: string[] }>();
  for (const o of objects) {
    const id = `${o.shard}/${o.replica}`;
    const w = byWriter.get(id) ?? { shard: o.shard, replica: o.replica, keys: [] };
    w.keys.push(o.key);
    byWriter.set(id, w);
  }
  for (const w of byWriter.values()) {
    sendCancel(invoker, { type: 'cancel', queryId, shard: w.shard, replica: w.replica, exchanged: w.keys, deadline: now() + CANCEL_TIMEOUT_MS });
  }
}
