// Telling a shard to stop work nobody waits for any more: the loser of a hedge (its replica's
// ClickHouse query and shard function would run on to the deadline) and the rows a keeper holds
// for a final stage that will not come. One cancel invocation of the shard function, the same in
// AWS and on the local stack; fire and forget: the answer never waits for it, and its failure
// only leaves the work to the deadline (and the session's timeout) as before. And a query's
// exchange objects, deleted by the coordinator itself when the query ends.
import { randomBytes } from 'node:crypto';
import type { ShardCallRequest, ShardCancelRequest } from '../protocol/shard-wire.js';
import type { ShardInvoker } from './invoker.js';
import { exchangePrefix, type ExchangeCleaner } from '../shard/exchange.js';

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
 * not), with the coordinator's own rights on the bucket: no shard function is invoked for it, so
 * the cleanup never takes a concurrency slot from the next query. Fire and forget, as a cancel: the
 * bucket's expiry rule is the backstop (a delete that fails, a hedge loser's object). Only keys under
 * the answering shard's own prefix for this query are deleted: an answer cannot name another object.
 */
export function releaseExchanged(cleaner: ExchangeCleaner | undefined, queryId: string, objects: readonly { shard: number; key: string }[]): void {
  if (!cleaner) return;
  const keys = objects.filter((o) => ownObject(queryId, o.shard, o.key)).map((o) => o.key);
  if (keys.length > 0) cleaner.delete(keys).catch(() => undefined);
}

function ownObject(queryId: string, shard: number, key: string): boolean {
  const own = exchangePrefix(queryId, shard);
  return key.startsWith(own) && !key.slice(own.length).includes('/');
}
