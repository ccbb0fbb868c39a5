// PrettySpace: a header line of names padded with spaces to their columns' widths, an empty line, then
// the rows; a block of 50 rows or more ends with the header again (after and before an empty line), each
// further block the engine writes unsquashed starts with its own, and totals and extremes are blocks under
// a `Totals:` / `Extremes:` line. The final stage's alias is as wide as the name and cut alike, so only a
// header's names change; a name holds spaces, so a header is read name by name, where the rows' layout says one is.
import type { Span } from './json-spans.js';
import { cutName, displayWidth, isCuttableName } from '../clickhouse/display-width.js';
import type { SettingValue } from '../clickhouse/port.js';
import { ALIAS_CHAR, cutFiller, lineStarts, nameForAlias, notRenamed, refuseUnlikeWidths, renameAliasCells, type Renamer, type Renaming } from './renaming.js';
import { isVerticalFallback, verticalRenaming } from './renamed-vertical.js';

const BOLD = '\x1b[1m';
const RESET = '\x1b[0m';
const SHOWED = /^Showed \d+ out of \d+ rows\.$/;

const ALIAS = new RegExp(`${ALIAS_CHAR}+`, 'y');

/**
 * What a header may write for a column, longest first: the name, or where it is the first of its name also its cuts (by
 * the widths of its values the engine cuts it at any width); an alias, or its cut, read as far as it goes.
 */
function shapesAt(line: string, p: number, names: string[], i: number, filler: string): string[] {
  const name = names[i]!;
  if (names.indexOf(name) === i) {
    const width = displayWidth(name)!;
    const cuts = isCuttableName(name) ? Array.from({ length: width - 1 }, (_, k) => cutName(name, width - 1 - k, filler)) : [];
    return [name, ...cuts].map(latin1);
  }
  const f = latin1(filler);
  ALIAS.lastIndex = p;
  const head = ALIAS.exec(line)?.[0];
  if (!head) return [];
  if (!line.startsWith(f, p + head.length)) return [head];
  ALIAS.lastIndex = p + head.length + f.length;
  const tail = ALIAS.exec(line)?.[0];
  // Only an alias as wide as the name, or cut as the engine cuts it, is read as one.
  return [tail ? head + f + tail : head].filter((a) => nameForAlias(Buffer.from(a, 'latin1').toString('utf8'), name, filler) !== undefined);
}

const latin1 = (s: string) => Buffer.from(s).toString('latin1');

/** The names' spans in one line (latin1, from `at`) read as a header of `names`, or undefined where it is not one. */
function headerCells(line: string, at: number, names: string[], filler: string): Span[] | undefined {
  const cells: Span[] = [];
  let p = 0;
  for (const i of names.keys()) {
    const gap = /^ */.exec(line.slice(p))![0].length;
    // Three spaces between names, then each one's padding; before the first, one (after the row numbers' indent), or
    // none on an engine older than the row numbers (18.16).
    if (i > 0 && gap < 3) return undefined;
    p += gap;
    const color = line.startsWith(BOLD, p);
    const ends = (cell: string) => line.startsWith(cell, p) && (p + cell.length === line.length || line[p + cell.length] === ' ');
    const cell = shapesAt(line, p + (color ? BOLD.length : 0), names, i, filler)
      .map((shape) => (color ? `${BOLD}${shape}${RESET}` : shape))
      .find(ends);
    if (cell === undefined) return undefined;
    cells.push({ start: at + p, end: at + p + cell.length });
    p += cell.length;
  }
  return /^ *$/.test(line.slice(p)) ? cells : undefined;
}

export function prettySpaceRenaming(bytes: Buffer, names: string[], settings: Readonly<Record<string, SettingValue>>): Renaming {
  refuseUnlikeWidths(names, 'PrettySpace');
  if (isVerticalFallback(bytes)) return verticalRenaming(bytes, names, settings);
  const filler = cutFiller(settings);
  const r: Renaming = { replace: [] };
  const text = bytes.toString('latin1');
  if (text.length === 0) return r;
  const lines = text.split('\n');
  if (lines.pop() !== '') throw notRenamed(names);
  const starts = lineStarts(lines);
  // A header is always followed by an empty line.
  const header = (k: number) => (k < lines.length && lines[k + 1] === '' ? headerCells(lines[k]!, starts[k]!, names, filler) : undefined);
  const take = (cells: Span[]) => renameAliasCells(bytes, cells, names, r, filler);
  // A WITH TOTALS answer without rows starts with the totals' empty line.
  let state: 'header' | 'rows' | 'gap' = lines[0] === '' ? 'gap' : 'header';
  for (let k = 0; k < lines.length; ) {
    const line = lines[k]!;
    if (state === 'header') {
      take(header(k) ?? refuse(names));
      k += 2;
      state = 'rows';
    } else if (state === 'rows') {
      const cells = line === '' ? undefined : header(k);
      if (line === '') state = 'gap';
      else if (cells) {
        // A further block's header is followed by its rows; a last row whose values spell the names, by the block's end.
        const after = lines[k + 2];
        if (after === undefined || after === '' || after === 'Totals:' || after === 'Extremes:' || SHOWED.test(after)) {
          k++;
          continue;
        }
        if (header(k + 2)) throw notRenamed(names);
        take(cells);
        k++;
      }
      k++;
    } else {
      const footer = header(k);
      if (line === 'Totals:' || line === 'Extremes:') state = 'header';
      else if (footer) {
        take(footer);
        k++;
      } else if (line !== '' && !SHOWED.test(line)) throw notRenamed(names);
      k++;
    }
  }
  return r;
}

function refuse(names: string[]): never {
  throw notRenamed(names);
}

export const PRETTY_SPACE_RENAMERS: Record<string, Renamer> = Object.fromEntries(
  ['PrettySpace', 'PrettySpaceNoEscapes', 'PrettySpaceMonoBlock', 'PrettySpaceNoEscapesMonoBlock'].map((f) => [f, prettySpaceRenaming] as const),
);
