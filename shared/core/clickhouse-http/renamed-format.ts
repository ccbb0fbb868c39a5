// The ClickHouse interface's bytes under the client's column names where the final stage named a later
// column of a taken name by a stage alias (one alias cannot name two expressions). In every format that
// carries names, each such column's name is written again as the engine wrote the earlier column of that
// name (its bytes copied, so the escaping is the engine's); a format that carries none is the engine's
// bytes as they are. Where the bytes do not have the layout expected, the answer is refused, not guessed at.
import type { SettingValue } from '../clickhouse/port.js';
import { refuseAlikeTypes } from '../scatter/two-stage/final-output.js';
import { JSON_RENAMERS } from './renamed-json.js';
import { TEXT_RENAMERS } from './renamed-text.js';
import { BINARY_RENAMERS } from './renamed-binary.js';
import { PRETTY_RENAMERS } from './renamed-pretty.js';
import { PRETTY_SPACE_RENAMERS } from './renamed-pretty-space.js';
import { VERTICAL_RENAMERS } from './renamed-vertical.js';
import { XML_RENAMERS } from './renamed-xml.js';
import { notRenamed, type Renamer } from './renaming.js';

/** Formats whose bytes name no column: the final stage's bytes are ClickHouse's as they are. */
const NAMELESS = new Set(
  [
    'TabSeparated',
    'TSV',
    'TabSeparatedRaw',
    'TSVRaw',
    'Raw',
    'CSV',
    'CustomSeparated',
    'Values',
    'RowBinary',
    'JSONCompactEachRow',
    'JSONCompactStringsEachRow',
    'JSONCompactColumns',
    'MsgPack',
    'Null',
    'Hash',
    'LineAsString',
    'RawBLOB',
    'Buffers',
  ].map((f) => f.toLowerCase()),
);

const RENAMERS: ReadonlyMap<string, Renamer> = new Map(
  Object.entries({
    ...JSON_RENAMERS,
    ...TEXT_RENAMERS,
    ...BINARY_RENAMERS,
    ...PRETTY_RENAMERS,
    ...PRETTY_SPACE_RENAMERS,
    ...VERTICAL_RENAMERS,
    ...XML_RENAMERS,
  }).map(([f, r]) => [f.toLowerCase(), r] as const),
);

/** Whether an answer in `format` can carry two columns of one name exactly (format names compared as ClickHouse compares them). */
export function renamesFormat(format: string): boolean {
  const f = format.trim().toLowerCase();
  return NAMELESS.has(f) || RENAMERS.has(f);
}

/**
 * The format whose answer is `format`'s bytes after a header of names and types (TabSeparated's, whose names are
 * escaped, and the Raw kin's where no name holds a tab or line break): asked of the engine instead, so the types
 * of a format that carries none are known (ClickHouse's 352), the header then cut off (withoutTypedHeader); CSV's and
 * LineAsString's only on an engine that has them (`newerEngine`).
 */
export function typedSibling(format: string, names: readonly string[], newerEngine = true): string | undefined {
  const f = format.trim().toLowerCase();
  if (f === 'tabseparated' || f === 'tsv') return 'TabSeparatedWithNamesAndTypes';
  const raw = names.some((n) => /[\t\n\r]/.test(n));
  if (!raw && (f === 'tabseparatedraw' || f === 'tsvraw' || f === 'raw')) return 'TabSeparatedRawWithNamesAndTypes';
  // CSV's and LineAsString's typed siblings are newer than 18.16, which has neither.
  if (newerEngine && f === 'csv') return 'CSVWithNamesAndTypes';
  if (newerEngine && !raw && f === 'lineasstring') return 'LineAsStringWithNamesAndTypes';
  return undefined;
}

/** A sibling whose header is another format's: LineAsString's names and types are lines of raw tab-separated fields. */
const HEADER_LIKE: Readonly<Record<string, string>> = { lineasstringwithnamesandtypes: 'tabseparatedrawwithnamesandtypes' };

/** The engine's bytes in `sibling` (typedSibling) without their header, once its types pass ClickHouse's check of alike names. */
export function withoutTypedHeader(bytes: Buffer, sibling: string, names: string[], settings: Readonly<Record<string, SettingValue>> = {}): Buffer {
  // chdb writes a WITH TOTALS answer without rows out of order: the totals (an empty line, then their row) before the
  // header. No line of names is empty, so an empty first line is that shape.
  const empty = bytes[0] === 0x0a ? 1 : bytes[0] === 0x0d && bytes[1] === 0x0a ? 2 : 0;
  const at = empty ? bytes.indexOf(0x0a, empty) + 1 : 0;
  if (empty && at === 0) throw notRenamed(names);
  const f = sibling.toLowerCase();
  const { types, rowsAt } = RENAMERS.get(HEADER_LIKE[f] ?? f)!(bytes.subarray(at), names, settings);
  refuseAlikeTypes(names, types!);
  return Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + rowsAt!)]);
}

/** The engine's bytes in `format`, each column named `names[i]`. */
export function withAnswerNamesIn(bytes: Buffer, format: string, names: string[], settings: Readonly<Record<string, SettingValue>> = {}): Buffer {
  const f = format.trim().toLowerCase();
  if (NAMELESS.has(f)) return bytes;
  const renamer = RENAMERS.get(f);
  if (!renamer) throw notRenamed(names, format);
  const { replace, types } = renamer(bytes, names, settings);
  if (types) refuseAlikeTypes(names, types);
  const sorted = [...replace].sort((a, b) => a.at.start - b.at.start);
  const out: Buffer[] = [];
  let pos = 0;
  for (const r of sorted) {
    out.push(bytes.subarray(pos, r.at.start), r.bytes);
    pos = r.at.end;
  }
  out.push(bytes.subarray(pos));
  return Buffer.concat(out);
}
