// The names of the stage tables' columns: <p>k<i> (group keys), <p>a<i> (aggregate states or plain
// partials) and <p>c<i> (row values); <p>n<i>: the final stage's name for an answer column whose
// client name an earlier column carries too. <p> is '_' unless the query itself uses such a name (a column
// or alias `_k0`): then '__', '___', ..., the first prefix none of its identifiers takes, so a stage
// column never captures or shadows a name of the query.
import { tokenize } from '../../sql/lexer.js';
import { printSelect } from '../../sql/print.js';
import type { SelectStatement } from '../../sql/ast.js';
import { displayWidth, isCuttableName } from '../../clickhouse/display-width.js';

export interface StageNames {
  key(i: number): string;
  state(i: number): string;
  value(i: number): string;
  /**
   * The final stage's name for answer column i where the client's name `like` is taken by an earlier one: as
   * wide as `like` where its width is known (display-width.ts), so a format that pads each column to its name's width
   * (Pretty, Vertical) lays the answer out as it would under the client's name, which then only replaces it.
   */
  renamed(i: number, like: string): string;
  /** A key or state column of the final stage's input. */
  isKeyOrState(name: string): boolean;
}

export function stageNamesFor(stmt: SelectStatement): StageNames {
  const idents = new Set<string>();
  for (const t of tokenize(printSelect(stmt))) if (t.type === 'ident' || t.type === 'qident') idents.add(t.text);
  let p = '_';
  const taken = (prefix: string) => [...idents].some((n) => n.startsWith(prefix) && /^[kacn]\d+$/.test(n.slice(prefix.length)));
  while (taken(p)) p += '_';
  const given = new Set<string>();
  return {
    key: (i) => `${p}k${i}`,
    state: (i) => `${p}a${i}`,
    value: (i) => `${p}c${i}`,
    renamed: (i, like) => {
      const name = sameWidth(`${p}n${i}`, like, (n) => idents.has(n) || given.has(n));
      given.add(name);
      return name;
    },
    isKeyOrState: (n) => n.startsWith(p) && /^[ka]\d+$/.test(n.slice(p.length)),
  };
}

const FIRST = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_';
const NEXT = FIRST + '0123456789';

/** `base`, or where `like`'s width is known an identifier of that length that `taken` refuses not (base padded, or the first of that length); else base. */
function sameWidth(base: string, like: string, taken: (n: string) => boolean): string {
  const width = displayWidth(like);
  if (!width || width === base.length) return base;
  if (width > base.length) {
    // A name the Pretty formats may cut (not an identifier) gets an alias they cut alike: padded with `.`, which no grid draws.
    for (const fill of isCuttableName(like) ? '.' : `_0123456789${FIRST}`) {
      const padded = base + fill.repeat(width - base.length);
      if (!taken(padded)) return padded;
    }
    return base;
  }
  // Narrower than the stage names: the first free identifier of that length (a letter; `_` and a character repeated, never a keyword).
  const candidates = width === 1 ? [...FIRST.slice(0, -1)] : [...NEXT].map((b) => `_${b.repeat(width - 1)}`);
  return candidates.find((n) => !taken(n)) ?? base;
}
