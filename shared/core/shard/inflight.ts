// The attempts one shard function is running now, by their ClickHouse query-id prefix, so a cancel
// request reaching the same process (the local stack's hosts serve overlapping invocations) stops
// the attempt itself at once, and one arriving before its attempt (a race on the way in) stops it
// as it starts. In AWS each invocation has an environment of its own: there KILL QUERY does it.
import { randomBytes } from 'node:crypto';
import { BoundedCache } from '../bounded-cache.js';

/** Cancelled prefixes remembered for attempts still on their way in: one per recent cancel. */
const REMEMBERED_CANCELS = 1024;

/**
 * What every ClickHouse query id of one attempt starts with: `<query>-s<shard>r<replica>-<attempt>`
 * (the attempt's own id, else a random one: the same query may reach one server twice at once).
 */
export function attemptQueryId(p: { queryId: string; shard: number; replica: number; attemptId?: string | undefined }): string {
  return `${p.queryId}-s${p.shard}r${p.replica}-${p.attemptId ?? randomBytes(4).toString('hex')}`;
}

export class InflightAttempts {
  readonly #running = new Map<string, Set<AbortController>>();
  readonly #cancelled = new BoundedCache<string, true>(REMEMBERED_CANCELS);

  /** Register an attempt; returns its unregister. An attempt cancelled already is aborted now. */
  add(prefix: string, ac: AbortController): () => void {
    if (this.#cancelled.has(prefix)) ac.abort();
    let set = this.#running.get(prefix);
    if (!set) {
      set = new Set();
      this.#running.set(prefix, set);
    }
    set.add(ac);
    return () => {
      set.delete(ac);
      if (set.size === 0 && this.#running.get(prefix) === set) this.#running.delete(prefix);
    };
  }

  /** Abort every attempt running under `prefix` (and any that starts later); how many were running. */
  cancel(prefix: string): number {
    this.#cancelled.set(prefix, true);
    const set = this.#running.get(prefix);
    for (const ac of set ?? []) ac.abort();
    return set?.size ?? 0;
  }
}
