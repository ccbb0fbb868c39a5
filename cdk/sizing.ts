// Lambda timeouts and memory, derived from the query deadline (query.timeoutMs) and the shard count.
// Why these numbers:
// - The coordinator must outlive the query deadline: after the last shard answers (or the deadline
//   passes) it still merges, finalizes and serializes, and a cold start spends ~1 s before the deadline
//   clock even matters. So its timeout is strictly greater than timeoutMs + COORDINATOR_MARGIN_MS.
// - The API path is capped by API Gateway: an HTTP API integration's timeout is at most 29 s (what
//   CloudFormation and aws-cdk-lib accept), and the coordinator is kept at <= 28 s so it always
//   answers (with partial: true) before the integration gives up.
//   A deadline that cannot fit is refused at synthesis, not discovered as 503s in production.
// - A shard function works until the deadline (its ClickHouse query carries max_execution_time from
//   it) plus a second to return what it has; the coordinator stops waiting at the deadline anyway.
// - Lambda gives CPU in proportion to memory (1769 MB = one vCPU). The coordinator parses, plans and
//   merges partials on arrival; tight deadlines and wide fan-outs are CPU-bound, so it gets a full vCPU
//   there, and no more: it merges on one thread, so memory above 1769 MB bills more per ms and buys no
//   speed. Shard functions mostly wait on ClickHouse and relay one partial: `npm run bench -- cost`
//   (docs/cost.md) found 128-256 MB minimizing cost x latency; 256 MB keeps room to parse and
//   re-serialize a partial of up to Lambda's 6 MB, which that model cannot see.
import type { QueryDefaults } from '../shared/core/config/schema.js';

export const API_GATEWAY_MAX_S = 28;
export const HTTP_API_INTEGRATION_MAX_S = 29;
export const COORDINATOR_MARGIN_MS = 3000;
export const SHARD_MARGIN_MS = 1000;
export const ONE_VCPU_MB = 1769;
export const SHARD_MEMORY_MB = 256;

/**
 * What a shard function holds for the exchange (bytes): a stage-one answer before it is compressed
 * and written, or a final stage's input read back, beside its compressed copy and the engine
 * client's buffers. A quarter of its memory: 64 MiB of 256 MB.
 */
export function exchangeBytesFor(shardMemoryMb: number): number {
  return Math.floor(shardMemoryMb / 4) * 1024 * 1024;
}

export interface Sizing {
  coordinatorTimeoutS: number;
  shardTimeoutS: number;
  /** API Gateway integration timeout: just above the coordinator's, never above 29 s. */
  integrationTimeoutS: number;
  coordinatorMemoryMb: number;
  shardMemoryMb: number;
}

export class SizingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SizingError';
  }
}

export function deriveSizing(
  query: Pick<QueryDefaults, 'timeoutMs'>,
  shardCount: number,
  overrides: { coordinatorMb?: number; shardMb?: number } = {},
): Sizing {
  const t = query.timeoutMs;
  // Strictly greater than t + margin, in whole seconds (Lambda timeouts are whole seconds).
  const coordinatorTimeoutS = Math.floor((t + COORDINATOR_MARGIN_MS) / 1000) + 1;
  if (coordinatorTimeoutS > API_GATEWAY_MAX_S) {
    const maxMs = (API_GATEWAY_MAX_S - 1) * 1000 - COORDINATOR_MARGIN_MS + 999;
    throw new SizingError(
      `$.query.timeoutMs: ${t} ms needs a coordinator timeout of ${coordinatorTimeoutS} s (deadline + ${COORDINATOR_MARGIN_MS} ms to merge and answer), ` +
        `above API Gateway's ${API_GATEWAY_MAX_S} s limit for the query API; use at most ${maxMs} ms`,
    );
  }
  const shardTimeoutS = Math.min(coordinatorTimeoutS, Math.ceil((t + SHARD_MARGIN_MS) / 1000));
  const integrationTimeoutS = Math.min(HTTP_API_INTEGRATION_MAX_S, coordinatorTimeoutS + 1);
  const cpuBound = t < 2000 || shardCount > 16;
  const coordinatorMemoryMb = overrides.coordinatorMb ?? (cpuBound ? ONE_VCPU_MB : 1024);
  const shardMemoryMb = overrides.shardMb ?? SHARD_MEMORY_MB;
  return { coordinatorTimeoutS, shardTimeoutS, integrationTimeoutS, coordinatorMemoryMb, shardMemoryMb };
}

/**
 * A shard function's timeout with the streaming door deployed: the door's, since a row export keeps
 * its shards streaming for as long as the door's query runs (up to 15 min). Each shard query is still
 * bounded by its own deadline (max_execution_time, KILL at the deadline) from the request; the Lambda
 * timeout is only the backstop, and the API path's requests carry deadlines under 30 s as before.
 */
export function shardTimeoutS(sizing: Pick<Sizing, 'shardTimeoutS'>, streamingDoorTimeoutS: number | undefined): number {
  return Math.max(sizing.shardTimeoutS, streamingDoorTimeoutS ?? 0);
}
