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
  Object.entries({ ...JSON_RENAMERS, ...TEXT_RENAMERS, ...BINARY_RENAMERS, ...PRETTY_RENAMERS, ...XML_RENAMERS }).map(
    ([f, r]) => [f.toLowerCase(), r] as const,
  ),
);

/** Whether an answer in `format` can carry two columns of one name exactly (format names compared as ClickHouse compares them). */
export function renamesFormat(format: string): boolean {
  const f = format.trim().toLowerCase();
  return NAMELESS.has(f) || RENAMERS.has(f);
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
