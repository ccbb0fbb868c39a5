// What one query costs, from measured invocations: Lambda bills each invocation's duration rounded UP
// to the next millisecond, times its configured memory (GB-seconds), plus a per-request charge; the
// front door charges per request (an HTTP API in steps of 512 KB, a Function URL nothing extra).
import type { Prices } from './prices.js';

/** One function invocation: its measured duration and the memory its function is configured with. */
export interface Invocation {
  ms: number;
  memoryMb: number;
}

export interface QueryBill {
  coordinatorUsd: number;
  shardsUsd: number;
  requestsUsd: number;
  frontDoorUsd: number;
  s3Usd: number;
  logsUsd: number;
  totalUsd: number;
}

/** Lambda's billed duration: per-ms rounding up (a 0.2 ms invocation bills 1 ms). */
export function billedMs(ms: number): number {
  return Math.max(1, Math.ceil(ms));
}

/** Duration charge of one invocation: billed ms x memory in GB x the GB-second price. */
export function durationUsd(inv: Invocation, p: Prices): number {
  return (billedMs(inv.ms) / 1000) * (inv.memoryMb / 1024) * p.lambdaArmPerGbSecond;
}

/** HTTP API requests one call is metered as: its request plus response bytes in steps of 512 KB. */
export function httpApiMeteredRequests(bytes: number, p: Prices): number {
  return Math.max(1, Math.ceil(bytes / p.httpApiStepBytes));
}

export interface QueryUsage {
  /** The coordinator's invocations: the root, and sub-coordinators with the tree. */
  coordinator: Invocation[];
  /** Every shard function invocation: primaries, hedges, retries, pre-passes, final stages. */
  shards: Invocation[];
  frontDoor: 'http-api' | 'function-url';
  /** Request + response bytes through the front door. */
  frontDoorBytes: number;
  s3Puts: number;
  s3Gets: number;
  /** Bytes the functions log for this query (CloudWatch Logs ingestion). */
  logBytes: number;
}

export function billQuery(u: QueryUsage, p: Prices): QueryBill {
  const sum = (xs: Invocation[]) => xs.reduce((a, inv) => a + durationUsd(inv, p), 0);
  const coordinatorUsd = sum(u.coordinator);
  const shardsUsd = sum(u.shards);
  const requestsUsd = (u.coordinator.length + u.shards.length) * p.lambdaPerRequest;
  const frontDoorUsd = u.frontDoor === 'http-api' ? httpApiMeteredRequests(u.frontDoorBytes, p) * p.httpApiPerRequest : p.functionUrlPerRequest;
  const s3Usd = u.s3Puts * p.s3PutPerRequest + u.s3Gets * p.s3GetPerRequest;
  const logsUsd = (u.logBytes / 1024 ** 3) * p.logsIngestPerGb;
  return {
    coordinatorUsd,
    shardsUsd,
    requestsUsd,
    frontDoorUsd,
    s3Usd,
    logsUsd,
    totalUsd: coordinatorUsd + shardsUsd + requestsUsd + frontDoorUsd + s3Usd + logsUsd,
  };
}

/** Queries per second at which a month of the always-on node costs what the queries do. */
export function breakEvenQps(usdPerQuery: number, p: Prices): number {
  return p.node.perHour / 3600 / usdPerQuery;
}
