// Table functions that read nothing but their literal arguments: inside a distributed query they
// travel to the shards as part of the SQL, as ClickHouse's Distributed table sends them, and every
// shard computes the same rows. Their size is bounded here, before any engine runs them, so a client
// cannot make a shard generate 10^12 rows. generateRandom() is not among them: it has no end without
// a LIMIT, and without a seed each shard would draw different rows.
import type { Expr, TableExpr, TableFunction } from '../sql/ast.js';
import { errorAt } from './position.js';

/** At most this many rows from one constant table function (the same order as the IN-list cap). */
export const CONSTANT_TABLE_MAX_ROWS = 1_000_000;

/** Lower-cased names of the constant table functions a shard query may hold. */
export const CONSTANT_TABLE_FUNCTIONS: ReadonlySet<string> = new Set(['numbers', 'numbers_mt', 'zeros', 'zeros_mt', 'values']);

export function isConstantTableFunction(t: TableFunction): boolean {
  return CONSTANT_TABLE_FUNCTIONS.has(t.name.toLowerCase());
}

/**
 * A constant table function, `system.one`, or the request's external data (shipped to every engine
 * that runs the query): a FROM/JOIN table every shard holds alike.
 */
export function isConstantTable(t: TableExpr): boolean {
  if (t.kind === 'tableFunction') return isConstantTableFunction(t);
  return t.kind === 'table' && (t.external === true || (t.database?.toLowerCase() === 'system' && t.table === 'one'));
}

/** Throws unless `t` is a constant table function with literal counts within the cap. */
export function checkConstantTable(t: TableFunction): void {
  const name = t.name.toLowerCase();
  if (name === 'values') return; // its rows are its arguments: bounded by the text and the IN-list cap
  const counts = name.startsWith('numbers') ? (t.args.length === 1 ? t.args[0] : t.args[1]) : t.args[0];
  const arity = name.startsWith('numbers') ? t.args.length === 1 || t.args.length === 2 || t.args.length === 3 : t.args.length === 1;
  if (!arity || !counts || !t.args.every(isCount))
    throw errorAt('UNSUPPORTED', `table function ${t.name}() inside a distributed query takes non-negative integer literals only`, t);
  let rows = BigInt((counts as { value: string }).value);
  // numbers(offset, count, step) yields ceil(count / step) rows.
  const step = name.startsWith('numbers') && t.args.length === 3 ? BigInt((t.args[2] as { value: string }).value) : 1n;
  if (step === 0n) throw errorAt('UNSUPPORTED', `table function ${t.name}() with a step of 0`, t.args[2]);
  rows = (rows + step - 1n) / step;
  if (rows > BigInt(CONSTANT_TABLE_MAX_ROWS))
    throw errorAt('TOO_LARGE', `table function ${t.name}() would generate ${rows} rows; at most ${CONSTANT_TABLE_MAX_ROWS} inside a distributed query`, t);
}

function isCount(e: Expr): boolean {
  return e.kind === 'literal' && e.type === 'integer' && /^\d+$/.test(e.value);
}
