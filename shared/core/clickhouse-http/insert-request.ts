// What an INSERT request carries besides its statement: the data as the bytes sent, and the
// answer's format, checked before anything is written.
import { ChHttpError } from './exception.js';
import type { ChRequest } from './request.js';

/**
 * The data after the statement head (`dataOffset` characters into `req.text`), as bytes. The head is
 * the same text in both; a head that is not UTF-8 would put the two offsets apart, so it is refused.
 */
export function insertData(req: ChRequest, dataOffset: number): Buffer {
  const head = Buffer.from(req.text.slice(0, dataOffset), 'utf8');
  if (!req.bytes) return Buffer.from(req.text.slice(dataOffset), 'utf8');
  if (!req.bytes.subarray(0, head.length).equals(head)) throw new ChHttpError(62, 'Syntax error: the INSERT statement before its data is not UTF-8 text');
  return req.bytes.subarray(head.length);
}

/** default_format as the answer's X-ClickHouse-Format: a format name, else 73 before anything is written. */
export function headerSafeFormat(name: string): string {
  if (!/^[A-Za-z][A-Za-z0-9_]{0,63}$/.test(name)) throw new ChHttpError(73, `Unknown format ${JSON.stringify(name.slice(0, 64))}`);
  return name;
}
