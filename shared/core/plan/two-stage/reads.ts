// Which configured distributed tables a statement reads, at any depth (FROM, JOIN, subqueries,
// `x IN db.table`): what decides whether a subquery needs leaves of its own.
import type { SelectStatement, TableExpr } from '../../sql/ast.js';
import { inTableOperand } from '../../sql/in-operators.js';
import { walkStatement, fromTables } from '../../sql/visit.js';
import type { Topology } from '../../config/schema.js';
import { lookupTable, refName } from '../tables.js';

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
  for (const q of s.kind === 'union' ? s.selects : [s]) fromTables(q).forEach(visitTable);
  walkStatement(s, (e) => {
    if (e.kind === 'subquery') out.push(...distributedTables(e.query, topo));
    const set = inTableOperand(e);
    if (set) {
      const b = lookupTable(topo, set.parts.join('.'));
      if (b) out.push(b.distributed);
    }
    return undefined;
  });
  return out;
}
