// A read-only ClickHouseAccess over a shard function: each query() is one ordinary ShardRequest
// (readonly, deadline-bound, the shard's own credentials). The coordinator uses it for the
// Distributed parity guard (system.clusters, system.tables, system.columns), so in AWS it needs
// neither database credentials nor a place in the VPC: only the right to invoke shard functions.
// Replicas are tried in order until one answers (the system tables are the same on each).
import { randomUUID } from 'node:crypto';
import { ClickHouseError, type ClickHouseAccess, type QueryOptions, type QueryResult, type RawResult } from '../clickhouse/port.js';
import { SERVER_DIED, type ShardFailure, type ShardRequest, type ShardSuccess } from '../protocol/shard-wire.js';
import { wireRows } from './two-stage/wire.js';
import type { ShardInvoker } from './invoker.js';

export interface ShardReadAccessOptions {
  invoker: ShardInvoker;
  shard: number;
  /** Replica indexes to try, in order. */
  replicas: number[];
  timeoutMs?: number;
}

/** A message written `replica N: ...` (by this access, or by callShard for an outcome), split back into the replica and the engine's own text. */
export function splitReplica(message: string): { replica: number; message: string } {
  const m = /^replica (\d+): /.exec(message);
  return m ? { replica: Number(m[1]), message: message.slice(m[0].length) } : { replica: 0, message };
}

export function createShardReadAccess(options: ShardReadAccessOptions): ClickHouseAccess {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const describe = `shard ${options.shard} (via its shard function)`;
  const refuse = async (): Promise<never> => {
    throw new ClickHouseError(`${describe} is read-only here`, 'server');
  };
  /** One read on the first replica that answers; the request's extra fields pick rows or raw bytes. */
  const ask = async (sql: string, opts: QueryOptions | undefined, extra: Pick<ShardRequest, 'format' | 'tables'>): Promise<ShardSuccess> => {
    const failures: string[] = [];
    for (const replica of options.replicas) {
      const deadline = opts?.deadline ?? Date.now() + timeoutMs;
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
            settings: opts?.settings ?? {},
            external: opts?.external ?? [],
            attempt: 'primary',
            ...extra,
          },
          opts?.signal ?? AbortSignal.timeout(Math.max(1, deadline - Date.now())),
        )
        .catch(
          (e: unknown): ShardFailure => ({
            ok: false,
            shard: options.shard,
            replica,
            error: { kind: 'unavailable', message: (e as Error)?.message ?? String(e) },
          }),
        );
      if (response.ok) return response;
      // Its ClickHouse died holding the query: the next replica would go the same way.
      if (response.error.code === SERVER_DIED) throw new ClickHouseError(`replica ${replica}: ${response.error.message}`, 'died');
      // The server answered and refused the SQL: another replica would say the same.
      if (response.error.kind === 'error') throw new ClickHouseError(`replica ${replica}: ${response.error.message}`, 'server', response.error.chCode);
      // The caller's one deadline fell (it is the same for every replica): nothing is left to try.
      if (opts?.deadline !== undefined && (response.error.kind === 'timeout' || response.error.kind === 'cancelled'))
        throw new ClickHouseError(`replica ${replica}: ${response.error.message}`, 'timeout', response.error.chCode ?? 159); // TIMEOUT_EXCEEDED
      failures.push(`replica ${replica}: ${response.error.message}`);
    }
    throw new ClickHouseError(`no replica of shard ${options.shard} answered: ${failures.join('; ')}`, 'connection');
  };
  const stats = (r: ShardSuccess) => ({ elapsedMs: r.statistics.elapsedMs, rowsRead: r.statistics.rowsRead, bytesRead: r.statistics.bytesRead });
  return {
    describe,
    async query(sql, opts): Promise<QueryResult> {
      const r = await ask(sql, opts, {});
      return { meta: r.meta, rows: r.rows, statistics: stats(r) };
    },
    async queryRaw(sql, opts): Promise<RawResult> {
      const tables = opts.tables?.map((t) => ({ name: t.name, columns: t.columns, ...wireRows(t.data, t.format) }));
      const r = await ask(sql, opts, { format: opts.format, ...(tables ? { tables } : {}) });
      if (r.raw === undefined) throw new ClickHouseError(`${describe} answered rows where raw bytes were asked for`, 'server');
      return { bytes: Buffer.from(r.raw, 'base64'), statistics: stats(r) };
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
