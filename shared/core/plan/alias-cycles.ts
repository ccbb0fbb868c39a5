// Aliases that lead round to themselves (`status AS site, site AS status`; `c AS status, site AS c,
// status AS site`): ClickHouse 26 reads a name met again while its own expression is being resolved
// as the table's column, and where no column has that name the alias that led there reads its own
// name's column instead (two-stage/aliases.ts). So the plan needs the table's columns for such a
// query: asked for it (tablesNeedingColumns), and kept on each table's node (its `columns`).
import type { Topology } from '../config/schema.js';
import type { Expr, SelectQuery, TableRef } from '../sql/ast.js';
import { isSystemOne } from './constant-tables.js';
import { mapFromTables, walkExpr } from '../sql/visit.js';
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

/** The aliases of the SELECT list and WITH items that reach themselves through the names their expressions read. */
export function cyclicAliases(q: SelectQuery): Set<string> {
  const reads = new Map<string, Set<string>>();
  const add = (alias: string, e: Expr) => reads.has(alias) || reads.set(alias, namesRead(e));
  for (const w of q.with ?? []) if (!w.cte) add(w.name, w.expr);
  for (const c of q.columns) if (c.alias !== undefined) add(c.alias, c);
  const out = new Set<string>();
  for (const start of reads.keys()) {
    // A walk over the aliases `start` reads, transitively; reaching `start` again is a cycle (itself alone is not).
    const seen = new Set<string>();
    const next = [...reads.get(start)!].filter((n) => n !== start);
    while (next.length) {
      const n = next.pop()!;
      if (n === start) out.add(start);
      if (seen.has(n) || !reads.has(n)) continue;
      seen.add(n);
      next.push(...reads.get(n)!);
    }
  }
  return out;
}

export const hasAliasCycle = (q: SelectQuery): boolean => cyclicAliases(q).size > 0;

/**
 * `q` with the columns of each table in FROM and its JOINs that has them on its node (a distributed table's, the
 * request's external data's, system.one's), where its aliases lead round: over a JOIN a name is a column where any of
 * the tables has it (a constant table function's and a subquery's are read off the node itself: two-stage/aliases.ts).
 */
export function withCycleColumns(
  q: SelectQuery,
  topo: Topology,
  columnsOf: (distributed: string) => readonly { name: string }[] | undefined,
  external: ReadonlyMap<string, readonly { name: string }[]> = new Map(),
): SelectQuery {
  if (!q.from || !hasAliasCycle(q)) return q;
  return mapFromTables(q, (t) => {
    if (t.kind !== 'table') return t;
    const columns = t.external ? external.get(t.table) : isSystemOne(t) ? SYSTEM_ONE : distributedColumns(t, topo, columnsOf);
    return columns ? { ...t, columns: columns.map((c) => c.name) } : t;
  });
}

const SYSTEM_ONE = [{ name: 'dummy' }];

function distributedColumns(t: TableRef, topo: Topology, columnsOf: (distributed: string) => readonly { name: string }[] | undefined) {
  const bound = lookupTable(topo, refName(t));
  return bound && columnsOf(bound.distributed);
}
