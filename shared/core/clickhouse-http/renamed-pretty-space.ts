// PrettySpace: a header line of names padded with spaces to their columns' widths, an empty line, then
// the rows; a block of 50 rows or more ends with the header again (after and before an empty line), each
// further block the engine writes unsquashed starts with its own, and totals and extremes are blocks under
// a `Totals:` / `Extremes:` line. The final stage's alias is as wide as the name, so only a header's names
// change; a name holds spaces, so a header is read name by name, where the rows' layout says one is.
import type { Span } from './json-spans.js';
import { copyAlike, lineStarts, notRenamed, refuseUnlikeWidths, type Renamer, type Renaming } from './renaming.js';
import { isVerticalFallback, verticalRenaming } from './renamed-vertical.js';

const BOLD = '\x1b[1m';
const RESET = '\x1b[0m';
const SHOWED = /^Showed \d+ out of \d+ rows\.$/;

/** The names' spans in one line (latin1, from `at`) read as a header of `names`, or undefined where it is not one. */
function headerCells(line: string, at: number, names: string[]): Span[] | undefined {
  const cells: Span[] = [];
  let p = 0;
  for (const [i, name] of names.entries()) {
    const gap = /^ */.exec(line.slice(p))![0].length;
    // One space before the first name (after the row numbers' indent), three between names, then each one's padding.
    if (gap < (i === 0 ? 1 : 3)) return undefined;
    p += gap;
    const color = line.startsWith(BOLD, p);
    const j = names.indexOf(name);
    const shape = j === i ? name : line.substr(p + (color ? BOLD.length : 0), name.length);
    if ((j < i && !/^[A-Za-z0-9_]+$/.test(shape)) || shape.length !== name.length) return undefined;
    const cell = color ? `${BOLD}${shape}${RESET}` : shape;
    if (!line.startsWith(cell, p) || (p + cell.length < line.length && line[p + cell.length] !== ' ')) return undefined;
    cells.push({ start: at + p, end: at + p + cell.length });
    p += cell.length;
  }
  return /^ *$/.test(line.slice(p)) ? cells : undefined;
}

export function prettySpaceRenaming(bytes: Buffer, names: string[]): Renaming {
  refuseUnlikeWidths(names, 'PrettySpace');
  if (isVerticalFallback(bytes)) return verticalRenaming(bytes, names);
  const r: Renaming = { replace: [] };
  const text = bytes.toString('latin1');
  if (text.length === 0) return r;
  const lines = text.split('\n');
  if (lines.pop() !== '') throw notRenamed(names);
  const starts = lineStarts(lines);
  // A header is always followed by an empty line.
  const header = (k: number) => (k < lines.length && lines[k + 1] === '' ? headerCells(lines[k]!, starts[k]!, names) : undefined);
  const take = (cells: Span[]) => copyAlike(bytes, cells, names, r.replace);
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
