// How an engine reads back a table whose columns travelled otherwise than as the values they hold: a
// JSON, Dynamic or Variant value as an aggregate state of itself (TabSeparated writes such a value
// without its type; its state carries every type), turned back by finalizeAggregation; and two columns
// of one name, which no table can hold, shipped under names apart and read back under the one name.
import type { SelectQuery } from '../sql/ast.js';
import { parseSelect } from '../sql/parse.js';
import { quoteIdent } from '../sql/print.js';

/** One column as the reader sees it: read from the table's column `from`, as a state where `state`. */
export interface ReadBackColumn {
  from: string;
  name: string;
  state?: boolean;
}

/** A column's value as a state of itself, exact in TabSeparated whatever its type. */
export const asState = (ident: string): string => `initializeAggregation('anyState', ${ident})`;

/** The SELECT list that gives `columns` back from the travelling ones. */
export function readBackList(columns: readonly ReadBackColumn[]): string {
  return columns
    .map((c) => {
      const from = quoteIdent(c.from);
      const value = c.state ? `finalizeAggregation(${from})` : from;
      return value === quoteIdent(c.name) ? value : `${value} AS ${quoteIdent(c.name)}`;
    })
    .join(', ');
}

/** `SELECT <the columns read back> FROM table`. */
export function readBackQuery(table: string, columns: readonly ReadBackColumn[]): SelectQuery {
  return parseSelect(`SELECT ${readBackList(columns)} FROM ${quoteIdent(table)}`) as SelectQuery;
}

/** The columns of `names`, each of `wrapped` travelling as a state. */
export function statesOf(names: readonly string[], wrapped: ReadonlySet<string>): ReadBackColumn[] {
  return names.map((n) => ({ from: n, name: n, ...(wrapped.has(n) ? { state: true } : {}) }));
}
