// A ClickHouseAccess that reaches one replica through its shard function with admin requests
// (ShardAdminRequest exec/insert). Two users:
// - the local stack: embedded replicas live inside shard host processes (one chdb directory per
//   process), so the router and /admin/exec cannot open them directly;
// - the coordinator's scheduled inserts, in AWS too: only shard functions hold the ClickHouse
//   credentials and VPC placement, and they accept an insert into the tables named in their
//   CH_SCATTER_WRITABLE_TABLES (the schedule destinations) and refuse exec.
// Admin requests are exec and insert; query() is an ordinary read-only shard query (for small
// lookups such as the router's column check; the query path proper is shard-read-access.ts).
import { randomUUID } from 'node:crypto';
import type { ClickHouseAccess, QueryResult } from '../clickhouse/port.js';
import { ClickHouseError } from '../clickhouse/port.js';
import type { ShardInvoker } from './invoker.js';
import type { ShardAdminRequest } from '../protocol/shard-wire.js';

export interface AdminAccessOptions {
  invoker: ShardInvoker;
  shard: number;
  replica: number;
  timeoutMs?: number;
  queryId?: string;
  /** Max JSON bytes of rows per insert request (default MAX_INSERT_PAYLOAD_BYTES). */
  maxPayloadBytes?: number;
}

/** Rows per insert request stay under this (Lambda's 6 MB request limit, with room for the envelope). */
export const MAX_INSERT_PAYLOAD_BYTES = 5 * 1024 * 1024;

/** Consecutive slices of `rows` whose JSON stays under `maxBytes` (a single larger row goes alone). */
export function chunkRows(rows: Record<string, unknown>[], maxBytes: number): Record<string, unknown>[][] {
  const out: Record<string, unknown>[][] = [];
  let cur: Record<string, unknown>[] = [];
  let size = 2;
  for (const r of rows) {
    const n = Buffer.byteLength(JSON.stringify(r)) + 1;
    if (cur.length > 0 && size + n > maxBytes) {
      out.push(cur);
      cur = [];
      size = 2;
    }
    cur.push(r);
    size += n;
  }
  if (cur.length > 0) out.push(cur);
  return out;
}

/** JSONEachRow text cut at line ends into pieces under `maxBytes` (a single longer line goes alone). */
export function chunkLines(text: string, maxBytes: number): string[] {
  const out: string[] = [];
  let cur: string[] = [];
  let size = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const n = Buffer.byteLength(line) + 1;
    if (cur.length > 0 && size + n > maxBytes) {
      out.push(cur.join('\n'));
      cur = [];
      size = 0;
    }
    cur.push(line);
    size += n;
  }
  if (cur.length > 0) out.push(cur.join('\n'));
  return out;
}

/** Rows as base64 texts, in consecutive slices whose text stays under `maxBytes` (a single larger row goes alone). */
export function chunkBase64Rows(rows: readonly Uint8Array[], maxBytes: number): string[][] {
  const out: string[][] = [];
  let cur: string[] = [];
  let size = 2;
  for (const r of rows) {
    const text = Buffer.from(r.buffer, r.byteOffset, r.byteLength).toString('base64');
    const n = text.length + 3;
    if (cur.length > 0 && size + n > maxBytes) {
      out.push(cur);
      cur = [];
      size = 2;
    }
    cur.push(text);
    size += n;
  }
  if (cur.length > 0) out.push(cur);
  return out;
}

/** A failed admin answer's message and ClickHouse code (the engine's verdict travels on). */
function failureOf(r: unknown): { message: string; chCode?: number } | undefined {
  if (r && typeof r === 'object' && (r as { ok?: unknown }).ok === false) {
    const e = (r as { error?: { message?: string; chCode?: number } }).error;
    return { message: e?.message ?? 'admin request failed', ...(typeof e?.chCode === 'number' ? { chCode: e.chCode } : {}) };
  }
  return undefined;
}

