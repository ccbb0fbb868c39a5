// The statement texts both adapters send for an insert of rows as bytes (InsertData): the INSERT
// head, the body, and the temporary copy a check-only insert parses the rows into.
import { backquote } from '../sql/quote.js';
import type { InsertData } from './port.js';

const NEWLINE = Buffer.from('\n');

/** The temporary table a check-only insert parses the rows into (private to its session or queue slot). */
export const CHECK_TABLE = '_insert_check';

/** The rows, each ended by a newline, as one body (Native's blocks follow each other). */
export function insertBody(data: InsertData): Buffer {
  if (data.format === 'Native') return Buffer.concat(data.rows);
  return Buffer.concat(data.rows.flatMap((r) => [r, NEWLINE]));
}

/** ` (a, b)` for the statement's columns, '' for none. */
export function columnsClause(data: InsertData): string {
  return data.columns && data.columns.length > 0 ? ` (${data.columns.map(backquote).join(', ')})` : '';
}

/** `INSERT INTO table (cols) FORMAT f`, the data to follow. */
export function insertHead(table: string, data: InsertData): string {
  return `INSERT INTO ${table}${columnsClause(data)} FORMAT ${data.format}`;
}

/**
 * A temporary Memory table with `table`'s columns, types and defaults: an insert into it parses
 * exactly as one into `table` does (18.16 and current engines both take this form).
 */
export function checkCopyDdl(name: string, table: string): string {
  return `CREATE TEMPORARY TABLE ${name} AS ${table} ENGINE = Memory`;
}
