// The text formats whose first line names the columns: TabSeparated's and CSV's WithNames kin (and
// the types' line after it in the WithNamesAndTypes ones), Markdown's header row, and TSKV, which names
// each field of every row. Values never hold a raw line break (TabSeparated escapes it, TSKV too), so a
// line is a row; CSV's quoted names are read as CSV reads them.
import type { SettingValue } from '../clickhouse/port.js';
import type { Span } from './json-spans.js';
import { copyAlike, notRenamed, type Renamer, type Renaming } from './renaming.js';

/** The first line's span (without its \n, or \r\n) and where the next starts. */
function line(bytes: Buffer, from: number, names: string[]): { at: Span; next: number } {
  const nl = bytes.indexOf(0x0a, from);
  if (nl < 0) throw notRenamed(names);
  return { at: { start: from, end: bytes[nl - 1] === 0x0d ? nl - 1 : nl }, next: nl + 1 };
}

/** The fields of a line cut at every `sep` byte sequence. */
function fields(bytes: Buffer, at: Span, sep: string): Span[] {
  const s = Buffer.from(sep);
  const out: Span[] = [];
  let start = at.start;
  for (let i = bytes.indexOf(s, start); i >= 0 && i < at.end; i = bytes.indexOf(s, start)) {
    out.push({ start, end: i });
    start = i + s.length;
  }
  out.push({ start, end: at.end });
  return out;
}

const unescapeTsv = (t: string) => t.replace(/\\(.)/g, (_m, c: string) => ({ t: '\t', n: '\n', r: '\r', '0': '\0', b: '\b', f: '\f' })[c] ?? c);

/** TabSeparated's header: names escaped, so a tab is a field's end; the Raw kin write them raw, which a name's tab or line break makes ambiguous. */
const tabSeparated =
  (typed: boolean, raw = false): Renamer =>
  (bytes, names) => {
    if (raw && names.some((n) => /[\t\n\r]/.test(n))) throw notRenamed(names, undefined, 'the format writes names raw, and a name holds a tab or a line break');
    const head = line(bytes, 0, names);
    const r: Renaming = { replace: [] };
    copyAlike(bytes, fields(bytes, head.at, '\t'), names, r.replace);
    if (typed) {
      const types = line(bytes, head.next, names);
      r.types = fields(bytes, types.at, '\t').map((f) => unescapeTsv(bytes.toString('utf8', f.start, f.end)));
      r.rowsAt = types.next;
    }
    return r;
  };

/** CSV's fields on one line: quoted ("" for a quote) or bare, cut at the delimiter. */
function csvFields(bytes: Buffer, from: number, delimiter: number, names: string[]): { fields: Span[]; texts: string[]; next: number } {
  const out: Span[] = [];
  const texts: string[] = [];
  let i = from;
  for (;;) {
    const start = i;
    let text = '';
    if (bytes[i] === 0x22) {
      for (i++; ; i++) {
        if (i >= bytes.length) throw notRenamed(names);
        if (bytes[i] === 0x22) {
          if (bytes[i + 1] !== 0x22) break;
          i++;
        }
      }
      i++;
      text = bytes.toString('utf8', start + 1, i - 1).replaceAll('""', '"');
    } else {
      while (i < bytes.length && bytes[i] !== delimiter && bytes[i] !== 0x0a && bytes[i] !== 0x0d) i++;
      text = bytes.toString('utf8', start, i);
    }
    out.push({ start, end: i });
    texts.push(text);
    if (bytes[i] === delimiter) i++;
    else if (bytes[i] === 0x0d && bytes[i + 1] === 0x0a) return { fields: out, texts, next: i + 2 };
    else if (bytes[i] === 0x0a) return { fields: out, texts, next: i + 1 };
    else throw notRenamed(names);
  }
}

function csvDelimiter(settings: Readonly<Record<string, SettingValue>>, names: string[]): number {
  const d = settings.format_csv_delimiter;
  if (d === undefined) return 0x2c;
  const b = Buffer.from(String(d));
  if (b.length !== 1) throw notRenamed(names);
  return b[0]!;
}

const csv =
  (typed: boolean): Renamer =>
  (bytes, names, settings) => {
    const delimiter = csvDelimiter(settings, names);
    const head = csvFields(bytes, 0, delimiter, names);
    const r: Renaming = { replace: [] };
    copyAlike(bytes, head.fields, names, r.replace);
    if (typed) {
      const types = csvFields(bytes, head.next, delimiter, names);
      r.types = types.texts;
      r.rowsAt = types.next;
    }
    return r;
  };

