// Pretty and PrettyCompact: each column is as wide as its widest value or its name, and the final stage's
// alias for a later column of a taken name is as wide as that name (stage-names.ts), so the engine's
// layout is the client's already; only the header cells (and the footer's, past 50 rows) hold the alias,
// and each gets the client's name as the engine writes it (a long name cut where the alias is cut).
// A header line starts with its border after the row numbers' indent, where no value can start a line;
// in the ASCII grid Pretty's header is drawn like a row, so it is found by the table's order of lines.
import type { Span } from './json-spans.js';
import { lineStarts, notRenamed, renameAliasCells, refuseUnlikeWidths, type Renamer, type Renaming } from './renaming.js';
import { isVerticalFallback, verticalRenaming } from './renamed-vertical.js';

/** The header lines of a layout: where they start, the character between cells, and the fill around a name. */
interface Layout {
  starts: RegExp;
  between: string;
  fill: string;
}

const PRETTY: Layout = { starts: /^ *┃/, between: '┃', fill: ' ' };
const COMPACT_TOP: Layout = { starts: /^ *┌/, between: '┬', fill: '─' };
const COMPACT_FOOT: Layout = { starts: /^ *└/, between: '┴', fill: '─' };
const ASCII_FULL: Layout = { starts: /^ *\|/, between: '|', fill: ' ' };
const ASCII_COMPACT: Layout = { starts: /^ *\+-/, between: '+', fill: '-' };

/** The cells' names (their fill trimmed) of one header line at byte `at`, or undefined when it names none (a plain border). */
function cellNames(line: string, at: number, l: Layout): Span[] | undefined {
  const edge = line.match(/^ */)![0].length;
  const inner = line.slice(edge + 1, line.length - 1);
  const cells: Span[] = [];
  let offset = at + Buffer.byteLength(line.slice(0, edge + 1));
  for (const cell of inner.split(l.between)) {
    const lead = cell.length - cell.replace(new RegExp(`^${l.fill}+`), '').length;
    const name = cell.slice(lead).replace(new RegExp(`${l.fill}+$`), '');
    const start = offset + Buffer.byteLength(cell.slice(0, lead));
    cells.push({ start, end: start + Buffer.byteLength(name) });
    offset += Buffer.byteLength(cell) + Buffer.byteLength(l.between);
  }
  return cells.every((c) => c.end === c.start) ? undefined : cells;
}

/** The line of each table's names in `bytes`, by the layouts' header lines (the UTF-8 grid, PrettyCompact's ASCII one). */
function headerLines(bytes: Buffer, names: string[], layouts: Layout[], r: Renaming, filler: string): number {
  let headers = 0;
  for (let at = 0; at < bytes.length; ) {
    const nl = bytes.indexOf(0x0a, at);
    const end = nl < 0 ? bytes.length : nl;
    // A header line holds only borders and printable names: its text is its bytes (a value's line is only tested).
    const line = bytes.toString('utf8', at, end);
    const l = layouts.find((x) => x.starts.test(line));
    const cells = l && cellNames(line, at, l);
    if (cells) {
      headers++;
      renameAliasCells(bytes, cells, names, r, filler);
    }
    at = end + 1;
  }
  return headers;
}

const BORDER = /^ *\+(-+\+)+$/;
const ROW = /^ *(\d+\. )?\|/;
const FILLER = /^ *- /;

/**
 * Pretty's ASCII grid, whose names and rows are alike `| ... |` lines between alike `+---+` borders: a table's names
 * are the line after its first border (the answer's start, after `Totals:` / `Extremes:`, after the last block's
 * bottom border); its footer is the last line, the names again, where the rows are numbered (else it reads as a row).
 */
function asciiFullHeaders(bytes: Buffer, names: string[], r: Renaming): number {
  const text = bytes.toString('latin1');
  const lines = text.split('\n');
  if (lines.pop() !== '') throw notRenamed(names);
  const starts = lineStarts(lines);
  const kind = (k: number) => {
    const l = lines[k];
    return l === undefined ? 'end' : BORDER.test(l) ? 'border' : ROW.test(l) || FILLER.test(l) ? 'row' : 'other';
  };
  const take = (k: number) => {
    // A header line holds only borders and names: read as UTF-8, its cells' offsets are bytes.
    const cells = cellNames(Buffer.from(lines[k]!, 'latin1').toString('utf8'), starts[k]!, ASCII_FULL);
    if (!cells) throw notRenamed(names);
    renameAliasCells(bytes, cells, names, r, '~');
  };
  let headers = 0;
  let table: string | undefined;
  for (let k = 0; k < lines.length; ) {
    if (table === undefined) {
      if (kind(k) === 'border') {
        if (kind(k + 1) !== 'row' || kind(k + 2) !== 'border') throw notRenamed(names);
        table = lines[k + 1]!;
        take(k + 1);
        headers++;
        k += 3;
      } else if (['', 'Totals:', 'Extremes:'].includes(lines[k]!) || /^Showed \d+ out of \d+ rows\.$/.test(lines[k]!)) k++;
      else throw notRenamed(names);
    } else if (kind(k) === 'row') k++;
    else if (kind(k) === 'border') {
      // A border over a line of the names and then the table's end: the footer, but only rows numbered tell it from a row.
      const last = kind(k + 1) === 'row' && kind(k + 2) === 'border' && kind(k + 3) !== 'row';
      if (last && lines[k + 1] === table) {
        if (!table.startsWith(' ')) throw notRenamed(names);
        take(k + 1);
        k += 3;
        table = undefined;
      } else if (kind(k + 1) === 'border') {
        k++;
        table = undefined;
      } else k++;
    } else table = undefined;
  }
  return headers;
}

const pretty =
  (utf8: Layout[], ascii: Layout | 'full', forbidden: RegExp): Renamer =>
  (bytes, names, settings) => {
    refuseUnlikeWidths(names, 'Pretty');
    if (isVerticalFallback(bytes)) return verticalRenaming(bytes, names, settings);
    const r: Renaming = { replace: [] };
    // The grid's charset, by the first table's top border (ASCII's `+`).
    const top =
      bytes
        .toString('latin1')
        .split('\n')
        .find((l) => l !== '' && l !== 'Totals:' && l !== 'Extremes:') ?? '';
    const isAscii = /^ *\+/.test(top);
    // Only names with nothing a cell's border or fill could be mistaken for are laid out alike.
    if (names.some((n) => (isAscii ? /[|+]|^-|-$/ : forbidden).test(n)))
      throw notRenamed(names, undefined, 'a name holds a character of the grid it is drawn in');
    const headers = isAscii
      ? ascii === 'full'
        ? asciiFullHeaders(bytes, names, r)
        : headerLines(bytes, names, [ascii], r, '~')
      : headerLines(bytes, names, utf8, r, '⋯');
    if (headers === 0 && bytes.length > 0) throw notRenamed(names);
    return r;
  };

export const PRETTY_RENAMERS: Record<string, Renamer> = Object.fromEntries([
  ...['Pretty', 'PrettyNoEscapes', 'PrettyMonoBlock', 'PrettyNoEscapesMonoBlock'].map((f) => [f, pretty([PRETTY], 'full', /┃/)] as const),
  ...['PrettyCompact', 'PrettyCompactNoEscapes', 'PrettyCompactMonoBlock', 'PrettyCompactNoEscapesMonoBlock'].map(
    (f) => [f, pretty([COMPACT_TOP, COMPACT_FOOT], ASCII_COMPACT, /─/)] as const,
  ),
]);
