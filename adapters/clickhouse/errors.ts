// Turning what an engine or server said into a ClickHouseError with its numeric code, for
// every error text form we meet: 18.16 (`Code: 60, e.displayText() = DB::Exception: ...`),
// newer servers and chdb (`Code: 60. DB::Exception: ...`).
import { ClickHouseError } from '../../core/clickhouse/port.js';

const CODE_PATTERNS = [/^\s*Code: (\d+), e\.displayText\(\) = /, /^\s*Code: (\d+)\. /, /Code: (\d+)[.,] /];

export function parseClickHouseCode(message: string): number | undefined {
  for (const re of CODE_PATTERNS) {
    const m = re.exec(message);
    if (m) return Number(m[1]);
  }
  return undefined;
}

// 159 TIMEOUT_EXCEEDED, 160 TOO_SLOW (estimated too slow): max_execution_time fired.
const TIMEOUT_CODES = new Set([159, 160]);
// 394 QUERY_WAS_CANCELLED: someone KILLed it (we, at the deadline).
const CANCELLED_CODES = new Set([394]);

/** A server-side error message as a ClickHouseError with the right kind. */
export function serverError(message: string, code = parseClickHouseCode(message)): ClickHouseError {
  const kind = code !== undefined && TIMEOUT_CODES.has(code) ? 'timeout' : code !== undefined && CANCELLED_CODES.has(code) ? 'aborted' : 'server';
  // 18.16 appends `, e.what() = DB::Exception`: noise for a reader.
  return new ClickHouseError(message.trim().replace(/, e\.what\(\) = [\w:]+$/, ''), kind, code);
}

export function abortedError(what = 'query aborted'): ClickHouseError {
  return new ClickHouseError(what, 'aborted');
}

export function connectionError(message: string): ClickHouseError {
  return new ClickHouseError(message, 'connection');
}