/** CustomSeparated writes TabSeparated's header unless its delimiters or escaping are set. */
const customSeparated =
  (typed: boolean): Renamer =>
  (bytes, names, settings) => {
    if (Object.keys(settings).some((s) => s.toLowerCase().startsWith('format_custom_'))) throw notRenamed(names);
    return tabSeparated(typed)(bytes, names, settings);
  };

/** Markdown: `| a | b |` then the alignment row; a name holding " | " makes the count wrong and is refused. */
const markdown: Renamer = (bytes, names) => {
  const head = line(bytes, 0, names).at;
  const text = bytes.toString('latin1', head.start, head.end);
  if (!text.startsWith('| ') || !text.endsWith(' |')) throw notRenamed(names);
  const r: Renaming = { replace: [] };
  copyAlike(bytes, fields(bytes, { start: head.start + 2, end: head.end - 2 }, ' | '), names, r.replace);
  return r;
};

/** TSKV: `name=value` fields, tab-separated, on every row; a name's `=` is escaped, so its first bare `=` ends it. */
const tskv: Renamer = (bytes, names) => {
  const r: Renaming = { replace: [] };
  for (let from = 0; from < bytes.length; ) {
    const { at, next } = line(bytes, from, names);
    from = next;
    if (at.end === at.start) continue;
    const keys = fields(bytes, at, '\t').map((f) => {
      for (let i = f.start; i < f.end; i++) {
        if (bytes[i] === 0x5c) i++;
        else if (bytes[i] === 0x3d) return { start: f.start, end: i };
      }
      throw notRenamed(names);
    });
    copyAlike(bytes, keys, names, r.replace);
  }
  return r;
};

/**
 * SQLInsert: `INSERT INTO table (`a`, `b`) VALUES ...;` a statement per batch, each starting a line (a value's
 * line break is escaped); names between backquotes. Unquoted names (a setting) could hold the list's commas and
 * are refused; without the column list nothing is named.
 */
const sqlInsert: Renamer = (bytes, names, settings) => {
  const r: Renaming = { replace: [] };
  const truth = (v: unknown) => v === undefined || !/^(0|false)$/i.test(String(v));
  if (!truth(settings.output_format_sql_insert_include_column_names)) return r;
  // ClickHouse writes a name between backquotes as it is (a backquote in it unescaped): one with a backquote is ambiguous.
  if (!truth(settings.output_format_sql_insert_quote_names) || names.some((n) => n.includes('`')))
    throw notRenamed(names, undefined, 'its names are written unquoted or unescaped');
  for (let at = 0; at < bytes.length; ) {
    const { next } = line(bytes, at, names);
    // No rows: the statement's end alone.
    if (next - at === 2 && bytes[at] === 0x3b) {
      at = next;
      continue;
    }
    if (bytes.toString('latin1', at, at + 12) !== 'INSERT INTO ') throw notRenamed(names);
    let i = bytes.indexOf(' (`', at);
    if (i < 0 || i >= next) throw notRenamed(names);
    const slots: Span[] = [];
    for (i += 2; ; ) {
      const start = i;
      i = bytes.indexOf(0x60, i + 1);
      if (i < 0 || i >= next) throw notRenamed(names);
      slots.push({ start, end: ++i });
      if (bytes.toString('latin1', i, i + 3) === ', `') i += 2;
      else if (bytes.toString('latin1', i, i + 9) === ') VALUES ') break;
      else throw notRenamed(names);
    }
    copyAlike(bytes, slots, names, r.replace);
    at = next;
  }
  return r;
};

export const TEXT_RENAMERS: Record<string, Renamer> = {
  TabSeparatedWithNames: tabSeparated(false),
  TSVWithNames: tabSeparated(false),
  TabSeparatedWithNamesAndTypes: tabSeparated(true),
  TSVWithNamesAndTypes: tabSeparated(true),
  TabSeparatedRawWithNames: tabSeparated(false, true),
  TSVRawWithNames: tabSeparated(false, true),
  RawWithNames: tabSeparated(false, true),
  TabSeparatedRawWithNamesAndTypes: tabSeparated(true, true),
  TSVRawWithNamesAndTypes: tabSeparated(true, true),
  RawWithNamesAndTypes: tabSeparated(true, true),
  LineAsStringWithNames: tabSeparated(false, true),
  LineAsStringWithNamesAndTypes: tabSeparated(true, true),
  CustomSeparatedWithNames: customSeparated(false),
  CustomSeparatedWithNamesAndTypes: customSeparated(true),
  CSVWithNames: csv(false),
  CSVWithNamesAndTypes: csv(true),
  Markdown: markdown,
  MD: markdown,
  TSKV: tskv,
  SQLInsert: sqlInsert,
};
