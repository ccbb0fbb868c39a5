// A raw read over HTTP handed on as the server writes it (no wait_end_of_query), for answers that
// stream to their reader. ClickHouse sends 200 with the first block; an error found later (a
// timeout, a KILL, throwIf) is written into the body as its exception text, and the body then ends
// as if complete (seen on 18.16). So the last bytes are held back until the end and looked at: a
// trailing exception becomes the ClickHouseError it is, never part of an answer.
import { randomUUID } from 'node:crypto';
import type { RawQueryOptions, RawStream } from '../../core/clickhouse/port.js';
import { checkedFormat, trimStatement } from '../../core/clickhouse/sql-text.js';
import { serverError } from './errors.js';
import { postQueryStream, urlSettings, type HttpTarget } from './http-post.js';

/** How much of the end of an answer is held back to be read for an exception (a message fits). */
const HELD_BYTES = 64 * 1024;

/**
 * The exception ClickHouse appended at the end of an answer, if any: a line `Code: N, e.displayText()
 * = DB::Exception: ...` ending in `e.what() = ...` (18.16), or `Code: N. DB::Exception: ...` ending
 * in `(version ...)` (current versions), running to the end of the bytes.
 */
export function trailingException(tail: Buffer): string | undefined {
  const text = tail.toString('utf8');
  const end = /(?:, e\.what\(\) = [\w:]+|\(version [^\n]*\))\n?$/;
  if (!end.test(text)) return undefined;
  for (let at = text.lastIndexOf('Code: '); at >= 0; at = at === 0 ? -1 : text.lastIndexOf('Code: ', at - 1)) {
    if (at > 0 && text[at - 1] !== '\n') continue;
    const candidate = text.slice(at);
    if (/^Code: \d+[.,] (?:e\.displayText\(\) = )?DB::Exception: /.test(candidate)) return candidate;
  }
  return undefined;
}

async function* withoutTrailingException(body: AsyncIterable<Buffer>): AsyncGenerator<Uint8Array> {
  let held: Buffer = Buffer.alloc(0);
  for await (const c of body) {
    held = held.length === 0 ? c : Buffer.concat([held, c]);
    if (held.length > 2 * HELD_BYTES) {
      const out = held.subarray(0, held.length - HELD_BYTES);
      held = Buffer.from(held.subarray(held.length - HELD_BYTES));
      yield out;
    }
  }
  const exception = trailingException(held);
  if (exception !== undefined) throw serverError(exception);
  if (held.length > 0) yield held;
}

export async function queryRawStreamOverHttp(target: HttpTarget, sql: string, qo: Omit<RawQueryOptions, 'tables' | 'session'>): Promise<RawStream> {
  const format = checkedFormat(qo.format);
  const res = await postQueryStream(target, {
    sql: `${trimStatement(sql)}\nFORMAT ${format}`,
    queryId: qo.queryId ?? randomUUID(),
    settings: urlSettings(qo.settings, false),
    external: qo.external ?? [],
    signal: qo.signal,
  });
  return { chunks: withoutTrailingException(res.chunks) };
}
