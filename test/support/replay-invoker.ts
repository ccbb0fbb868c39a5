// A shard invoker for deadline tests that share one thread with the shards: the first call of a
// (shard, SQL) runs the real shard function and remembers its answer and how long it took; later
// calls answer the same after that long, by timer. The shard's own CPU work (parsing its engine's
// JSON, which in AWS happens in another Lambda) then no longer blocks the coordinator's thread, so
// what a test times is the coordinator: its merges, its finalize and its deadline. Faults (delay,
// error, crash) are applied on the way, as the local stack's replica faults are.
import type { ShardRequest, ShardResponse } from '../../shared/core/protocol/shard-wire.js';
import type { ShardInvoker } from '../../shared/core/scatter/invoker.js';

export interface ReplayFault {
  delayMs?: number;
  error?: string;
  /** The host process dies mid-invoke: the invoke fails as a dead connection does. */
  crash?: boolean;
}

export function replayInvoker(inner: ShardInvoker, faultOf: (p: ShardRequest) => ReplayFault | undefined = () => undefined): ShardInvoker {
  const seen = new Map<string, { response: ShardResponse; ms: number }>();
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));
  return {
    invoke: async (shard, p, signal) => {
      const fault = faultOf(p);
      if (fault?.delayMs) await sleep(fault.delayMs);
      if (fault?.crash) throw Object.assign(new Error('socket hang up (shard host process exited)'), { code: 'ECONNRESET' });
      if (fault?.error !== undefined) return { ok: false, shard, replica: p.replica, error: { kind: 'error', code: 'SHARD_ERROR', message: fault.error } };
      const key = `${shard}\u0000${p.sql}`;
      const hit = seen.get(key);
      if (hit) {
        await sleep(hit.ms);
        return { ...hit.response, replica: p.replica };
      }
      const t = performance.now();
      const response = await inner.invoke(shard, p, signal);
      if (response.ok) seen.set(key, { response, ms: performance.now() - t });
      return response;
    },
  };
}
