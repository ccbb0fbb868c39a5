// Resolving table names against the topology: the names queries use are the Distributed ones
// (`db.table`, `default` when unqualified); the shard-local names are never queryable directly.
import type { TableRef } from '../sql/ast.js';
import type { TableConfig, Topology } from '../config/schema.js';
import { qualifyTable } from '../config/load.js';
import { errorAt } from './position.js';
import { quoteIdent } from '../sql/print.js';

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

/**
 * The name a table reference resolves by. A table name that holds a dot (`` `analytics.events_dist` ``,
 * one backquoted name) is ONE name in the default database, as ClickHouse reads it, never db.table.
 */
export function tableName(database: string | undefined, table: string): string {
  if (database) return `${database}.${table}`;
  return table.includes('.') ? `default.${table}` : table;
}

export function refName(t: Pick<TableRef, 'database' | 'table'>): string {
  return tableName(t.database, t.table);
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
  const shown = t.table.includes('.')
    ? `${quoteIdent(t.database ?? 'default')}.${quoteIdent(t.table)} (a quoted name's dot is part of the name, as ClickHouse reads it)`
    : q;
  throw errorAt('UNKNOWN_TABLE', `unknown table ${shown}; configured tables: ${known}`, t);
}
