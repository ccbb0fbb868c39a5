// INSERT data in the three formats the interface takes, cut into rows as bytes: each row goes to its
// shard exactly as the client sent it (ClickHouse parses it there), and only the sharding key's field
// is decoded here, to the bytes ClickHouse will store for it (placement hashes those). Nothing is
// decoded as UTF-8 text: a byte that is not UTF-8 stays that byte.
import type { InsertFormat } from '../clickhouse/port.js';
import { ChHttpError } from './exception.js';
import { csvRows } from './insert-csv.js';
import { jsonKeyOf } from './insert-json.js';
import { tsvKeyOf } from './insert-tsv.js';

export const INSERT_FORMATS = ['JSONEachRow', 'CSV', 'TabSeparated', 'TSV', 'Native'] as const;

/** One row: its bytes (no line end), its 1-based number, and its key field (undefined: absent, null: NULL). */
export interface DataRow {
  bytes: Buffer;
  line: number;
  key: unknown;
}

const NL = 0x0a;

/** Lines without their `\n` (a last empty line is no row). */
function lines(data: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let start = 0;
  for (;;) {
    const end = data.indexOf(NL, start);
    if (end < 0) {
      if (start < data.length) out.push(data.subarray(start));
      return out;
    }
    out.push(data.subarray(start, end));
    start = end + 1;
  }
}

/** The sharding key's value as a value of its column: the stored bytes for a string type, else the field's text. */
function keyValue(field: Buffer | null | undefined, keyIsString: boolean): unknown {
  if (field === undefined || field === null) return field;
  return keyIsString ? field : field.toString('latin1');
}

/**
 * The rows of `data` in `format`. `columns` are the statement's (or the table's insertable ones,
 * in order); `key` names the sharding key column, `keyIsString` whether its type stores bytes.
 */
export function splitInsertData(format: InsertFormat, data: Buffer, columns: readonly string[], key: string, keyIsString: boolean): DataRow[] {
  if (format === 'JSONEachRow') {
    const out: DataRow[] = [];
    lines(data).forEach((bytes, i) => {
      if (/^\s*$/.test(bytes.toString('latin1'))) return;
      out.push({ bytes, line: i + 1, key: jsonKeyOf(bytes, key, keyIsString, i + 1) });
    });
    return out;
  }
  const at = columns.indexOf(key);
  if (format === 'TabSeparated')
    return lines(data).map((bytes, i) => ({ bytes, line: i + 1, key: at < 0 ? undefined : keyValue(tsvKeyOf(bytes, at, i + 1), keyIsString) }));
  return csvRows(data, at).map((r, i) => ({ bytes: r.bytes, line: i + 1, key: keyValue(r.key, keyIsString) }));
}

/** The format as the adapters name it (TSV is TabSeparated), or 48 for one the interface does not take. */
export function insertFormatOf(name: string): InsertFormat {
  const f = name === 'TSV' ? 'TabSeparated' : name;
  if (!(INSERT_FORMATS as readonly string[]).includes(f))
    throw new ChHttpError(48, `INSERT ... FORMAT ${name} is not supported; use JSONEachRow, CSV, TabSeparated or Native`);
  return f as InsertFormat;
}
