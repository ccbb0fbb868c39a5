// `x IN db.table`: a bare name on the right of IN is a table to ClickHouse (18.16 reads every
// such identifier as one; newer servers try a column or alias first, then a table). Left alone it
// would reach anything the shard's server holds: `1 IN system.one`, `status IN system.numbers`
// (reads until the deadline), `(k, f) IN analytics.local_table` (one shard's local rows). So it
// follows the FROM rules: a configured distributed table (then distributed_product_mode decides,
// as for `IN (SELECT ...)`), or a name the query itself defines as an expression (`WITH (1, 2) AS s
// ... x IN s`), or a constant table every engine holds alike (`x IN system.one`: the engine reads
// it as the set, as from `IN (SELECT * FROM system.one)`, and names the column as written); anything
// else is UNKNOWN_TABLE, before any shard is asked.
import type { Expr, SelectStatement, TableRef } from '../sql/ast.js';
import { walkStatement } from '../sql/visit.js';
import type { Topology } from '../config/schema.js';
import { ScatterError } from '../errors.js';
import { resolveTable, type BoundTable } from './tables.js';
import { errorAt } from './position.js';
import { isConstantTable } from './constant-tables.js';

/** Names the statement defines as expressions, at any depth: WITH names, `expr AS name` aliases, lambda parameters. */
export function expressionNames(stmt: SelectStatement): Set<string> {
  const out = new Set<string>();
  const selects = (s: SelectStatement) => (s.kind === 'union' ? s.selects : [s]);
  const visitWith = (s: SelectStatement) => {
    for (const q of selects(s)) for (const w of q.with ?? []) if (!w.cte) out.add(w.name);
  };
  visitWith(stmt);
  walkStatement(
    stmt,
    (e) => {
      if (e.alias) out.add(e.alias);
      if (e.kind === 'lambda') for (const p of e.params) out.add(p);
      if (e.kind === 'subquery') visitWith(e.query);
    },
    { subqueries: true },
  );
  return out;
}

/** The table a bare name on the right of IN stands for; undefined for anything else (a list, a subquery, a defined name, a constant table). */
export function inTableRef(rhs: Expr, defined: ReadonlySet<string>): TableRef | undefined {
  if (rhs.kind !== 'column') return undefined;
  if (rhs.parts.length === 1 && defined.has(rhs.parts[0]!)) return undefined;
  if (rhs.parts.length > 2) {
    throw errorAt('UNSUPPORTED', `the right side of IN, ${rhs.parts.join('.')}, is neither a table nor a name the query defines`, rhs);
  }
  const ref: TableRef = { kind: 'table', table: rhs.parts[rhs.parts.length - 1]! };
  if (rhs.parts.length === 2) ref.database = rhs.parts[0]!;
  if (rhs.pos) ref.pos = rhs.pos;
  return isConstantTable(ref) ? undefined : ref;
}

/** resolveTable for an IN's right side: the same rules, and a hint for the array-column reading. */
export function resolveInTable(topo: Topology, ref: TableRef): BoundTable {
  try {
    return resolveTable(topo, ref);
  } catch (e) {
    if (!(e instanceof ScatterError) || e.code !== 'UNKNOWN_TABLE') throw e;
    const name = ref.database ? `${ref.database}.${ref.table}` : ref.table;
    const hint = ref.database ? '' : ` (for an array column, write has(${name}, x))`;
    throw new ScatterError('UNKNOWN_TABLE', `the right side of IN names the table ${name}${hint}, which a query may not read: ${e.message}`, {
      ...(e.position ? { position: e.position } : {}),
    });
  }
}
