// Pretty and PrettyCompact: each column is as wide as its widest value or its name, and the final stage's
// alias for a later column of a taken name is as wide as that name (stage-names.ts), so the engine's
// layout is the client's already; only the header cells (and the footer's, past 50 rows) hold the alias,
// and each gets the bytes the engine wrote for the earlier column of that name (a long name cut alike).
// A header line starts with its border after the row numbers' indent, where no value can start a line.
import type { Span } from './json-spans.js';
import { copyAlike, notRenamed, type Renamer, type Renaming } from './renaming.js';

/** The header lines of a layout: where they start, the character between cells, and the fill around a name. */
interface Layout {
  starts: RegExp;
  between: string;
  fill: string;
}

const PRETTY: Layout = { starts: /^ *┃/, between: '┃', fill: ' ' };
const COMPACT_TOP: Layout = { starts: /^ *┌/, between: '┬', fill: '─' };
const COMPACT_FOOT: Layout = { starts: /^ *└/, between: '┴', fill: '─' };

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

const pretty =
  (layouts: Layout[]): Renamer =>
  (bytes, names) => {
    // Only names whose width is their length, with nothing a cell's fill could be mistaken for, are laid out alike.
    if (names.some((n) => !/^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(n) || n.includes('─')))
      throw notRenamed(names, undefined, 'Pretty lays a name out by its width, known here only for printable ASCII names');
    const r: Renaming = { replace: [] };
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
        names.forEach((name, i) => {
          const j = names.indexOf(name);
          // The alias is as wide as the name: a cell of another width is not the layout expected.
          if (j < i && cells[i] && cells[j] && cells[i]!.end - cells[i]!.start !== cells[j]!.end - cells[j]!.start) throw notRenamed(names);
        });
        copyAlike(bytes, cells, names, r.replace);
      }
      at = end + 1;
    }
    if (headers === 0 && bytes.length > 0) throw notRenamed(names);
    return r;
  };

export const PRETTY_RENAMERS: Record<string, Renamer> = Object.fromEntries([
  ...['Pretty', 'PrettyNoEscapes', 'PrettyMonoBlock', 'PrettyNoEscapesMonoBlock'].map((f) => [f, pretty([PRETTY])] as const),
  ...['PrettyCompact', 'PrettyCompactNoEscapes', 'PrettyCompactMonoBlock', 'PrettyCompactNoEscapesMonoBlock'].map(
    (f) => [f, pretty([COMPACT_TOP, COMPACT_FOOT])] as const,
  ),
]);
