// Recognising the sharding-key column of the queried table in an expression: `sensor`,
// `t.sensor` (table name or alias), `db.t.sensor`. Used by shard skipping and IN pruning.
import type { Expr } from '../sql/ast.js';

export interface TableNaming {
  database: string; // of the distributed table
  table: string;
  alias?: string;
}

export function isMainQualifier(parts: string[], t: TableNaming): boolean {
  if (parts.length === 1) return parts[0] === t.alias || (!t.alias && parts[0] === t.table) || parts[0] === t.table;
  if (parts.length === 2) return parts[0] === t.database && parts[1] === t.table;
  return false;
}

/** Is `e` a plain (unaliased-or-aliased) reference to column `name` of the main table? */
export function isColumnOfMain(e: Expr, name: string, t: TableNaming): boolean {
  if (e.kind !== 'column') return false;
  const p = e.parts;
  if (p[p.length - 1] !== name) return false;
  if (p.length === 1) return true;
  return isMainQualifier(p.slice(0, -1), t);
}
