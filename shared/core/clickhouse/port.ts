// The one port through which the core touches ClickHouse. Two adapters implement it:
// `http.ts` (@clickhouse/client, what Lambdas use) and `embedded.ts` (chdb, the local stack and
// tests). Handlers receive a ClickHouseAccess and never know which one they hold.

export interface ColumnMeta {
  name: string;
  type: string; // ClickHouse type text, e.g. "UInt64", "Nullable(String)"
}

/**
 * Data shipped with a query (as ClickHouse's Distributed engine ships a GLOBAL IN / GLOBAL JOIN
 * right-hand side: materialized once on the coordinator, sent as a temporary table). The adapter makes
 * it readable under `name` for the duration of one query; it is never re-run as SQL on the shard.
 */
export interface ExternalTable {
  name: string; // `_data_<hash>`, or the name a client gave its external data
  columns: ColumnMeta[];
  /** Rows in ClickHouse JSON conventions (64-bit integers as strings). */
  rows: Record<string, unknown>[];
  /**
   * The same rows already encoded as JSONEachRow lines (no trailing newline). When present the
   * adapters ship this text and ignore `rows`: the coordinator encodes a shipped set once per query
   * instead of once per shard, and the shard neither parses nor re-encodes it.
   */
  jsonEachRow?: string;
  /**
   * The rows as a client sent them (ClickHouse's external data: any input format, base64 since they
   * need not be text). When present the adapters ship these bytes in `format` and ignore the rest: the
   * engine parses them, with its own errors.
   */
  data?: { format: string; base64: string };
}

export type SettingValue = string | number | boolean;

export interface QueryOptions {
  /** Becomes ClickHouse's query_id, so the query can be found and KILLed. */
  queryId?: string;
  settings?: Record<string, SettingValue>;
  external?: ExternalTable[];
  signal?: AbortSignal;
  /**
   * Absolute deadline (epoch ms). Adapters that can stop a query more precisely than whole
   * seconds use it (embedded: a fractional max_execution_time computed when the query really
   * starts, after any queueing); others rely on the max_execution_time in `settings`.
   */
  deadline?: number;
}

export interface InsertOptions extends Omit<QueryOptions, 'external'> {
  /**
   * The rows as JSONEachRow text, sent byte for byte (the adapters ignore `rows` then). The router
   * passes the client's own lines: a value re-serialized from JSON.parse is not the value sent
   * (`1234567890123456789.0123456789` becomes `1234567890123456800`, `0.0000000001` becomes
   * `1e-10`, which 18.16 refuses).
   */
  jsonEachRow?: string;
  /** The rows as bytes in a text input format, each as the client sent it (the adapters ignore `rows` then). */
  data?: InsertData;
  /**
   * Parse the rows into a temporary table of the same structure and drop it: ClickHouse's own
   * verdict on every value (its code and text), with nothing committed.
   */
  checkOnly?: boolean;
}

/** The input formats an insert carries verbatim. */
export type InsertFormat = 'JSONEachRow' | 'CSV' | 'TabSeparated' | 'Native';

/** Rows as bytes: each row's bytes without its line end; the adapters end each with a newline (Native: whole blocks, joined as they are). */
export interface InsertData {
  format: InsertFormat;
  /** The statement's column list (absent: the table's insertable columns, in order). */
  columns?: readonly string[];
  rows: readonly Uint8Array[];
}

export interface QueryStatistics {
  elapsedMs: number;
  rowsRead: number;
  bytesRead: number;
}

export interface QueryResult {
  meta: ColumnMeta[];
  /** Rows as JSON objects; (U)Int64 and wider come back as strings (ClickHouse JSON conventions). */
  rows: Record<string, unknown>[];
  statistics: QueryStatistics;
}

/**
 * A table that exists for one raw query only (the final stage of a two-stage query reads the shards'
 * answers from such tables). Unlike an ExternalTable it may have any type, aggregate states
 * included: ClickHouse's external-data parameters cannot spell types with commas on every server,
 * so the adapters create it as a TEMPORARY table in a private session, which readonly=2 allows.
 */
export interface StageTable {
  name: string;
  columns: ColumnMeta[];
  /** The rows in `format` (no header): exact for every type in either. */
  data: Buffer;
  /**
   * More rows, TabSeparated, inserted after `data` one chunk at a time, in order, as each is ready (the
   * exchange's objects, fetched concurrently), so no adapter holds them all at once. A source's error is the query's.
   */
  parts?: AsyncIterable<Buffer>;
  /** TabSeparated when absent. */
  format?: StageFormat;
  /** The table exists already in `RawQueryOptions.session` (a kept stage): `data` is added to it. */
  kept?: boolean;
}

