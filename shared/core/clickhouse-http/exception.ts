// Errors as ClickHouse's HTTP interface writes them: its HTTP status for the code, the
// X-ClickHouse-Exception-Code header, and the body `Code: N. DB::Exception: <message>. (NAME)`,
// which is what ClickHouse's clients parse into their typed errors (@clickhouse/client matches
// `Code: (\d+).*Exception: (.+?)\(([A-Z0-9_]+)\)`). The code for each ch-scatter error is chosen
// here, once, from the project's code table (shared/core/clickhouse/error-codes.ts).
import { ScatterError, type ErrorCode } from '../errors.js';
import { clickHouseErrorName, withoutQueryText } from '../clickhouse/error-codes.js';
import { ClickHouseError } from '../clickhouse/port.js';

/** An error raised by the interface itself, already in ClickHouse's terms. */
export class ChHttpError extends Error {
  readonly chCode: number;
  constructor(chCode: number, message: string) {
    super(message);
    this.name = 'ChHttpError';
    this.chCode = chCode;
  }
}

export interface ChException {
  code: number;
  name: string;
  message: string;
  status: number;
}

/** ch-scatter's error codes in ClickHouse's numbers, for errors that carry no ClickHouse code of their own. */
const CODE_OF: Record<ErrorCode, number> = {
  BAD_REQUEST: 36, // BAD_ARGUMENTS
  BAD_CURSOR: 36,
  SYNTAX_ERROR: 62,
  UNSUPPORTED: 48, // NOT_IMPLEMENTED
  UNKNOWN_TABLE: 60,
  TYPE_MISMATCH: 53,
  NOT_READ_ONLY: 164, // READONLY
  UNABLE_TO_SKIP_SHARDS: 507,
  TOO_LARGE: 396, // TOO_MANY_ROWS_OR_BYTES
  TRANSFER_LIMIT: 396,
  INCOMPLETE_RESULT: 279, // ALL_CONNECTION_TRIES_FAILED (159 when every missing shard timed out)
  SHARD_ERROR: 279,
  INTERNAL: 1001, // STD_EXCEPTION
  CONFIG_INVALID: 36,
  TIMEOUT: 159, // TIMEOUT_EXCEEDED
  QUERY_ERROR: 1001,
  LIMIT_EXCEEDED: 290,
  UNAUTHORIZED: 516, // AUTHENTICATION_FAILED
  TOO_MANY_QUERIES: 202, // TOO_MANY_SIMULTANEOUS_QUERIES
};

// ClickHouse's exceptionCodeToHTTPStatus (src/Server/HTTP/exceptionCodeToHTTPStatus.cpp), for the
// codes ch-scatter can answer. One deliberate difference: AUTHENTICATION_FAILED is 401, not 403,
// so that an HTTP client asks for credentials again.
const BAD_REQUEST = [36, 6, 25, 26, 38, 41, 72, 27, 376, 441, 442, 44, 37, 8, 167, 168, 62, 117, 53, 321];
const NOT_FOUND = [60, 46, 47, 50, 81, 115, 63, 73];
export function statusOf(code: number): number {
  if (code === 516 || code === 194) return 401;
  if (code === 192 || code === 193 || code === 497) return 403;
  if (BAD_REQUEST.includes(code)) return 400;
  if (NOT_FOUND.includes(code)) return 404;
  if (code === 48) return 501;
  if (code === 209) return 503;
  if (code === 159) return 408;
  // Load shed at arrival: 429 tells a client or proxy to come back, where ClickHouse's 500 would read as a failure.
  if (code === 202) return 429;
  return 500;
}

function fromDetails(e: ScatterError): number | undefined {
  const ch = (e.details as { clickhouse?: { code?: unknown } } | undefined)?.clickhouse;
  return typeof ch?.code === 'number' ? ch.code : undefined;
}

/** "Code: 47 ... DB::Exception: Missing columns ..." quoted inside a ch-scatter message -> the inner text. */
function innerMessage(message: string): string {
  const m = /DB::Exception: (.*?)(?:\s*\([A-Z0-9_]{3,}\))?(?: \(version [^)]*\))?\s*$/s.exec(message);
  return m ? m[1]! : message;
}

/** Any thrown value in ClickHouse's terms. Internal errors say nothing of their cause. */
export function toChException(e: unknown): ChException {
  let code: number;
  let message: string;
  if (e instanceof ChHttpError) {
    code = e.chCode;
    message = e.message;
  } else if (e instanceof ClickHouseError) {
    // From a shard's engine (a catalog query): its own code; a server that died on the query is
    // 210 NETWORK_ERROR (what a ClickHouse client says then), an unreachable shard 279.
    code = e.chCode ?? (e.kind === 'timeout' ? 159 : e.kind === 'died' ? 210 : 279);
    message = e.chCode !== undefined ? withoutQueryText(innerMessage(e.message)) : e.message;
  } else if (e instanceof ScatterError) {
    const own = fromDetails(e);
    if (own !== undefined) {
      code = own;
      message = e.code === 'QUERY_ERROR' || e.code === 'LIMIT_EXCEEDED' ? withoutQueryText(innerMessage(e.message)) : e.message;
    } else {
      code = CODE_OF[e.code];
      if (e.code === 'INCOMPLETE_RESULT') {
        const missing = (e.details as { shards?: { missing?: { reason?: string }[] } } | undefined)?.shards?.missing ?? [];
        if (missing.length > 0 && missing.every((m) => m.reason === 'timeout')) code = 159;
      }
      message = e.code === 'INTERNAL' ? 'internal error' : e.message;
    }
  } else {
    code = 1001;
    message = 'internal error';
  }
  return { code, name: clickHouseErrorName(code), message, status: statusOf(code) };
}

/** The body ClickHouse writes for an exception: the message unchanged, a full stop added where it has none. */
export function exceptionBody(x: ChException, version?: string): string {
  // ClickHouse writes a message's own `(UPPER_CASE)` as it is (a client matching the first one reads it as the
  // name, against ClickHouse too); the code and the X-ClickHouse-Exception-Code header are what tell the error.
  const text = x.message.endsWith('.') ? x.message : `${x.message}.`;
  return `Code: ${x.code}. DB::Exception: ${text} (${x.name})${version ? ` (version ${version})` : ''}\n`;
}
