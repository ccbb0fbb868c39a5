// One renaming of an answer's bytes (renamed-format.ts): where the answer spells its column names, and
// what goes there. The renamers of each family of formats build it; the registry applies it.
import { ScatterError } from '../errors.js';
import type { SettingValue } from '../clickhouse/port.js';
import type { Span } from './json-spans.js';

/** The column names (and types, where the bytes carry them) found in an answer, and the bytes to put in their place. */
export interface Renaming {
  replace: { at: Span; bytes: Buffer }[];
  types?: string[];
  /** Where the rows start, after a header of names and types. */
  rowsAt?: number;
}

/** One format's renamer: each slot is where the answer spells one set of column names (a header, a row's keys). */
export type Renamer = (bytes: Buffer, names: string[], settings: Readonly<Record<string, SettingValue>>) => Renaming;

/**
 * One set of names the answer spells, at `slots` (one slot per column, in order): each later column of a
 * name already taken gets the earlier one's bytes. A count other than one per column is refused.
 */
export function copyAlike(bytes: Buffer, slots: Span[], names: string[], into: Renaming['replace']): void {
  if (slots.length !== names.length) throw notRenamed(names);
  names.forEach((name, i) => {
    const j = names.indexOf(name);
    if (j < i) into.push({ at: slots[i]!, bytes: bytes.subarray(slots[j]!.start, slots[j]!.end) });
  });
}

/**
 * The refusal: `format` when the format names no column the way it can be given back, `why` when these bytes or
 * names cannot be; `engine` says why the final stage's engine did not write the names itself.
 */
export function notRenamed(names: string[], format?: string, why = 'its bytes are not laid out as the format writes them', engine = ''): ScatterError {
  const name = names.find((n, i) => names.indexOf(n) < i)!;
  const what = format ? `output format ${format}` : `this answer (${why})`;
  return new ScatterError(
    'UNSUPPORTED',
    `two different columns both named ${name} are not supported in ${what} on the general path: its final stage names each column by one alias${engine}, and the name is given back only in the bytes of formats whose layout of names is known; ask for another format (JSON, TabSeparatedWithNames, JSONEachRow, RowBinaryWithNamesAndTypes, Native...) or use the JSON API`,
  );
}

/** Only names whose width is their length, written as they are, are padded alike. */
export function refuseUnlikeWidths(names: string[], layout: string): void {
  if (names.some((n) => !/^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(n)))
    throw notRenamed(names, undefined, `${layout} lays a name out by its width, known here only for printable ASCII names`);
}

/** Where each of `lines` (the latin1 text split at line breaks) starts, in bytes. */
export function lineStarts(lines: string[]): number[] {
  const starts: number[] = [];
  let offset = 0;
  for (const l of lines) {
    starts.push(offset);
    offset += l.length + 1;
  }
  return starts;
}
