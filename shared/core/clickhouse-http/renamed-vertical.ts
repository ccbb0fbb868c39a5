// Vertical, and the Pretty formats' fallback to it (a few rows of many columns): each row is a section
// titled `Row N:` over a line of `─`, then one `name: value` line a column, the name padded to the widest
// one; Vertical's totals and extremes are sections titled `Totals:`, `Min:`, `Max:`, the fallback's are
// rows under a `Totals:` / `Extremes:` line. The final stage's alias is as wide as the name and cut alike
// (past 24 columns by default), so only the names' bytes change. A value may hold line breaks: a line inside one that looks like a title or a name
// is refused, never read as the layout.
import type { Span } from './json-spans.js';
import { cutHalves, cutName, displayWidth, isCuttableName } from '../clickhouse/display-width.js';
import type { SettingValue } from '../clickhouse/port.js';
import { ALIAS_CHAR, copyAlike, cutFiller, notRenamed, refuseUnlikeWidths, type Renamer, type Renaming } from './renaming.js';

/** The bytes as latin1 text: one character a byte, so an index is a byte offset. */
const DASH = Buffer.from('─').toString('latin1');
const BOLD = '\x1b[1m';
const RESET = '\x1b[0m';

const literal = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** How the engine cuts long names: to `to` columns (0: never) past `slack` more, around `filler`. */
interface Cut {
  to: number;
  slack: number;
  filler: string;
}

/** The cut the settings ask for (ClickHouse's defaults: 24 columns, 4 more), and none, as an engine older than the cut writes. */
function cutsOf(settings: Readonly<Record<string, SettingValue>>): Cut[] {
  const n = (k: string, d: number) => (settings[k] === undefined ? d : Number(settings[k]));
  const filler = cutFiller(settings);
  const to = n('output_format_pretty_max_column_name_width_cut_to', 24);
  const asked = { to, slack: n('output_format_pretty_max_column_name_width_min_chars_to_cut', 4), filler };
  return to ? [asked, { to: 0, slack: 0, filler }] : [asked];
}

const latin1 = (s: string) => Buffer.from(s).toString('latin1');

/**
 * Each column's `name: ` and padding as a pattern: the name itself (or its cut) where it is the first of its name, else
 * an alias as wide (or its cut).
 */
function fieldPatterns(names: string[], color: boolean, cut: Cut): RegExp[] {
  const shown = names.map((name, i) => {
    // refuseUnlikeWidths let through only names of a known width.
    const width = displayWidth(name)!;
    const cuts = cut.to > 0 && isCuttableName(name) && width > cut.to + cut.slack;
    const first = names.indexOf(name) === i;
    if (!cuts) return { width, pattern: first ? literal(latin1(name)) : `${ALIAS_CHAR}{${width}}` };
    const halves = cutHalves(cut.to);
    const pattern = first
      ? literal(latin1(cutName(name, cut.to, cut.filler)))
      : `${ALIAS_CHAR}{${halves.head}}${literal(latin1(cut.filler))}${ALIAS_CHAR}{${halves.tail}}`;
    return { width: cut.to, pattern };
  });
  const widest = Math.max(...shown.map((s) => s.width));
  return shown.map(({ width, pattern }) => {
    const pad = ' '.repeat(widest - width);
    return color ? new RegExp(`${literal(BOLD)}(${pattern}):${literal(RESET)} ${pad}`, 'y') : new RegExp(`(${pattern}): ${pad}`, 'y');
  });
}

const TITLE = /(Row (\d+)|Totals|Min|Max):\n/y;
/** Between sections: blank lines, and in the fallback a `Totals:` / `Extremes:` line before a row. */
const GAP = /\n*(?:(?:Totals|Extremes):\n(?=Row \d+:\n))?/y;
const SHOWED = /\n*Showed (?:first \d+|\d+ out of \d+ rows)\.\n$/y;
const LOOKALIKE_TITLE = /^(?:(?:Row \d+|Totals|Min|Max|Extremes):|Showed )/;

const at = (re: RegExp, text: string, pos: number) => {
  re.lastIndex = pos;
  return re.exec(text);
};

/** Where the next section starts after a field line ending at `nl`, or the answer ends; undefined where it does not there. */
function boundary(text: string, nl: number, lastRow: number): { next?: number } | undefined {
  if (nl + 1 === text.length || at(SHOWED, text, nl + 1)) return {};
  const gap = at(GAP, text, nl + 1)!;
  const title = at(TITLE, text, nl + 1 + gap[0].length);
  if (!title || (title[2] !== undefined && Number(title[2]) !== lastRow + 1)) return undefined;
  return { next: nl + 1 + gap[0].length };
}

