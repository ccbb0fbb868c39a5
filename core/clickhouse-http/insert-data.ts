// INSERT data in the three formats the interface takes, as JSONEachRow lines for the router (which
// routes by the sharding key, checks every row against the local table's types, and writes
// JSONEachRow). JSONEachRow passes through byte for byte; CSV and TabSeparated fields become JSON
// strings (ClickHouse's JSONEachRow reads numbers, dates and the like from strings), `\N` becomes
// null. Columns are the statement's list, else the table's insertable columns in order.
import { ChHttpError } from './exception.js';

export const INSERT_FORMATS = ['JSONEachRow', 'CSV', 'TabSeparated', 'TSV'] as const;

/** TabSeparated escapes as ClickHouse writes them. */
const TSV_ESCAPES: Record<string, string> = { t: '\t', n: '\n', r: '\r', '0': '\0', b: '\b', f: '\f', '\\': '\\', "'": "'", '"': '"', a: '\x07', v: '\v' };

function tsvField(f: string): string | null {
  if (f === '\\N') return null;
  if (!f.includes('\\')) return f;
  return f.replace(/\\(x[0-9a-fA-F]{2}|.)/gs, (_, c: string) => (c.length === 3 ? String.fromCharCode(parseInt(c.slice(1), 16)) : (TSV_ESCAPES[c] ?? c)));
}

function tsvRows(data: string): (string | null)[][] {
  return data
    .split('\n')
    .filter((l, i, all) => !(l === '' && i === all.length - 1))
    .map((l) => l.replace(/\r$/, '').split('\t').map(tsvField));
}

/** RFC 4180 with ClickHouse's defaults: `"` quotes, `""` inside quotes, `\N` (unquoted) is NULL. */
function csvRows(data: string): (string | null)[][] {
  const rows: (string | null)[][] = [];
  let row: (string | null)[] = [];
  let i = 0;
  const n = data.length;
  while (i < n) {
    let field: string | null;
    if (data[i] === '"') {
      let out = '';
      i++;
      for (;;) {
        if (i >= n) throw new ChHttpError(27, 'Cannot parse input: a quoted CSV field is not closed');
        if (data[i] === '"') {
          if (data[i + 1] === '"') {
            out += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        out += data[i++];
      }
      field = out;
    } else {
      let j = i;
      while (j < n && data[j] !== ',' && data[j] !== '\n' && data[j] !== '\r') j++;
      const raw = data.slice(i, j);
      field = raw === '\\N' || raw === 'NULL' ? null : raw;
      i = j;
    }
    row.push(field);
    if (data[i] === ',') {
      i++;
      if (i >= n) row.push('');
      continue;
    }
    if (data[i] === '\r') i++;
    if (data[i] === '\n' || i >= n) {
      rows.push(row);
      row = [];
      i++;
      continue;
    }
    throw new ChHttpError(27, `Cannot parse input: expected ',' or the end of a line at offset ${i} of the CSV data`);
  }
  return rows;
}

/** The data as JSONEachRow lines (no trailing newline). */
export function toJsonEachRow(format: string, data: string, columns: string[]): string {
  if (format === 'JSONEachRow') return data;
  const rows = format === 'CSV' ? csvRows(data) : tsvRows(data);
  return rows
    .map((r, i) => {
      if (r.length !== columns.length)
        throw new ChHttpError(27, `Cannot parse input: row ${i + 1} has ${r.length} field(s), expected ${columns.length} (${columns.join(', ')})`);
      const o: Record<string, string | null> = {};
      columns.forEach((c, k) => {
        o[c] = r[k]!;
      });
      return JSON.stringify(o);
    })
    .join('\n');
}
