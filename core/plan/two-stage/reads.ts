// Which configured distributed tables a statement reads, at any depth (FROM, JOIN, subqueries,
// `x IN db.table`): what decides whether a subquery needs leaves of its own.
import type { SelectStatement, TableExpr } from '../../sql/ast.js';
import { walkStatement } from '../../sql/visit.js';
import type { Topology } from '../../config/schema.js';
import { lookupTable, refName } from '../tables.js';

export const IN_NAMES: ReadonlySet<string> = new Set(['in', 'notIn', 'globalIn', 'globalNotIn']);

/** The distributed tables a statement reads, at any depth. */
export function distributedTables(s: SelectStatement, topo: Topology): string[] {
  const out: string[] = [];
  const visitTable = (t: TableExpr): void => {
    if (t.kind === 'table') {
      const b = lookupTable(topo, refName(t));
      if (b) out.push(b.distributed);
    }
    if (t.kind === 'subqueryTable') out.push(...distributedTables(t.query, topo));
  };
  for (const q of s.kind === 'union' ? s.selects : [s]) if (q.from) [q.from.table, ...q.from.joins.map((j) => j.table)].forEach(visitTable);
  walkStatement(s, (e) => {
    if (e.kind === 'subquery') out.push(...distributedTables(e.query, topo));
    if (e.kind === 'function' && IN_NAMES.has(e.name) && e.args[1]?.kind === 'column') {
      const b = lookupTable(topo, e.args[1].parts.join('.'));
      if (b) out.push(b.distributed);
    }
    return undefined;
  });
  return out;
}
