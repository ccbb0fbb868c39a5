// CSV rows as ClickHouse reads them with its defaults: `"` quotes a field (`""` inside quotes),
// spaces and tabs around a field are not part of it, an unquoted `\N` is NULL (an unquoted `NULL`
// in a String column is the text NULL), a row ends at `\n` or `\r\n` outside quotes.
// A field that starts with `'` is refused: ClickHouse versions differ on whether it quotes
// (format_csv_allow_single_quotes), so where its row ends could not be known.
import { ChHttpError } from './exception.js';

const QUOTE = 0x22;
const APOSTROPHE = 0x27;
const COMMA = 0x2c;
const CR = 0x0d;
const NL = 0x0a;
const isBlank = (c: number | undefined) => c === 0x20 || c === 0x09;

const parseError = (what: string, line: number) => new ChHttpError(27, `Cannot parse input: ${what} (at row ${line})`);

/** A row's bytes (without its `\n`) and field `at`'s value (null: `\N`; undefined: the row has fewer fields). */
export interface CsvRow {
  bytes: Buffer;
  key: Buffer | null | undefined;
}

/** The rows of CSV data with the value of field `at` of each (at < 0: none wanted). */
export function csvRows(data: Buffer, at: number): CsvRow[] {
  const rows: CsvRow[] = [];
  const n = data.length;
  let i = 0;
  while (i < n) {
    const start = i;
    const line = rows.length + 1;
    let key: Buffer | null | undefined;
    for (let k = 0; ; k++) {
      while (i < n && isBlank(data[i])) i++;
      let value: Buffer | null;
      if (data[i] === QUOTE) {
        const out: number[] = [];
        for (i++; ; i++) {
          if (i >= n) throw parseError('a quoted CSV field is not closed', line);
          if (data[i] === QUOTE) {
            if (data[i + 1] !== QUOTE) break;
            i++;
          }
          if (k === at) out.push(data[i]!);
        }
        i++;
        while (i < n && isBlank(data[i])) i++;
        value = k === at ? Buffer.from(out) : null;
      } else {
        if (data[i] === APOSTROPHE)
          throw parseError('a CSV field starts with \', which ClickHouse versions read differently (format_csv_allow_single_quotes); quote it with "', line);
        let j = i;
        while (j < n && data[j] !== COMMA && data[j] !== NL && data[j] !== CR) j++;
        let last = j;
        while (last > i && isBlank(data[last - 1])) last--;
        const field = data.subarray(i, last);
        value = field.length === 2 && field[0] === 0x5c && field[1] === 0x4e ? null : field;
        i = j;
      }
      if (k === at) key = value;
      if (data[i] === COMMA) {
        i++;
        continue;
      }
      if (data[i] === CR && (i + 1 >= n || data[i + 1] === NL)) i++;
      if (i >= n || data[i] === NL) break;
      throw parseError(`expected ',' or the end of a line at byte ${i + 1} of the CSV data`, line);
    }
    rows.push({ bytes: data.subarray(start, i), key });
    i++;
  }
  return rows;
}
