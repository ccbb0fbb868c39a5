// The table renaming of ClickHouse's Distributed engine (RestoreQualifiedNamesVisitor): the shard text
// must name the shard-local table, not the Distributed one, including qualified column references
// (`db.dist.col` -> `db.local.col`, `dist.col` -> `local.col`, `dist.*` -> `local.*`). A table alias is
// kept as is (it already resolves on the shard). Subqueries are another scope and are not entered
// (distributed_product_mode = 'local' localizes them in analyze).
import type { Expr, SelectQuery } from '../sql/ast.js';
import { mapClausesShared, rewriteExpr } from '../sql/visit.js';
import { splitName } from './tables.js';
import type { MainTable } from './analyze.js';
import type { TableNaming } from './key-ref.js';

export function localNaming(main: MainTable): TableNaming {
  const l = splitName(main.local);
  return { database: l.database, table: l.table, ...(main.naming.alias ? { alias: main.naming.alias } : {}) };
}

function renameParts(parts: string[], dist: TableNaming, local: TableNaming, minRest: number): string[] | undefined {
  if (parts.length >= 2 + minRest && parts[0] === dist.database && parts[1] === dist.table) {
    return [local.database, local.table, ...parts.slice(2)];
  }
  // `dist.col`: the table name as a qualifier (unless an alias of that very name is in scope).
  if (parts.length >= 1 + minRest && parts[0] === dist.table && dist.alias !== dist.table) {
    return [local.table, ...parts.slice(1)];
  }
  return undefined;
}

export function renameMain(q: SelectQuery, main: MainTable): SelectQuery {
  const dist = main.naming;
  const local = localNaming(main);
  const fn = (e: Expr): Expr | undefined => {
    if (e.kind === 'column') {
      const parts = renameParts(e.parts, dist, local, 1);
      return parts ? { ...e, parts } : e;
    }
    if (e.kind === 'asterisk' && e.table) {
      const table = renameParts(e.table, dist, local, 0);
      return table ? { ...e, table } : e;
    }
    return undefined;
  };
  const out = mapClausesShared(q, (e) => rewriteExpr(e, fn));
  if (out.from && out.from.table.kind === 'table') {
    out.from = { ...out.from, table: { ...out.from.table, database: local.database, table: local.table } };
  }
  return out;
}
