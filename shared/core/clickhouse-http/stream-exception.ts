// How ClickHouse (25.11 and later) ends a 200 answer whose query failed after the first byte: the
// response announces a random tag in X-ClickHouse-Exception-Tag, and the body ends with a block
// that names the tag on both sides of the exception text and gives the text's length, so a client
// tells it from row data and raises it.
import { randomBytes } from 'node:crypto';
import { exceptionBody, toChException } from './exception.js';

export const EXCEPTION_TAG_HEADER = 'x-clickhouse-exception-tag';

/** 16 lower-case letters, as the server draws them. */
export function exceptionTag(): string {
  return [...randomBytes(16)].map((b) => String.fromCharCode(97 + (b % 26))).join('');
}

/** `\r\n__exception__\r\n<tag>\r\n<text>\n<length of text and its newline> <tag>\r\n__exception__\r\n` */
export function streamExceptionBlock(e: unknown, tag: string, version?: string): Buffer {
  const text = exceptionBody(toChException(e), version).replace(/\n$/, '');
  return Buffer.from(`\r\n__exception__\r\n${tag}\r\n${text}\n${Buffer.byteLength(text) + 1} ${tag}\r\n__exception__\r\n`);
}
