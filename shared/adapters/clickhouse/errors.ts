// Turning what an engine or server said into a ClickHouseError with its numeric code, for
// every error text form we meet: 18.16 (`Code: 60, e.displayText() = DB::Exception: ...`),
// newer servers and chdb (`Code: 60. DB::Exception: ...`).
import { ClickHouseError } from '../../core/clickhouse/port.js';
import { classOf, parseClickHouseCode } from '../../core/clickhouse/error-codes.js';

/** A server-side error message as a ClickHouseError with the right kind. */
export function serverError(message: string, code = parseClickHouseCode(message)): ClickHouseError {
  // 159 TIMEOUT_EXCEEDED (max_execution_time, the deadline, fired) is a late shard; 394 a KILL (ours,
  // at the deadline). TOO_SLOW (160) is not: ClickHouse estimated the query cannot finish in time,
  // a limit the user's query hit (shared/core/clickhouse/error-codes.ts).
  const cls = classOf(code, message);
  const kind = cls === 'timeout' ? 'timeout' : cls === 'cancelled' ? 'aborted' : 'server';
  // 18.16 appends `, e.what() = DB::Exception`: noise for a reader.
  return new ClickHouseError(message.trim().replace(/, e\.what\(\) = [\w:]+$/, ''), kind, code);
}

export function abortedError(what = 'query aborted'): ClickHouseError {
  return new ClickHouseError(what, 'aborted');
}

export function connectionError(message: string): ClickHouseError {
  return new ClickHouseError(message, 'connection');
}

/** The server took the query and closed the connection without an answer (docs/operations.md#a-server-that-dies-on-a-query). */
export function serverDiedError(message: string): ClickHouseError {
  return new ClickHouseError(`ClickHouse closed the connection during the query (the server may have crashed on it): ${message}`, 'died');
}

/** Whatever a request or the client threw, as a ClickHouseError of the right kind. */
export function toClickHouseError(e: unknown, signal?: AbortSignal): ClickHouseError {
  if (e instanceof ClickHouseError) return e;
  const err = e as { message?: string; code?: string | number; name?: string; cause?: { code?: string } };
  const message = String(err?.message ?? e);
  if (signal?.aborted || err?.name === 'AbortError' || (/aborted/i.test(message) && !/Code: \d+/.test(message))) return abortedError(message);
  const sysCode = typeof err?.code === 'string' ? err.code : err?.cause?.code;
  if (sysCode && /^(ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENOTFOUND|ETIMEDOUT|EPIPE|EAI_AGAIN|UND_ERR_SOCKET)$/.test(sysCode)) {
    return connectionError(`cannot reach ClickHouse: ${message}`);
  }
  if (/timeout/i.test(message) && parseClickHouseCode(message) === undefined) return new ClickHouseError(message, 'timeout');
  const chCode = parseClickHouseCode(message) ?? (typeof err?.code === 'string' && /^\d+$/.test(err.code) ? Number(err.code) : undefined);
  if (chCode === undefined && /socket hang up|ECONNREFUSED|connect/i.test(message)) return connectionError(message);
  return serverError(message, chCode);
}