export function createAdminAccess(options: AdminAccessOptions): ClickHouseAccess {
  const timeoutMs = options.timeoutMs ?? 120_000;
  const send = async (req: Omit<ShardAdminRequest, 'queryId' | 'shard' | 'replica' | 'deadline'>, queryId?: string, signal?: AbortSignal) => {
    if (!options.invoker.invokeAdmin) throw new ClickHouseError('this invoker cannot send admin requests', 'connection');
    const deadline = Date.now() + timeoutMs;
    const sig = signal ?? AbortSignal.timeout(timeoutMs);
    const response = await options.invoker.invokeAdmin(
      options.shard,
      { ...req, queryId: queryId ?? options.queryId ?? randomUUID(), shard: options.shard, replica: options.replica, deadline },
      sig,
    );
    const failed = failureOf(response);
    if (failed) throw new ClickHouseError(`shard ${options.shard} replica ${options.replica}: ${failed.message}`, 'server', failed.chCode);
    return response;
  };
  return {
    describe: `shard ${options.shard} replica ${options.replica} (via shard function)`,
    async query(sql, opts): Promise<QueryResult> {
      // A plain read-only shard query (the router reads the table's columns this way).
      const deadline = Date.now() + Math.min(timeoutMs, 30_000);
      const r = await options.invoker.invoke(
        options.shard,
        {
          type: 'query',
          queryId: opts?.queryId ?? options.queryId ?? randomUUID(),
          shard: options.shard,
          replica: options.replica,
          sql,
          deadline,
          settings: {},
          external: [],
          attempt: 'primary',
        },
        opts?.signal ?? AbortSignal.timeout(Math.min(timeoutMs, 30_000)),
      );
      if (!r.ok) throw new ClickHouseError(`shard ${options.shard} replica ${options.replica}: ${r.error.message}`, 'server', r.error.chCode);
      return {
        meta: r.meta,
        rows: r.rows,
        statistics: { elapsedMs: r.statistics.elapsedMs, rowsRead: r.statistics.rowsRead, bytesRead: r.statistics.bytesRead },
      };
    },
    async queryRaw() {
      throw new ClickHouseError('raw answers are read through the shard read access, not the admin one', 'server');
    },
    async exec(sql, opts) {
      await send({ type: 'exec', sql }, opts?.queryId, opts?.signal);
    },
    async insert(table, rows, opts) {
      const token = opts?.settings?.insert_deduplication_token;
      const dedup = (i: number, n: number) => (typeof token === 'string' ? { dedupToken: n === 1 ? token : `${token}-${i}` } : {});
      // A Lambda request payload is capped at 6 MB: big batches go as several inserts, in order
      // (each chunk its own deduplication token, derived from the batch's).
      if (opts?.data !== undefined) {
        const { format, columns } = opts.data;
        const chunks = chunkBase64Rows(opts.data.rows, options.maxPayloadBytes ?? MAX_INSERT_PAYLOAD_BYTES);
        for (const [i, rows] of chunks.entries())
          await send(
            {
              type: 'insert',
              table,
              data: { format, ...(columns ? { columns: [...columns] } : {}), rows },
              ...(opts.checkOnly ? { checkOnly: true } : {}),
              ...dedup(i, chunks.length),
            },
            opts.queryId,
            opts.signal,
          );
        return;
      }
      if (opts?.jsonEachRow !== undefined) {
        const chunks = chunkLines(opts.jsonEachRow, options.maxPayloadBytes ?? MAX_INSERT_PAYLOAD_BYTES);
        for (const [i, text] of chunks.entries())
          await send({ type: 'insert', table, jsonEachRow: text, ...dedup(i, chunks.length) }, opts.queryId, opts.signal);
        return;
      }
      const chunks = chunkRows(rows, options.maxPayloadBytes ?? MAX_INSERT_PAYLOAD_BYTES);
      for (const [i, chunk] of chunks.entries()) await send({ type: 'insert', table, rows: chunk, ...dedup(i, chunks.length) }, opts?.queryId, opts?.signal);
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
