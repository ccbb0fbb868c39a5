// Recursive CTEs (`WITH RECURSIVE r AS (base UNION ALL ... FROM r ...)`): a CTE of a WITH RECURSIVE that
// reads itself. No query can be written in its place; the engine that reads it evaluates it, within
// ClickHouse's max_recursive_cte_evaluation_depth (1000 steps unless a query lowers it).
import type { SelectQuery, SelectStatement, TableExpr, WithItem } from '../sql/ast.js';
import { inTableOperand } from '../sql/in-operators.js';
import { walkStatement, fromTables } from '../sql/visit.js';

/** The recursive CTEs of `q`: those of a WITH RECURSIVE that read themselves. */
export function recursiveCtes(q: SelectQuery): WithItem[] {
  if (!q.withRecursive) return [];
  return (q.with ?? []).filter((w) => w.cte && w.expr.kind === 'subquery' && readsTable(w.expr.query, new Set([w.name])));
}

/** Whether a statement reads a table of one of these unqualified names (a CTE's), at any depth. */
export function readsTable(s: SelectStatement, names: ReadonlySet<string>): boolean {
  const named = (t: TableExpr): boolean =>
    t.kind === 'table' ? t.database === undefined && names.has(t.table) : t.kind === 'subqueryTable' && readsTable(t.query, names);
  for (const q of s.kind === 'union' ? s.selects : [s]) if (fromTables(q).some(named)) return true;
  let hit = false;
  walkStatement(s, (e) => {
    if (hit) return false;
    if (e.kind === 'subquery' && readsTable(e.query, names)) hit = true;
    const set = inTableOperand(e);
    if (set && set.parts.length === 1 && names.has(set.parts[0]!)) hit = true;
    return undefined;
  });
  return hit;
}
