// Which shard failures are the query's fault rather than the shard's, and the client error they become.
import { ScatterError } from '../errors.js';
import { classOf, clickHouseErrorName, isQueryFault } from '../clickhouse/error-codes.js';
import type { ShardOutcome } from './call-shard.js';

/**
 * A failure that means "this query is wrong, or over a limit of its own", whatever the replica:
 * a user or limit class ClickHouse code (shared/core/clickhouse/error-codes.ts). Such a failure on any
 * shard makes the whole answer a 400 (as a Distributed query would fail), never a quietly partial result.
 */
export function isQueryFailure(o: { status: string; chCode?: number; message?: string }): boolean {
  return o.status === 'error' && o.chCode !== undefined && isQueryFault(o.chCode, o.message);
}

/** "replica 0 (primary): Code: 47 ..." -> "Code: 47 ..." for a client-facing message. */
export function stripReplicaPrefix(m: string): string {
  return m.replace(/^replica \d+ \([a-z]+\): /, '').split('; replica ')[0]!;
}

/** 400 QUERY_ERROR or LIMIT_EXCEEDED naming ClickHouse's code and name, with the shards summary. */
export function queryFailureError(bad: ShardOutcome, details: Record<string, unknown>): ScatterError {
  const code = bad.chCode!;
  const name = clickHouseErrorName(code);
  const limit = classOf(code, bad.message) === 'limit';
  const what = limit ? `the query exceeded a limit on shard ${bad.shard}` : `ClickHouse rejected the query on shard ${bad.shard}`;
  return new ScatterError(limit ? 'LIMIT_EXCEEDED' : 'QUERY_ERROR', `${what} (ClickHouse error ${code} ${name}): ${stripReplicaPrefix(bad.message ?? '')}`, {
    details: { clickhouse: { code, name }, ...details },
  });
}
