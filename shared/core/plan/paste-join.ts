// What ClickHouse refuses of a PASTE JOIN before it pastes a row, checked once on the statement as
// written. One whose left table is a distributed table: the initiator sends each shard the query with
// the join printed `ALL PASTE JOIN` (and `GLOBAL ALL PASTE JOIN`), and the shard's parser answers 62
// "You must not specify ANY or ALL for PASTE JOIN" (ClickHouse 26.7). Two unaliased subqueries with
// a column name in common: 36, as one node answers it. A PASTE JOIN of subqueries is otherwise pasted
// where ClickHouse pastes it, on the initiator (the general path's final stage).
import type { SettingValue } from '../clickhouse/port.js';
import type { Topology } from '../config/schema.js';
import type { SelectStatement, TableExpr } from '../sql/ast.js';
import { outputNames } from '../sql/names.js';
import { forEachStatement, fromTables } from '../sql/visit.js';
import { aliasRequired } from './join-alias.js';
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
      for (const q of s.kind === 'union' ? s.selects : [s]) if (fromTables(q).some(distributed)) found = true;
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

/** An unaliased subquery's output names where its SELECT list spells them (no `*`), else undefined. */
function spelledNames(t: TableExpr): string[] | undefined {
  // An alias the plan gave it (to spell out `*` over the join) is none of the query's.
  if (t.kind !== 'subqueryTable' || (t.alias !== undefined && !t.planAlias)) return undefined;
  const q = t.query.kind === 'union' ? t.query.selects[0]! : t.query;
  const names = outputNames(q);
  return names.includes('*') ? undefined : names;
}

/**
 * Throws ClickHouse's 36 where the first join of a SELECT is a PASTE JOIN of two unaliased subqueries
 * that name a column alike, under joined_subquery_requires_alias = 1 (measured on chdb 26.7: an alias on
 * either side, or the setting at 0, and it answers).
 */
export function refuseAmbiguousPaste(stmt: SelectStatement, request: Record<string, SettingValue> | undefined): void {
  if (!aliasRequired(stmt, request)) return;
  forEachStatement(stmt, (s) => {
    for (const q of s.kind === 'union' ? s.selects : [s]) {
      const first = q.from?.joins[0];
      if (first?.type !== 'PASTE') continue;
      const left = spelledNames(q.from!.table);
      const right = left && spelledNames(first.table);
      if (!right?.some((n) => left!.includes(n))) continue;
      throw errorAt(
        'QUERY_ERROR',
        "Name of columns and aliases should be unique for this query (you can add/change aliases to avoid duplication) While processing ' PASTE JOIN ...'",
        first,
        { clickhouse: { code: 36, name: 'BAD_ARGUMENTS' } },
      );
    }
  });
}
