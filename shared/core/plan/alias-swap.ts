// Two SELECT items that swap names (`status AS site, site AS status`) read each the column of its own
// name; where one name is no column, ClickHouse reads the other's, and where both are, WHERE, HAVING,
// ORDER BY and LIMIT BY read a name of the swap over the columns (two-stage/aliases.ts). So the plan
// needs the table's columns for such a query: asked for it (tablesNeedingColumns), and kept on the
// table's node (its `columns`) where FROM is one distributed table.
import type { Topology } from '../config/schema.js';
import type { Expr, SelectQuery } from '../sql/ast.js';
import { walkExpr } from '../sql/visit.js';
import { lookupTable, refName } from './tables.js';

/** The bare names an expression reads (not inside a subquery, which is a scope of its own). */
function namesRead(e: Expr): Set<string> {
  const out = new Set<string>();
  walkExpr(e, (x) => {
    if (x.kind === 'column' && x.parts.length === 1) out.add(x.parts[0]!);
    return x.kind !== 'subquery';
  });
  return out;
}

/** The names of the list's swaps: two items that each read the other's alias (with any expressions around the names). */
export function swappedNames(columns: readonly Expr[]): Set<string> {
  const items = columns.filter((c) => c.alias !== undefined).map((c) => ({ alias: c.alias!, reads: namesRead(c) }));
  const out = new Set<string>();
  for (const a of items) for (const b of items) if (a.alias !== b.alias && a.reads.has(b.alias) && b.reads.has(a.alias)) out.add(a.alias);
  return out;
}

export const swapsAliases = (q: SelectQuery): boolean => swappedNames(q.columns).size > 0;

/** `q` with its one distributed table's columns on the table's node, where it swaps aliases and they are known. */
export function withSwapColumns(q: SelectQuery, topo: Topology, columnsOf: (distributed: string) => readonly { name: string }[] | undefined): SelectQuery {
  const t = q.from?.table;
  if (t?.kind !== 'table' || q.from!.joins.length || q.from!.arrayJoin || !swapsAliases(q)) return q;
  const bound = lookupTable(topo, refName(t));
  const columns = bound && columnsOf(bound.distributed);
  if (!columns) return q;
  return { ...q, from: { ...q.from!, table: { ...t, columns: columns.map((c) => c.name) } } };
}
