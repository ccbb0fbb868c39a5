// Reading a ClickHouse FORMAT JSON body (meta, data, statistics) into a QueryResult, without losing
// a value: Decimal digits beyond a double and bytes that are not UTF-8 are kept exactly
// (shared/core/protocol/exact-json.ts). Shared by both adapters; statistics come from the body, the
// engine's own read counters.
import type { ColumnMeta, QueryResult } from '../../core/clickhouse/port.js';
import { decodeBody, escapeStringsDeep, hasNegativeZero, needsExactNumbers, quoteInexactNumbers } from '../../core/protocol/exact-json.js';

interface JsonFormatBody {
  meta: ColumnMeta[];
  data: Record<string, unknown>[];
  statistics?: { elapsed?: number; rows_read?: number; bytes_read?: number };
}

/** A FORMAT JSON body (its bytes, or text already known to be UTF-8) as a QueryResult. */
export function parseJsonResult(body: string | Uint8Array, fallbackElapsedSec = 0, opts: { decimalsQuoted?: boolean } = {}): QueryResult {
  const { text, escaped } = typeof body === 'string' ? { text: body, escaped: false } : decodeBody(body);
  let parsed = parseDocument(text);
  // The meta comes first: when a column type holds a number a double cannot carry, read again
  // with those numbers as their own text (the common case pays nothing). Measured on a 1.5 MB body
  // of 20,000 Decimal values: JSON.parse 17 ms, the quoting pass and parse 43 ms; a server that
  // quotes Decimals itself (output_format_json_quote_decimals, not on 18.16) saves the pass.
  if ((!opts.decimalsQuoted && needsExactNumbers(parsed.meta.map((m) => m.type))) || hasNegativeZero(text)) parsed = parseDocument(quoteInexactNumbers(text));
  const st = parsed.statistics ?? {};
  const rows = escaped ? (escapeStringsDeep(parsed.data) as Record<string, unknown>[]) : parsed.data;
  return {
    meta: parsed.meta.map((m) => ({ name: m.name, type: m.type })),
    rows,
    statistics: {
      elapsedMs: Number(st.elapsed ?? fallbackElapsedSec) * 1000,
      rowsRead: Number(st.rows_read ?? 0),
      bytesRead: Number(st.bytes_read ?? 0),
    },
  };
}

/**
 * FORMAT JSON (and JSONCompact) rewrite bytes that are not UTF-8 as U+FFFD, on 18.16 as on current
 * versions (current documentation of output_format_json_validate_utf8: "JSON/JSONCompact ... always
 * validate"), so two values that differ only in those bytes would merge on the coordinator. Only a
 * body that holds U+FFFD can have lost them; the adapters then read the rows again as JSONEachRow,
 * which writes the raw bytes (measured on 18.16 and chdb), with the column types of the first read.
 */
export const RAW_STRINGS_FORMAT = 'JSONEachRow';
const REPLACEMENT = Buffer.from('\uFFFD', 'utf8');

/** Whether a FORMAT JSON body may have had bytes replaced (it holds U+FFFD). */
export function mayHaveReplacedBytes(body: Uint8Array): boolean {
  return Buffer.from(body.buffer, body.byteOffset, body.byteLength).indexOf(REPLACEMENT) >= 0;
}

/** Rows of a JSONEachRow body of columns `meta`, read as exactly as parseJsonResult reads. */
export function parseEachRowRows(body: Uint8Array, meta: ColumnMeta[], opts: { decimalsQuoted?: boolean } = {}): Record<string, unknown>[] {
  const { text, escaped } = decodeBody(body);
  const exact = !opts.decimalsQuoted && needsExactNumbers(meta.map((m) => m.type));
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      const row = JSON.parse(exact || hasNegativeZero(l) ? quoteInexactNumbers(l) : l) as Record<string, unknown>;
      return escaped ? (escapeStringsDeep(row) as Record<string, unknown>) : row;
    });
}

function parseDocument(text: string): JsonFormatBody {
  try {
    return JSON.parse(text) as JsonFormatBody;
  } catch (e) {
    // Defence in depth for the chdb leftover-output quirk: the real document is the last one.
    const at = text.lastIndexOf('\n{\n');
    if (at < 0) throw e;
    return JSON.parse(text.slice(at + 1)) as JsonFormatBody;
  }
}
