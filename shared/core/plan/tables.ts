// Resolving table names against the topology: the names queries use are the Distributed ones
// (`db.table`, `default` when unqualified); the shard-local names are never queryable directly.
import type { TableRef } from '../sql/ast.js';
import type { TableConfig, Topology } from '../config/schema.js';
import { qualifyTable } from '../config/load.js';
import { errorAt } from './position.js';

export interface BoundTable {
  distributed: string; // db.table
  local: string; // db.table
  config: TableConfig;
}

const splitName = (q: string): { database: string; table: string } => {
  const i = q.indexOf('.');
  return { database: q.slice(0, i), table: q.slice(i + 1) };
};
export { splitName };

/** The configured table a name refers to, or undefined. Tolerates a topology whose keys were not normalized. */
export function lookupTable(topo: Topology, name: string): BoundTable | undefined {
  const q = qualifyTable(name);
  for (const [k, cfg] of Object.entries(topo.tables)) {
    if (qualifyTable(k) === q) return { distributed: q, local: qualifyTable(cfg.local), config: cfg };
  }
  return undefined;
}

export function refName(t: TableRef): string {
  return t.database ? `${t.database}.${t.table}` : t.table;
}

/** Resolve a TableRef; UNKNOWN_TABLE (with a hint when it names a shard-local table) otherwise. */
export function resolveTable(topo: Topology, t: TableRef): BoundTable {
  const bound = lookupTable(topo, refName(t));
  if (bound) return bound;
  const q = qualifyTable(refName(t));
  const owner = Object.entries(topo.tables).find(([, cfg]) => qualifyTable(cfg.local) === q);
  const known = Object.keys(topo.tables).map(qualifyTable).join(', ');
  if (owner) {
    throw errorAt(
      'UNKNOWN_TABLE',
      `${q} is the shard-local table behind ${qualifyTable(owner[0])}; query ${qualifyTable(owner[0])} instead (a shard-local table holds only one shard's rows)`,
      t,
    );
  }
  throw errorAt('UNKNOWN_TABLE', `unknown table ${q}; configured tables: ${known}`, t);
}
