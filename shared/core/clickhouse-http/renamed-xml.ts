// XML's names: each column's <name> in the meta, and the element that holds its value in every row
// (and in totals and extremes): `<k>0</k>`, or `<field>` where the name is no XML name. A value's
// text escapes < and &, so an element's tags are found exactly.
import type { Span } from './json-spans.js';
import { copyAlike, notRenamed, type Renamer, type Renaming } from './renaming.js';

const unescapeXml = (t: string) => t.replace(/&(lt|gt|amp|quot|apos);/g, (_m, e: string) => ({ lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" })[e]!);

/** Past one element at `pos` (its text holds no `<`; arrays, tuples and maps nest elements): its tags' names and its end. */
function element(text: string, pos: number, names: string[]): { open: Span; close: Span; end: number } | undefined {
  const start = /\s*<([^<>/\s]+)>/y;
  start.lastIndex = pos;
  const m = start.exec(text);
  if (!m) return undefined;
  const open = { start: start.lastIndex - 1 - m[1]!.length, end: start.lastIndex - 1 };
  let at = start.lastIndex;
  for (;;) {
    at = text.indexOf('<', at);
    if (at < 0) throw notRenamed(names);
    if (text.startsWith(`</${m[1]}>`, at)) return { open, close: { start: at + 2, end: at + 2 + m[1]!.length }, end: at + 3 + m[1]!.length };
    const inner = element(text, at, names);
    if (!inner) throw notRenamed(names);
    at = inner.end;
  }
}

/** Each child element from `from` on, as its opening and closing tags' names, and where they end. */
function children(text: string, from: number, names: string[]): { open: Span[]; close: Span[]; end: number } {
  const open: Span[] = [];
  const close: Span[] = [];
  let pos = from;
  for (let e = element(text, pos, names); e; e = element(text, pos, names)) {
    open.push(e.open);
    close.push(e.close);
    pos = e.end;
  }
  return { open, close, end: pos };
}

/** `tag` (after blanks) at `pos`: where it ends, or undefined. */
function tagAt(text: string, pos: number, tag: string): number | undefined {
  const m = new RegExp(`\\s*<${tag}>`, 'y');
  m.lastIndex = pos;
  return m.exec(text) ? m.lastIndex : undefined;
}

const xml: Renamer = (bytes, names) => {
  // Names and values are escaped text: a byte past ASCII is a character's, so offsets stay exact in latin1.
  const text = bytes.toString('latin1');
  const r: Renaming = { replace: [] };
  const columns = /<columns>([\s\S]*?)<\/columns>/.exec(text);
  if (!columns) throw notRenamed(names);
  const metaNames: Span[] = [];
  const types: string[] = [];
  for (const m of columns[1]!.matchAll(/<column>\s*<name>([^<]*)<\/name>\s*<type>([^<]*)<\/type>\s*<\/column>/g)) {
    const start = columns.index + '<columns>'.length + m.index + m[0].indexOf('<name>') + '<name>'.length;
    metaNames.push({ start, end: start + m[1]!.length });
    types.push(unescapeXml(Buffer.from(m[2]!, 'latin1').toString('utf8')));
  }
  copyAlike(bytes, metaNames, names, r.replace);
  r.types = types;
  // A group of one element per column, closed by its tag: where it ends.
  const group = (pos: number, tag: string): number => {
    const { open, close, end } = children(text, pos, names);
    copyAlike(bytes, open, names, r.replace);
    copyAlike(bytes, close, names, r.replace);
    const after = tagAt(text, end, `/${tag}`);
    if (after === undefined) throw notRenamed(names);
    return after;
  };
  const data = tagAt(text, columns.index + columns[0].length, '/meta');
  let pos = data === undefined ? undefined : tagAt(text, data, 'data');
  if (pos === undefined) throw notRenamed(names);
  for (let row = tagAt(text, pos, 'row'); row !== undefined; row = tagAt(text, pos, 'row')) pos = group(row, 'row');
  pos = tagAt(text, pos, '/data');
  if (pos === undefined) throw notRenamed(names);
  const totals = tagAt(text, pos, 'totals');
  if (totals !== undefined) pos = group(totals, 'totals');
  const extremes = tagAt(text, pos, 'extremes');
  if (extremes !== undefined) {
    const min = tagAt(text, extremes, 'min');
    if (min === undefined) throw notRenamed(names);
    const max = tagAt(text, group(min, 'min'), 'max');
    if (max === undefined) throw notRenamed(names);
    group(max, 'max');
  }
  return r;
};

export const XML_RENAMERS: Record<string, Renamer> = { XML: xml };
