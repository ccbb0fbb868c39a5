// IPC messages between an engine child process (engine-child.ts) and its parent
// (engine-process.ts). Sent with `serialization: 'advanced'`, so BigInt survives.
import type { QueryOptions, RawQueryOptions } from '../../../shared/core/clickhouse/port.js';

/** QueryOptions without the AbortSignal (not cloneable); aborts travel as their own message. */
export type WireQueryOptions = Omit<QueryOptions, 'signal'>;

export type EngineRequest =
  | { id: number; op: 'query'; sql: string; opts: WireQueryOptions }
  | { id: number; op: 'queryRaw'; sql: string; opts: Omit<RawQueryOptions, 'signal'> }
  | { id: number; op: 'exec'; sql: string; opts: WireQueryOptions }
  | { id: number; op: 'insert'; table: string; rows: Record<string, unknown>[]; opts: WireQueryOptions }
  | { id: number; op: 'cancel'; queryId: string }
  | { id: number; op: 'ping' }
  | { id: number; op: 'abort'; target: number }
  | { id: number; op: 'close' };

export interface WireError {
  message: string;
  kind: 'server' | 'connection' | 'aborted' | 'timeout' | 'died';
  chCode?: number;
}

export type EngineReply =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; error: WireError }
  | { ready: true; pid: number }
  | { fatal: string };
