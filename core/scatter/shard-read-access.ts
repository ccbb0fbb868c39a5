// A read-only ClickHouseAccess over a shard function: each query() is one ordinary ShardRequest
// (readonly, deadline-bound, the shard's own credentials). The coordinator uses it for the
// Distributed parity guard (system.clusters, system.tables, system.columns), so in AWS it needs
// neither database credentials nor a place in the VPC: only the right to invoke shard functions.
// Replicas are tried in order until one answers (the system tables are the same on each).
import { randomUUID } from 'node:crypto';
import { ClickHouseError, type ClickHouseAccess, type QueryResult } from '../clickhouse/port.js';
import type { ShardInvoker } from './invoker.js';

export interface ShardReadAccessOptions {
  invoker: ShardInvoker;
  shard: number;
  /** Replica indexes to try, in order. */
  replicas: number[];
  timeoutMs?: number;
}

export function createShardReadAccess(options: ShardReadAccessOptions): ClickHouseAccess {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const describe = `shard ${options.shard} (via its shard function)`;
  const refuse = async (): Promise<never> => {
    throw new ClickHouseError(`${describe} is read-only here`, 'server');
  };
  return {
    describe,
    async query(sql, opts): Promise<QueryResult> {
      const failures: string[] = [];
      for (const replica of options.replicas) {
        const deadline = Date.now() + timeoutMs;
        const response = await options.invoker
          .invoke(
            options.shard,
            {
              type: 'query',
              queryId: opts?.queryId ?? randomUUID(),
              shard: options.shard,
              replica,
              sql,
              deadline,
              settings: {},
              external: [],
              attempt: 'primary',
            },
            opts?.signal ?? AbortSignal.timeout(timeoutMs),
          )
          .catch((e: unknown) => ({
            ok: false as const,
            shard: options.shard,
            replica,
            error: { kind: 'unavailable' as const, message: (e as Error)?.message ?? String(e) },
          }));
        if (response.ok)
          return {
            meta: response.meta,
            rows: response.rows,
            statistics: { elapsedMs: response.statistics.elapsedMs, rowsRead: response.statistics.rowsRead, bytesRead: response.statistics.bytesRead },
          };
        // The server answered and refused the SQL: another replica would say the same.
        if (response.error.kind === 'error') throw new ClickHouseError(`replica ${replica}: ${response.error.message}`, 'server', response.error.chCode);
        failures.push(`replica ${replica}: ${response.error.message}`);
      }
      throw new ClickHouseError(`no replica of shard ${options.shard} answered: ${failures.join('; ')}`, 'connection');
    },
    exec: refuse,
    insert: refuse,
    async cancel() {
      /* each request is bounded by its own deadline on the shard */
    },
    async ping() {
      return true;
    },
    async close() {
      /* nothing held */
    },
  };
}
