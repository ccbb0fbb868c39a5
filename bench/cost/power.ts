// Lambda power tuning from local measurements: which memory sizes minimize cost x latency. Lambda
// gives a function CPU in proportion to its memory (one vCPU at 1,769 MB, that share of one below),
// so a CPU-bound millisecond measured here on one core takes 1769 / m ms at m MB below 1,769 MB, and
// no less above it (Node runs a query on one thread); time spent waiting on the network or on
// ClickHouse does not change. Each measured duration is split into its CPU part (this machine's
// process CPU time) and the rest, and re-timed per memory size.
import { ONE_VCPU_MB } from '../../cdk/sizing.js';
import { billQuery, type QueryUsage } from './bill.js';
import type { Prices } from './prices.js';

export const MEMORY_GRID_MB = [128, 256, 384, 512, 768, 1024, 1280, 1536, ONE_VCPU_MB, 2048, 3008] as const;

/** How much longer a CPU millisecond measured on one full core takes at `memoryMb`. */
export function cpuStretch(memoryMb: number): number {
  return Math.max(1, ONE_VCPU_MB / memoryMb);
}

/** What a query's functions did at the local run: walls and their CPU parts, in ms. */
export interface MeasuredQuery {
  /** Coordinator invocations (the root first); cpuMs: its CPU part. */
  coordinator: { ms: number; cpuMs: number }[];
  shards: { ms: number; cpuMs: number }[];
  /** Shard invocations that ran one after another on the query's critical path (stage rounds). */
  shardRounds: number;
  rest: Omit<QueryUsage, 'coordinator' | 'shards'>;
}

/** Lambda cost and latency of the measured query with the coordinator at mc MB and every shard function at ms MB. */
export function atMemory(q: MeasuredQuery, mc: number, ms: number, p: Prices): { usd: number; latencyMs: number } {
  const c = cpuStretch(mc) - 1;
  const s = cpuStretch(ms) - 1;
  const shardCpuMax = Math.max(0, ...q.shards.map((x) => x.cpuMs));
  const usage: QueryUsage = {
    ...q.rest,
    coordinator: q.coordinator.map((x, i) => ({
      // The root also waits for the shards, whose CPU stretches too, once per round.
      ms: x.ms + x.cpuMs * c + (i === 0 ? q.shardRounds * shardCpuMax * s : 0),
      memoryMb: mc,
    })),
    shards: q.shards.map((x) => ({ ms: x.ms + x.cpuMs * s, memoryMb: ms })),
  };
  const b = billQuery(usage, p);
  // The functions' own charges, as power tuning counts them: the front door and logs do not change with memory.
  return { usd: b.coordinatorUsd + b.shardsUsd + b.requestsUsd, latencyMs: usage.coordinator[0]!.ms };
}

export interface Tuned {
  coordinatorMb: number;
  shardMb: number;
  /** Mean over the queries of cost x latency relative to the configured sizes (1 = no better). */
  relativeCostLatency: number;
  /** Mean relative cost and latency at the tuned sizes. */
  relativeCost: number;
  relativeLatency: number;
}

/** The (coordinator, shard) memory pair of the grid minimizing mean relative cost x latency. */
export function tune(queries: MeasuredQuery[], configured: { coordinatorMb: number; shardMb: number }, p: Prices): Tuned {
  const base = queries.map((q) => atMemory(q, configured.coordinatorMb, configured.shardMb, p));
  let best: Tuned | undefined;
  for (const mc of MEMORY_GRID_MB) {
    for (const ms of MEMORY_GRID_MB) {
      let cl = 0;
      let cost = 0;
      let lat = 0;
      queries.forEach((q, i) => {
        const r = atMemory(q, mc, ms, p);
        cl += (r.usd * r.latencyMs) / (base[i]!.usd * base[i]!.latencyMs);
        cost += r.usd / base[i]!.usd;
        lat += r.latencyMs / base[i]!.latencyMs;
      });
      const n = queries.length;
      if (!best || cl / n < best.relativeCostLatency)
        best = { coordinatorMb: mc, shardMb: ms, relativeCostLatency: cl / n, relativeCost: cost / n, relativeLatency: lat / n };
    }
  }
  return best!;
}
