// The wire format between the coordinator and a shard function (the Lambda Invoke payload).
// Kept small and JSON-only: it crosses the Lambda boundary in AWS and a local HTTP hop in the
// local stack, and both sides validate it.
import type { ColumnMeta, ExternalTable, InsertFormat, SettingValue, QueryStatistics } from '../clickhouse/port.js';

/** A stage-one answer left in the exchange (shared/core/shard/exchange.ts). */
export interface WireExchangeRef {
  shard: number;
  key: string;
  rows: number;
  bytes: number;
  sha256: string;
}

/** Lambda's limit on an Invoke request payload (and on a synchronous response): 6 MB. */
export const INVOKE_PAYLOAD_LIMIT_BYTES = 6 * 1024 * 1024;
/** Of a shard request, what the shipped GLOBAL data may take: the rest is kept for the SQL, settings and ids. */
export const MAX_SHIPPED_BYTES = INVOKE_PAYLOAD_LIMIT_BYTES - 256 * 1024;

export interface ShardRequest {
  type: 'query';
  queryId: string; // one id through every log line of coordinator and shards
  shard: number; // 0-based index into topology.shards
  replica: number; // 0-based index into that shard's replicas
  sql: string; // the rewritten, shard-local, read-only SELECT
  deadline: number; // absolute, epoch ms: the shard gives up (and KILLs its query) at this instant
  settings: Record<string, SettingValue>; // already allow-listed by the coordinator
  external: ExternalTable[]; // shipped GLOBAL IN / JOIN data
  attempt: 'primary' | 'hedge' | 'retry';
  /**
   * This attempt's name (hex), the tail of its ClickHouse query ids, so a cancel stops this attempt
   * and no other of the same query on that replica (another leaf, a final stage).
   */
  attemptId?: string;
  /**
   * Answer in this ClickHouse output format, as the engine's bytes (ShardSuccess.raw), instead of
   * rows: the general path's first stage (TabSeparatedWithNamesAndTypes carries every type and
   * aggregate state exactly) and any answer rendered for a ClickHouse client.
   */
  format?: string;
  /** Temporary tables the query reads (the final stage's input): created, filled, read, dropped. */
  tables?: WireStageTable[];
  /**
   * Stage one on the shard that will run the final stage: keep the answer in a temporary table of
   * a private ClickHouse session instead of returning it (ShardSuccess.kept says where), so the
   * final stage reads it in place. `until` (epoch ms, the query's deadline) bounds the session's
   * life. A shard whose engine has no sessions answers as without it.
   */
  keep?: { table: string; until: number };
  /** Run in this session (where stage one kept a table, `tables[i].kept`); fails as KEPT_LOST if it is gone. */
  session?: string;
  /**
   * This request's rows are the query's answer (the final stage, or both stages on one shard), not a
   * partial: `result_overflow_mode` applies to them as on ClickHouse's initiator.
   */
  answer?: boolean;
  /**
   * Start the answer with the query's names and types as TabSeparatedWithNamesAndTypes' two header
   * lines (from DESCRIBE, which does not run the query): how a RowBinary answer, which has no header
   * of its own, still says what it holds.
   */
  describe?: boolean;
  /**
   * With `format`, over a streaming hop (ShardInvoker.invokeStream): the engine's bytes are written
   * as the shard reads them, instead of one ShardSuccess.raw (no 6 MB cap). A failure before the first
   * byte is still a ShardFailure; after it, the hop fails.
   */
  stream?: boolean;
  /**
   * Stage one: an answer of more than `inlineBytes` (its rows, without the header) is written to
   * the exchange and answered as a reference (ShardSuccess.exchanged). A shard without an exchange
   * answers inline, within its response limit.
   */
  exchange?: { inlineBytes: number };
}

/** What one sub-request of a batch names itself: the rest comes from its batch. */
export type ShardBatchItem = Omit<ShardRequest, 'type' | 'queryId' | 'shard' | 'replica' | 'deadline' | 'attempt' | 'attemptId'>;

