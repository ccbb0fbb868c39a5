// ClickHouse's analyzer folds `EXISTS (subquery)` into the constant 1 or 0 before it plans a query, and
// names and types it so (`1`, `not(0)`, `sum(1)`; UInt8: measured on chdb). Over a distributed table the
// subquery runs once, through the request's subquery runner as a GLOBAL subquery does (its shape is its own
// planning's to judge: ROLLUP there runs on the general path), and the constant takes its place in the
// statement both paths then plan, at any depth.
import type { Expr, SelectStatement, SubqueryExpr } from '../sql/ast.js';
import { printSelect } from '../sql/print.js';
import { mapStatement, walkStatement } from '../sql/visit.js';
import type { Topology } from '../config/schema.js';
import { distributedTables } from './two-stage/reads.js';
import { boundedForTransfer } from './globals.js';
import type { SubqueryRunner } from './types.js';

const existsSubquery = (e: Expr): SubqueryExpr | undefined =>
  e.kind === 'function' && e.name === 'exists' && e.args.length === 1 && e.args[0]!.kind === 'subquery' ? e.args[0] : undefined;

/** `stmt` with each EXISTS over a distributed table run once and replaced by its constant; the same object when there is none. */
export async function foldExists(stmt: SelectStatement, topo: Topology, run: SubqueryRunner): Promise<SelectStatement> {
  const wanted = new Map<string, SelectStatement>();
  walkStatement(
    stmt,
    (e) => {
      const sub = existsSubquery(e);
      if (!sub || !distributedTables(sub.query, topo).length) return;
      wanted.set(printSelect(sub.query), sub.query);
      return false;
    },
    { subqueries: true },
  );
  if (!wanted.size) return stmt;
  const found = new Map<string, boolean>();
  // One row tells: the subquery runs with LIMIT 2 where it has no LIMIT of its own.
  await Promise.all([...wanted].map(async ([text, q]) => found.set(text, (await run(boundedForTransfer(q, 1))).rows.length > 0)));
  return mapStatement(
    stmt,
    (e) => {
      const sub = existsSubquery(e);
      const value = sub && found.get(printSelect(sub.query));
      if (value === undefined) return undefined;
      return {
        kind: 'literal',
        type: 'integer',
        value: value ? '1' : '0',
        ...(e.alias !== undefined ? { alias: e.alias } : {}),
        ...(e.pos ? { pos: e.pos } : {}),
      };
    },
    { subqueries: true },
  );
}
