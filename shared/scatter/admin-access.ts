// A ClickHouseAccess that reaches one replica through its shard function with admin requests
// (ShardAdminRequest exec/insert). The local stack needs it: embedded replicas live inside shard
// host processes (one chdb directory per process), so the router and /admin/exec cannot open
// them directly. Only exec and insert exist; reads go through the query path. Shard functions
// refuse admin requests unless hosted by the local stack (allowAdmin), so in AWS this is inert.
import { randomUUID } from 'node:crypto';
import type { ClickHouseAccess, QueryResult } from '../clickhouse/port.js';
import { ClickHouseError } from '../clickhouse/port.js';
import type { ShardInvoker } from './invoker.js';
import type { ShardAdminRequest } from './protocol.js';

export interface AdminAccessOptions {
  invoker: ShardInvoker;
  shard: number;
  replica: number;
  timeoutMs?: number;
  queryId?: string;
}

function failureMessage(r: unknown): string | undefined {
  if (r && typeof r === 'object' && (r as { ok?: unknown }).ok === false) {
    const e = (r as { error?: { message?: string } }).error;
    return e?.message ?? 'admin request failed';
  }
  return undefined;
}

export function createAdminAccess(o: AdminAccessOptions): ClickHouseAccess {
  const timeoutMs = o.timeoutMs ?? 120_000;
  const send = async (req: Omit<ShardAdminRequest, 'queryId' | 'shard' | 'replica' | 'deadline'>, queryId?: string, signal?: AbortSignal) => {
    if (!o.invoker.invokeAdmin) throw new ClickHouseError('this invoker cannot send admin requests', 'connection');
    const deadline = Date.now() + timeoutMs;
    const sig = signal ?? AbortSignal.timeout(timeoutMs);
    const r = await o.invoker.invokeAdmin(o.shard, { ...req, queryId: queryId ?? o.queryId ?? randomUUID(), shard: o.shard, replica: o.replica, deadline }, sig);
    const msg = failureMessage(r);
    if (msg) throw new ClickHouseError(`shard ${o.shard} replica ${o.replica}: ${msg}`, 'server');
    return r;
  };
  return {
    describe: `shard ${o.shard} replica ${o.replica} (via shard function)`,
    async query(): Promise<QueryResult> {
      throw new ClickHouseError('admin access runs statements only; queries go through POST /query', 'server');
    },
    async exec(sql, opts) {
      await send({ type: 'exec', sql }, opts?.queryId, opts?.signal);
    },
    async insert(table, rows, opts) {
      await send({ type: 'insert', table, rows }, opts?.queryId, opts?.signal);
    },
    async cancel() {
      /* admin statements are short and run to completion */
    },
    async ping() {
      return true;
    },
    async close() {
      /* nothing held */
    },
  };
}
