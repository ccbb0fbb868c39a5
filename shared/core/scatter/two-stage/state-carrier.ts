// A JSON, Dynamic or Variant value between the general path's stages. TabSeparated writes such a
// value without its type, and the final stage would read it back by inference (the String "1" as
// the Int64 1), so it travels as what TabSeparated carries exactly: an aggregate state of it, one per
// row (initializeAggregation('anyState', v): the engine's bytes, with every type inside), which the
// final stage turns back into the value (finalizeAggregation). The types show only in the shards'
// first answer, so a leaf that has such a column is asked again, its rows so wrapped.
import type { ColumnMeta } from '../../clickhouse/port.js';
import type { SelectQuery, SelectStatement, TableExpr } from '../../sql/ast.js';
import { parseSelect } from '../../sql/parse.js';
import { printSelect, quoteIdent } from '../../sql/print.js';
import { forEachStatement } from '../../sql/visit.js';
import type { QueryPlan } from '../../plan/types.js';
import { asState, readBackQuery, statesOf } from '../../plan/read-back.js';

/** A shard answered a leaf with columns TabSeparated cannot carry exactly (`columns`: the whole header). */
export class InexactStage extends Error {
  constructor(
    readonly leaf: string,
    readonly columns: readonly ColumnMeta[],
    readonly inexact: readonly string[],
  ) {
    super(`${leaf}: ${inexact.join(', ')} cannot travel as TabSeparated`);
    this.name = 'InexactStage';
  }
}

/** What each leaf carries as states: its column names in order and which of them are wrapped. */
export type Carried = Map<string, { names: readonly string[]; wrapped: ReadonlySet<string> }>;

/** `sql` answering the wrapped columns of `names` as states (the rest as they are). */
export function answerAsStates(sql: string, names: readonly string[], wrapped: ReadonlySet<string>): string {
  const list = names.map((n) => (wrapped.has(n) ? `${asState(quoteIdent(n))} AS ${quoteIdent(n)}` : quoteIdent(n))).join(', ');
  return `SELECT ${list} FROM (${sql})`;
}

/** The leaf with every shard's SQL answering the wrapped columns as states (the rest as they are). */
export function carryAsStates<L extends { plan: QueryPlan }>(leaf: L, names: readonly string[], wrapped: ReadonlySet<string>): L {
  return {
    ...leaf,
    plan: {
      ...leaf.plan,
      shards: leaf.plan.shards.map((s) => (s.sql === undefined ? s : { ...s, sql: answerAsStates(s.sql, names, wrapped) })),
    },
  };
}

/** The final SQL reading each carried leaf's table through a subquery that turns its states back into values. */
export function finalizeCarried(finalSql: string, carried: Carried): string {
  if (carried.size === 0) return finalSql;
  const stmt = parseSelect(finalSql) as SelectStatement;
  const swap = (t: TableExpr): TableExpr => {
    if (t.kind !== 'table' || t.database !== undefined) return t;
    const c = carried.get(t.table);
    if (!c) return t;
    return { kind: 'subqueryTable', query: readBackQuery(t.table, statesOf(c.names, c.wrapped)), alias: t.alias ?? t.table };
  };
  // Every SELECT first, then the swap: the subqueries it makes read the same table name.
  const selects: SelectQuery[] = [];
  forEachStatement(stmt, (st) => selects.push(...(st.kind === 'union' ? st.selects : [st])));
  for (const q of selects) {
    if (!q.from) continue;
    q.from.table = swap(q.from.table);
    for (const j of q.from.joins) j.table = swap(j.table);
  }
  return printSelect(stmt);
}
