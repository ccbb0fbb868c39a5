// One renaming of an answer's bytes (renamed-format.ts): where the answer spells its column names, and
// what goes there. The renamers of each family of formats build it; the registry applies it.
import { ScatterError } from '../errors.js';
import type { SettingValue } from '../clickhouse/port.js';
import type { Span } from './json-spans.js';
import { cutHalves, cutName, displayWidth, isCuttableName } from '../clickhouse/display-width.js';

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

/**
 * Only names whose width is known (no tab or control character), written as they are (no edge space, which reads as
 * the padding, zero-width code points after it or not), are padded alike: the final stage's alias is as wide (stage-names.ts).
 */
export function refuseUnlikeWidths(names: string[], layout: string): void {
  if (names.some((n) => !displayWidth(n) || n.startsWith(' ') || [...n].reverse().find((c) => displayWidth(c)) === ' '))
    throw notRenamed(names, undefined, `${layout} lays a name out by its width, known here only for names without a tab, a control character or an edge space`);
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

/** A character of a stage alias as the engine writes it (stage-names.ts: letters, digits, `_`, and `.` padding a name it may cut). */
export const ALIAS_CHAR = '[A-Za-z0-9_.]';
const ALIAS = new RegExp(`^${ALIAS_CHAR}+$`);

/** What the Pretty and Vertical formats put in the middle of a long name they cut: `~` in the ASCII charset, else `⋯`. */
export const cutFiller = (settings: Readonly<Record<string, SettingValue>>): string =>
  String(settings.output_format_pretty_grid_charset ?? 'UTF-8').toUpperCase() === 'ASCII' ? '~' : '⋯';

/**
 * The client's name as the Pretty and Vertical formats write it where they wrote a later column's stage alias, which is
 * as wide and cut alike: whole, or cut at the alias's cut width (its columns' values widen the cut); undefined where
 * `text` is neither the alias nor its cut.
 */
export function nameForAlias(text: string, name: string, filler: string): string | undefined {
  const width = displayWidth(name);
  if (ALIAS.test(text)) return text.length === width ? name : undefined;
  const at = text.indexOf(filler);
  if (at < 0 || !isCuttableName(name)) return undefined;
  const head = text.slice(0, at);
  const tail = text.slice(at + filler.length);
  const cutTo = head.length + 1 + tail.length;
  const halves = cutHalves(cutTo);
  const cut = head.length === halves.head && tail.length === halves.tail;
  return ALIAS.test(head) && ALIAS.test(tail) && cut && width !== undefined && cutTo < width ? cutName(name, cutTo, filler) : undefined;
}

/**
 * Each later cell of a taken name, which holds the stage alias (or its cut), gets the client's name as the engine
 * writes it there (or its cut alike), inside the cell's colour; any other text is not the layout expected.
 */
export function renameAliasCells(bytes: Buffer, cells: Span[], names: string[], r: Renaming, filler: string): void {
  if (cells.length !== names.length) throw notRenamed(names);
  names.forEach((name, i) => {
    if (names.indexOf(name) === i) return;
    const cell = bytes.toString('utf8', cells[i]!.start, cells[i]!.end);
    // 18.16 pads a name inside its colour; a name never ends in a space (refuseUnlikeWidths).
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the colour's escape sequences are the point
    const [, open = '', text = '', pad = '', close = ''] = /^((?:\x1b\[[0-9;]*m)*)(.*?)( *)((?:\x1b\[[0-9;]*m)*)$/s.exec(cell) ?? [];
    const written = nameForAlias(text, name, filler);
    if (written === undefined) throw notRenamed(names);
    r.replace.push({ at: cells[i]!, bytes: Buffer.from(open + written + pad + close) });
  });
}