/**
 * Several queries of one plan for the same replica in one invocation (the leaves of a UNION): each
 * item is run as the ShardRequest it completes and answered in ShardSuccess.batch, in item order,
 * so the batch is one attempt of its shard (one hedge, one retry, one deadline).
 */
export interface ShardBatchRequest extends Pick<ShardRequest, 'queryId' | 'shard' | 'replica' | 'deadline' | 'attempt' | 'attemptId'> {
  type: 'batch';
  requests: ShardBatchItem[];
}

/** What a shard call sends: one query, or a batch of them. */
export type ShardCallRequest = ShardRequest | ShardBatchRequest;

/** A StageTable on the wire: its rows in base64 (they need not be UTF-8), TabSeparated or RowBinary. */
export interface WireStageTable {
  name: string;
  columns: ColumnMeta[];
  /** The rows as TabSeparated; '' with rowBinaryBase64. */
  tsvBase64: string;
  /** The rows as RowBinary (a leaf of one row per shard), instead of tsvBase64. */
  rowBinaryBase64?: string;
  /** The table already holds this shard's own stage-one rows (kept in `session`): insert only. */
  kept?: boolean;
  /** Rows in the exchange, inserted after the inline ones in this order (read by the final stage's function). */
  objects?: WireExchangeRef[];
}

/**
 * Stop an attempt's work on one replica (the loser of a hedge, a query that ended before its final
 * stage): its ClickHouse queries, found by their id's prefix, and the rows kept in `kept.session`.
 */
export interface ShardCancelRequest {
  type: 'cancel';
  queryId: string;
  shard: number;
  replica: number;
  deadline: number;
  /** The attempt to stop (ShardRequest.attemptId); absent, only `kept` is dropped. */
  attemptId?: string;
  kept?: { session: string; table: string };
}

/** Admin statements from the local stack's /admin routes and the CLI `exec`/`insert` commands. */
export interface ShardAdminRequest {
  type: 'exec' | 'insert';
  queryId: string;
  shard: number;
  replica: number;
  sql?: string; // exec
  table?: string; // insert: the shard-local table
  rows?: Record<string, unknown>[]; // insert
  jsonEachRow?: string; // insert: the rows as JSONEachRow text, verbatim (instead of rows)
  dedupToken?: string; // insert: insert_deduplication_token
  data?: { format: InsertFormat; columns?: readonly string[]; rows: string[] }; // insert: rows as bytes, base64 a row (instead of rows)
  checkOnly?: boolean; // insert: parse into a temporary copy, commit nothing
  deadline: number;
}

export interface ShardSuccess {
  ok: true;
  shard: number;
  replica: number;
  meta: ColumnMeta[];
  rows: Record<string, unknown>[];
  statistics: QueryStatistics;
  /** With a request `format`: the engine's output bytes in base64 (meta and rows are empty then). */
  raw?: string;
  /** With a request `keep`: the rows stayed in the session's table; `raw` holds only the header. */
  kept?: { session: string; rows: number };
  /** With a request `exchange`: the rows went to the exchange; `raw` holds only the header. */
  exchanged?: WireExchangeRef;
  /** To a batch: each item's own answer, in item order (meta and rows are empty then). */
  batch?: ShardResponse[];
}

export type ShardErrorKind = 'timeout' | 'error' | 'unavailable' | 'cancelled';

/**
 * A failure's code when the shard's ClickHouse took the query and dropped the connection (it crashed
 * or was killed on it): kind 'error', never re-sent to another replica.
 */
export const SERVER_DIED = 'SERVER_DIED';

export interface ShardFailure {
  ok: false;
  shard: number;
  replica: number;
  error: { kind: ShardErrorKind; code?: string; chCode?: number; message: string };
  statistics?: Partial<QueryStatistics>;
}

export type ShardResponse = ShardSuccess | ShardFailure;