/** How a stage table's rows are written: TabSeparated (rows end in a newline), or RowBinary (one row per shard). */
export type StageFormat = 'TabSeparated' | 'RowBinary';

export interface RawQueryOptions extends QueryOptions {
  /** The ClickHouse output format; the answer is the engine's own bytes in it. */
  format: string;
  tables?: StageTable[];
  /** The session a keepRaw made: its kept tables are read there. Gone -> ClickHouseError 372 (SESSION_NOT_FOUND). */
  session?: string;
}

export interface KeepOptions extends QueryOptions {
  /** The temporary table the rows go into. */
  table: string;
  /** How long the session (and the table) may wait for the final stage, seconds of idleness. */
  sessionTimeoutS: number;
}

export interface KeptResult {
  session: string;
  /** The rows' names and types, as a TabSeparatedWithNamesAndTypes answer without rows. */
  header: Buffer;
  rows: number;
  statistics: QueryStatistics;
}

export interface RawResult {
  /** Exactly what the engine wrote (not necessarily UTF-8: binary formats, aggregate states). */
  bytes: Buffer;
  statistics: QueryStatistics;
}

/** A raw answer read as it arrives. */
export interface RawStream {
  /** The engine's bytes in chunks; rejects with a ClickHouseError when the answer fails after its start. */
  chunks: AsyncIterable<Uint8Array>;
}

export interface ClickHouseAccess {
  /** Run one SELECT and return all rows. Throws ClickHouseError on a server error. */
  query(sql: string, opts?: QueryOptions): Promise<QueryResult>;
  /** Run one SELECT and return the engine's output bytes in `opts.format`, byte for byte. */
  queryRaw(sql: string, opts: RawQueryOptions): Promise<RawResult>;
  /**
   * The same as queryRaw (without stage tables or a session), the bytes handed on as the engine
   * writes them: resolves when the engine has started the answer (an error before it rejects as
   * queryRaw does). Only engines that stream have it (embedded answers whole).
   */
  queryRawStream?(sql: string, opts: Omit<RawQueryOptions, 'tables' | 'session'>): Promise<RawStream>;
  /**
   * Run one SELECT into a temporary table of a new private session and keep it there (stage one on
   * the shard that will also run the final stage). Only engines with sessions have it.
   */
  keepRaw?(sql: string, opts: KeepOptions): Promise<KeptResult>;
  /** Run a statement that returns no rows (DDL, INSERT ... SELECT). */
  exec(sql: string, opts?: Omit<QueryOptions, 'external'>): Promise<void>;
  /** Insert rows (JSON objects) into a table, as one batch; with `opts.jsonEachRow`, that text verbatim instead. */
  insert(table: string, rows: Record<string, unknown>[], opts?: InsertOptions): Promise<void>;
  /**
   * Stop a running query by its id (KILL QUERY on a server; best effort embedded): with
   * `{ prefix: true }`, every query whose id starts with `queryId` (an attempt's several statements).
   */
  cancel(queryId: string, opts?: { prefix?: boolean }): Promise<void>;
  /**
   * Drop a table keepRaw kept in `session`, when its final stage will not come. A session or table
   * already gone is not an error. Only engines with sessions have it.
   */
  dropKept?(session: string, table: string): Promise<void>;
  ping(): Promise<boolean>;
  close(): Promise<void>;
  /** What this adapter talks to, for logs (never contains credentials). */
  readonly describe: string;
}

/** A ClickHouse server error, with the server's numeric code when it gave one. */
export class ClickHouseError extends Error {
  readonly chCode?: number;
  /**
   * 'server': ClickHouse said no; 'connection': could not reach it (nothing ran); 'aborted': cancelled
   * by us; 'died': the server dropped the connection while it held the query (it crashed or was
   * killed on it): never sent to another server, which the same query would take down too.
   */
  readonly kind: 'server' | 'connection' | 'aborted' | 'timeout' | 'died';
  constructor(message: string, kind: ClickHouseError['kind'], chCode?: number) {
    super(message);
    this.name = 'ClickHouseError';
    this.kind = kind;
    this.chCode = chCode;
  }
}
