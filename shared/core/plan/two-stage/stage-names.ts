// The names of the stage tables' columns: <p>k<i> (group keys), <p>a<i> (aggregate states or plain
// partials) and <p>c<i> (row values); <p>n<i>: the final stage's name for an answer column whose
// client name an earlier column carries too. <p> is '_' unless the query itself uses such a name (a column
// or alias `_k0`): then '__', '___', ..., the first prefix none of its identifiers takes, so a stage
// column never captures or shadows a name of the query.
import { tokenize } from '../../sql/lexer.js';
import { printSelect } from '../../sql/print.js';
import type { SelectStatement } from '../../sql/ast.js';

export interface StageNames {
  key(i: number): string;
  state(i: number): string;
  value(i: number): string;
  /** The final stage's name for answer column i where the client's name is taken by an earlier one. */
  renamed(i: number): string;
  /** A key or state column of the final stage's input. */
  isKeyOrState(name: string): boolean;
}

export function stageNamesFor(stmt: SelectStatement): StageNames {
  const idents = new Set<string>();
  for (const t of tokenize(printSelect(stmt))) if (t.type === 'ident' || t.type === 'qident') idents.add(t.text);
  let p = '_';
  const taken = (prefix: string) => [...idents].some((n) => n.startsWith(prefix) && /^[kacn]\d+$/.test(n.slice(prefix.length)));
  while (taken(p)) p += '_';
  return {
    key: (i) => `${p}k${i}`,
    state: (i) => `${p}a${i}`,
    value: (i) => `${p}c${i}`,
    renamed: (i) => `${p}n${i}`,
    isKeyOrState: (n) => n.startsWith(p) && /^[ka]\d+$/.test(n.slice(p.length)),
  };
}
