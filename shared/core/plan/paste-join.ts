// A PASTE JOIN whose left table is a distributed table is refused as ClickHouse's Distributed table
// refuses it: the initiator sends each shard the query with the join printed `ALL PASTE JOIN` (and
// `GLOBAL ALL PASTE JOIN`), and the shard's parser answers 62 "You must not specify ANY or ALL for
// PASTE JOIN" (ClickHouse 26.7). A PASTE JOIN of subqueries is pasted where ClickHouse pastes it,
// on the initiator, and is not refused here.
import type { Topology } from '../config/schema.js';
import type { SelectStatement, TableExpr } from '../sql/ast.js';
import { forEachStatement } from '../sql/visit.js';
import { errorAt } from './position.js';
import { lookupTable, refName } from './tables.js';

/**
 * Throws ClickHouse's 62 at the first PASTE JOIN whose SELECT reads a distributed table as its left
 * table. Under distributed_product_mode = 'deny' a right side over a distributed table without GLOBAL
 * is left to the planner's refusal, which ClickHouse's initiator raises before any shard is asked (288).
 */
export function refusePasteOverDistributed(stmt: SelectStatement, topo: Topology, mode: 'deny' | 'local' | 'global'): void {
  // A common table expression of the statement shadows a configured table of its name.
  const ctes = new Set<string>();
  forEachStatement(stmt, (s) => {
    for (const q of s.kind === 'union' ? s.selects : [s]) for (const w of q.with ?? []) if (w.cte) ctes.add(w.name);
  });
  const distributed = (t: TableExpr | undefined): boolean =>
    t?.kind === 'table' && !(t.database === undefined && ctes.has(t.table)) && lookupTable(topo, refName(t)) !== undefined;
  const readsDistributed = (t: TableExpr): boolean => {
    if (t.kind !== 'subqueryTable') return distributed(t);
    let found = false;
    forEachStatement(t.query, (s) => {
      for (const q of s.kind === 'union' ? s.selects : [s]) if (q.from && [q.from.table, ...q.from.joins.map((j) => j.table)].some(distributed)) found = true;
    });
    return found;
  };
  forEachStatement(stmt, (s) => {
    for (const q of s.kind === 'union' ? s.selects : [s]) {
      const left = q.from?.table;
      const paste = q.from?.joins.find((j) => j.type === 'PASTE');
      if (!paste || left?.kind !== 'table' || !distributed(left)) continue;
      if (mode === 'deny' && !paste.global && readsDistributed(paste.table)) continue;
      throw errorAt(
        'SYNTAX_ERROR',
        `You must not specify ANY or ALL for PASTE JOIN: a Distributed table sends this PASTE JOIN to its shards as ALL PASTE JOIN, ` +
          `which their parser refuses; a PASTE JOIN of subqueries, (SELECT ... FROM ${refName(left)}) AS a PASTE JOIN (...) AS b, is pasted on the initiator`,
        paste,
        { clickhouse: { code: 62, name: 'SYNTAX_ERROR' } },
      );
    }
  });
}
