// database() / currentDatabase(), currentUser() / user() and version() as the request's values, at
// any depth: a shard's engine would answer its own database, its shard user and its own version.
// Both interfaces use it (the JSON API knows only the database; the ClickHouse interface all three).
import type { Expr, SelectStatement } from '../sql/ast.js';
import { mapStatement } from '../sql/visit.js';

const CONTEXT_FUNCTIONS: Record<string, 'database' | 'user' | 'version'> = {
  currentdatabase: 'database',
  database: 'database',
  currentuser: 'user',
  user: 'user',
  current_user: 'user',
  version: 'version',
};

export interface ContextValues {
  database: string;
  user?: string | undefined;
  version?: string | undefined;
}

/** The statement with the context functions it may use replaced by literals; `fixed`: more zero-argument calls by lower-cased name. */
export function withContextValues(stmt: SelectStatement, ctx: ContextValues, fixed: Readonly<Record<string, Expr>> = {}): SelectStatement {
  return mapStatement(
    stmt,
    (e: Expr) => {
      if (e.kind !== 'function' || e.args.length !== 0) return undefined;
      const f = fixed[e.name.toLowerCase()];
      if (f) return { ...f, alias: e.alias ?? `${e.name}()` };
      const which = CONTEXT_FUNCTIONS[e.name.toLowerCase()];
      const value = which && ctx[which];
      if (value === undefined) return undefined;
      return { kind: 'literal', type: 'string', value, alias: e.alias ?? `${e.name}()` };
    },
    { subqueries: true },
  );
}
