// The mean length of some String columns of a table over its first rows, read on one engine (the
// row-width estimate of query-then-fetch's `auto`, shared/core/plan/row-width.ts). Measured by a
// bounded read rather than from system.columns, whose data_uncompressed_bytes is 0 for compact parts.
import type { ClickHouseAccess } from './port.js';
import { backquote } from '../sql/quote.js';

/** Rows read to measure: enough for a mean, few enough to cost one small read per table. */
export const WIDTH_SAMPLE_ROWS = 10_000;

/** The measuring statement: each column's mean length over the table's first WIDTH_SAMPLE_ROWS rows. */
export function stringWidthsSql(local: string, columns: readonly string[]): string {
  const table = local.split('.').map(backquote).join('.');
  const means = columns.map((c, i) => `avg(length(${backquote(c)})) AS w${i}`).join(', ');
  return `SELECT ${means} FROM (SELECT ${columns.map(backquote).join(', ')} FROM ${table} LIMIT ${WIDTH_SAMPLE_ROWS})`;
}

/** Each column's mean length in bytes; a column of an empty table (a mean of nothing) is left out. */
export async function measureStringWidths(access: ClickHouseAccess, local: string, columns: readonly string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (!columns.length) return out;
  const r = await access.query(stringWidthsSql(local, columns));
  const row = r.rows[0] ?? {};
  columns.forEach((c, i) => {
    const v = row[`w${i}`];
    // NULL: every sampled value is NULL (4 bytes of JSON each, next to nothing).
    const n = v === null ? 0 : Number(v);
    if (Number.isFinite(n)) out.set(c, n);
  });
  return out;
}
