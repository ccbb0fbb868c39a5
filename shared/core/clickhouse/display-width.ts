// The width ClickHouse lays a name out by in the Pretty and Vertical formats (its UTF8::computeWidth:
// each code point's column count, from display-widths.ts), for text whose width does not depend on
// where it starts. The same widths on ClickHouse 18.16 and 26 (measured code point by code point).
import { WIDTH_RUNS } from './display-widths.js';

let table: { starts: Uint32Array; widths: Uint8Array } | undefined;

function runs(): { starts: Uint32Array; widths: Uint8Array } {
  if (table) return table;
  const parts = WIDTH_RUNS.split(',').filter((p) => p !== '');
  const starts = new Uint32Array(parts.length);
  const widths = new Uint8Array(parts.length);
  parts.forEach((p, i) => {
    const [start, width] = p.split(':');
    starts[i] = Number.parseInt(start!, 16);
    widths[i] = Number(width);
  });
  table = { starts, widths };
  return table;
}

/** One code point's width (0, 1 or 2). */
export function codePointWidth(cp: number): number {
  const { starts, widths } = runs();
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= cp) lo = mid;
    else hi = mid - 1;
  }
  return widths[lo]!;
}

/**
 * The text's width, or undefined where the engine's width of it is not the sum of its code points': a tab (to the
 * next multiple of 8 from where it starts), an escape sequence (no width up to its end), a control character (its
 * line breaks and carriage returns move the layout itself), a lone surrogate (bytes UTF-8 cannot hold).
 */
export function displayWidth(text: string): number | undefined {
  let width = 0;
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || (cp >= 0xd800 && cp < 0xe000)) return undefined;
    width += codePointWidth(cp);
  }
  return width;
}

/** Whether the Pretty and Vertical formats may cut the name: they never cut an identifier. */
export const isCuttableName = (name: string): boolean => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) || name.toLowerCase() === 'null';

/** The longest start of `text` no wider than `limit` (zero-width code points at the limit included, as the engine counts). */
function startWithin(text: string, limit: number): string {
  let width = 0;
  let end = 0;
  for (const ch of text) {
    const next = width + codePointWidth(ch.codePointAt(0)!);
    if (next > limit) break;
    width = next;
    end += ch.length;
  }
  return text.slice(0, end);
}

/** The columns a cut to `cutTo` keeps before its filler and after it. */
export const cutHalves = (cutTo: number): { head: number; tail: number } => ({ head: Math.floor(cutTo / 2), tail: Math.floor((cutTo - 1) / 2) });

/**
 * A long name as the Pretty and Vertical formats cut it to `cutTo` columns (their
 * output_format_pretty_max_column_name_width_cut_to): its start and end around `filler` (`⋯`, `~` in the ASCII charset).
 */
export function cutName(name: string, cutTo: number, filler: string): string {
  const width = displayWidth(name) ?? 0;
  const halves = cutHalves(cutTo);
  const head = startWithin(name, halves.head);
  const tailAt = startWithin(name, width - halves.tail).length;
  return head + filler + name.slice(tailAt);
}
