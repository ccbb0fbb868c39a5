// What the ClickHouse HTTP interface needs from the rest of ch-scatter, as plain functions, so the
// core stays free of Lambda and API Gateway (functions/coordinator wires them).
import type { ExternalTable, SettingValue, QueryStatistics } from '../clickhouse/port.js';
import type { ParamValue } from '../plan/bind-params.js';
import type { ByteInsert } from '../router/insert-data.js';
import type { TableCoverage } from '../scatter/query-types.js';

/** One SELECT on one shard's engine (any replica), answered as the engine's own bytes in `format`. */
export type RawQuery = (
  sql: string,
  opts: { format: string; settings?: Record<string, SettingValue>; queryId?: string; deadline?: number; external?: ExternalTable[] },
) => Promise<{ bytes: Buffer; statistics: QueryStatistics }>;

/** A shard that did not answer (skip_unavailable_shards=1 answers without it). */
export interface MissingShardInfo {
  shard: number;
  reason: string;
  message?: string;
}

export interface DistributedAnswer {
  bytes: Buffer;
  /** Rows in the answer (X-ClickHouse-Summary's result_rows), when known. */
  resultRows?: number;
  rowsRead: number;
  bytesRead: number;
  missing: MissingShardInfo[];
  /** Shards the plan did not ask (no matching row can live there), and why. */
  skipped?: { shard: number; reason: string }[];
  /** The share of each table's rows the answering shards hold, when known or partial. */
  coverage?: TableCoverage[];
  /** What may have cut the answer (a truncating overflow mode): the rows are ClickHouse's, the header says so. */
  truncated?: string[];
}

/** A SELECT over distributed tables as the interface asks for it (the general path and the streaming door). */
export interface DistributedSelectRequest {
  sql: string;
  format: string;
  formatSettings: Record<string, string>;
  settings: Record<string, SettingValue>;
  /** Plain values (the interface has undone ClickHouse's escaping of param_<name>). */
  params: Record<string, ParamValue>;
  timeoutMs?: number;
  /** skip_unavailable_shards=0: a missing shard fails the query. */
  requireComplete: boolean;
  queryId: string;
  /** When the request arrived (epoch ms): the deadline counts from here, not from after parsing. */
  arrivedAt?: number;
  /** Stops the query (KILL QUERY): the fan-out abandons its shards. */
  signal?: AbortSignal;
  /** The request's external data, parsed (external-data.ts): shipped to every shard that reads it, and to the final stage. */
  external?: ExternalTable[];
  /** The shards' version(), when known: a ClickHouse 26 final stage writes two different columns of one name itself. */
  engineVersion?: string;
}

/** A SELECT over distributed tables, rendered in `format` by a ClickHouse engine (the general path). */
export type DistributedSelect = (req: DistributedSelectRequest) => Promise<DistributedAnswer>;

export interface InsertAnswer {
  inserted: number;
  perShard: number[];
}

/** Rows, as the client's bytes, into a distributed table through the router. */
export type InsertRows = (table: string, data: ByteInsert, queryId: string) => Promise<InsertAnswer>;
