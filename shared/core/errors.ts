// The error a client sees. The core throws a few others where a caller must tell them apart
// (ConfigError, InvokeError, DeadlineExceeded, ClickHouseError, ChHttpError); the handlers map each
// to this one's codes or to ClickHouse's. Every failure a client can see carries a stable code
// (docs/api.md#2-http-api), an HTTP status and, for SQL problems, a 1-based line/column.
// Handlers turn it into `{ error: { code, message, position } }`; anything that is not a
// ScatterError becomes INTERNAL with a generic message (never a stack trace).

export type ErrorCode =
  | 'BAD_REQUEST'
  /** A pagination cursor this deployment did not issue, or altered. */
  | 'BAD_CURSOR'
  | 'SYNTAX_ERROR'
  | 'UNSUPPORTED'
  | 'UNKNOWN_TABLE'
  | 'TYPE_MISMATCH'
  | 'NOT_READ_ONLY'
  | 'UNABLE_TO_SKIP_SHARDS'
  | 'TOO_LARGE'
  | 'TRANSFER_LIMIT'
  | 'INCOMPLETE_RESULT'
  | 'SHARD_ERROR'
  | 'INTERNAL'
  | 'CONFIG_INVALID'
  | 'TIMEOUT'
  /** ClickHouse rejected the query itself (unknown column/function, bad types): the user's query, not a shard fault. */
  | 'QUERY_ERROR'
  /** The query went over a limit of its own (max_memory_usage, max_rows_to_group_by, TOO_SLOW...): ClickHouse's code is named. */
  | 'LIMIT_EXCEEDED'
  /** Users are configured and the request's credentials are missing or wrong (the same answer for every cause). */
  | 'UNAUTHORIZED'
  /** More queries at once than query.maxInFlightQueries: shed at arrival rather than answered late. */
  | 'TOO_MANY_QUERIES';

export interface SourcePosition {
  line: number; // 1-based
  column: number; // 1-based, in UTF-16 code units of the line
}

const STATUS: Record<ErrorCode, number> = {
  BAD_REQUEST: 400,
  BAD_CURSOR: 400,
  SYNTAX_ERROR: 400,
  UNSUPPORTED: 400,
  UNKNOWN_TABLE: 400,
  TYPE_MISMATCH: 400,
  NOT_READ_ONLY: 400,
  UNABLE_TO_SKIP_SHARDS: 400,
  TOO_LARGE: 413,
  TRANSFER_LIMIT: 413,
  INCOMPLETE_RESULT: 504,
  SHARD_ERROR: 502,
  INTERNAL: 500,
  CONFIG_INVALID: 400,
  TIMEOUT: 504,
  QUERY_ERROR: 400,
  LIMIT_EXCEEDED: 400,
  UNAUTHORIZED: 401,
  TOO_MANY_QUERIES: 429,
};

export class ScatterError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly position?: SourcePosition;
  /** Extra fields merged into the error body (e.g. `shards` for INCOMPLETE_RESULT). */
  readonly details?: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, opts: { position?: SourcePosition; details?: Record<string, unknown>; status?: number; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'ScatterError';
    this.code = code;
    this.status = opts.status ?? STATUS[code];
    this.position = opts.position;
    this.details = opts.details;
  }

  toBody(): { error: { code: ErrorCode; message: string; position?: SourcePosition } } & Record<string, unknown> {
    const error: { code: ErrorCode; message: string; position?: SourcePosition } = { code: this.code, message: this.message };
    if (this.position) error.position = this.position;
    return { error, ...(this.details ?? {}) };
  }
}

export function isScatterError(e: unknown): e is ScatterError {
  return e instanceof ScatterError;
}

/** Any thrown value as a client-safe error: ScatterErrors pass, the rest become INTERNAL. */
export function toClientError(e: unknown): ScatterError {
  if (isScatterError(e)) return e;
  return new ScatterError('INTERNAL', 'internal error', { cause: e });
}
