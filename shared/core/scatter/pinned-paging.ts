// Pinned paging: a cursor names the replica each shard's page read, and the next page asks that
// replica first while it is healthy (call-shard.ts), so consecutive pages read one replication state.
// Where a page could not (the replica failed lately, failed now, or a hedge to another one answered
// first) the answer says so per shard: rows of that shard may be skipped or repeated between pages.
import type { ShardOutcome } from './call-shard.js';
import type { ReplicaChange } from './query-types.js';

/** The shards whose page was read from another replica than the cursor's, and why. */
export function replicaChanges(pinned: readonly (number | null)[], outcomes: readonly ShardOutcome[]): ReplicaChange[] {
  const out: ReplicaChange[] = [];
  for (const o of outcomes) {
    const p = pinned[o.shard];
    if (p === undefined || p === null || o.status !== 'ok' || o.replica === p) continue;
    const asked = o.attempts.find((a) => a.replica === p);
    const reason = !asked
      ? `replica ${p} failed lately, so it was not asked`
      : asked.status === 'aborted'
        ? `a hedge to replica ${o.replica} answered first`
        : `replica ${p} did not answer (${asked.status}${asked.message ? `: ${asked.message}` : ''})`;
    out.push({
      shard: o.shard,
      pinned: p,
      read: o.replica,
      reason: `${reason}; rows of this shard may be skipped or repeated between pages (the replicas may hold different rows)`,
    });
  }
  return out;
}

/** Per shard, the replica the next page should read: the one that answered this page, else the cursor's. */
export function replicasRead(shards: number, outcomes: readonly ShardOutcome[], pinned: readonly (number | null)[] | undefined): (number | null)[] {
  const r: (number | null)[] = Array.from({ length: shards }, (_, s) => pinned?.[s] ?? null);
  for (const o of outcomes) if (o.status === 'ok') r[o.shard] = o.replica;
  return r;
}