/** The name spans of each section of a Vertical layout, its long names cut as the settings ask or not cut, or a refusal. */
export function verticalSections(bytes: Buffer, names: string[], settings: Readonly<Record<string, SettingValue>> = {}): Span[][] {
  refuseUnlikeWidths(names, 'Vertical');
  const [asked, none] = cutsOf(settings);
  try {
    return sectionsUnder(bytes, names, asked!);
  } catch (e) {
    if (!none) throw e;
    return sectionsUnder(bytes, names, none);
  }
}

function sectionsUnder(bytes: Buffer, names: string[], cut: Cut): Span[][] {
  const text = bytes.toString('latin1');
  if (text.length === 0) return [];
  const color = text.includes(`\n${BOLD}`);
  const fields = fieldPatterns(names, color, cut);
  const sections: Span[][] = [];
  const values: Span[] = [];
  let lastRow = 0;
  for (let pos: number | undefined = 0; pos !== undefined; ) {
    const title = at(TITLE, text, pos);
    if (!title) throw notRenamed(names);
    const label = title[1]!;
    if (title[2] !== undefined) {
      // Rows are numbered from 1 on, the fallback's totals and extremes rows counting on.
      if (Number(title[2]) !== lastRow + 1) throw notRenamed(names);
      lastRow++;
    }
    // The line under the title: as many `─` as the engine draws (a row's count is one past its number's digits, as it writes it).
    const dashes = title[2] !== undefined ? String(lastRow + 1).length + 5 : label.length + 1;
    const rule = `${DASH.repeat(dashes)}\n`;
    let p = pos + title[0].length;
    if (!text.startsWith(rule, p)) throw notRenamed(names);
    p += rule.length;
    const slots: Span[] = [];
    pos = undefined;
    for (let i = 0; i < names.length; i++) {
      const m = at(fields[i]!, text, p);
      if (!m) throw notRenamed(names);
      const start = p + m[0].indexOf(m[1]!);
      slots.push({ start, end: start + m[1]!.length });
      const valueAt = p + m[0].length;
      // A value runs to the next column's line, the last one to the next section or the answer's end.
      let nl = text.indexOf('\n', valueAt);
      for (; nl >= 0; nl = text.indexOf('\n', nl + 1)) {
        if (i + 1 < names.length ? at(fields[i + 1]!, text, nl + 1) : boundary(text, nl, lastRow)) break;
      }
      if (nl < 0) throw notRenamed(names);
      values.push({ start: valueAt, end: nl });
      p = nl + 1;
      if (i + 1 === names.length) pos = boundary(text, nl, lastRow)!.next;
    }
    sections.push(slots);
  }
  refuseLookalikes(text, values, fields, names);
  // The engine writes one alias a column: a slot that differs is not its name.
  for (const s of sections)
    s.forEach((slot, i) => {
      const first = sections[0]![i]!;
      if (text.slice(slot.start, slot.end) !== text.slice(first.start, first.end)) throw notRenamed(names);
    });
  return sections;
}

/** A value's line that could be read as a title or a column's name leaves the layout ambiguous: refused. */
function refuseLookalikes(text: string, values: Span[], fields: RegExp[], names: string[]): void {
  for (const v of values)
    for (let nl = text.indexOf('\n', v.start); nl >= 0 && nl < v.end; nl = text.indexOf('\n', nl + 1)) {
      const end = text.indexOf('\n', nl + 1);
      const line = text.slice(nl + 1, end < 0 ? undefined : end);
      if (LOOKALIKE_TITLE.test(line) || fields.some((f) => at(f, text, nl + 1))) throw notRenamed(names);
    }
}

/** The renaming of a Vertical layout: in each section, each later column of a taken name gets the earlier one's bytes. */
export function verticalRenaming(bytes: Buffer, names: string[], settings: Readonly<Record<string, SettingValue>>): Renaming {
  const r: Renaming = { replace: [] };
  for (const slots of verticalSections(bytes, names, settings)) copyAlike(bytes, slots, names, r.replace);
  return r;
}

/** Whether the Pretty formats' bytes are their fallback to Vertical: it starts with the first row's title. */
export const isVerticalFallback = (bytes: Buffer): boolean => bytes.subarray(0, 7).toString('latin1') === 'Row 1:\n';

export const VERTICAL_RENAMERS: Record<string, Renamer> = { Vertical: verticalRenaming };
