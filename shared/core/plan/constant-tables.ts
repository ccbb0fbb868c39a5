// Table functions that read nothing but their literal arguments: inside a distributed query they
// travel to the shards as part of the SQL, as ClickHouse's Distributed table sends them, and every
// shard computes the same rows. Their size is bounded here, before any engine runs them, so a client
// cannot make a shard generate 10^12 rows. generateRandom() is among them with a seed (the coordinator
// draws one for a call without: random-seeds.ts) and read by a SELECT that stops at a literal LIMIT
// within the cap (it has no end of its own), with bounded strings and arrays.
import type { Expr, SelectQuery, TableExpr, TableFunction } from '../sql/ast.js';
import { aggregateName } from '../sql/aggregate-names.js';
import { tokenize } from '../sql/lexer.js';
import { splitTopLevel } from '../clickhouse/split-list.js';
import { exprsOfSelect, walkExpr } from '../sql/visit.js';
import { errorAt } from './position.js';

/** At most this many rows from one constant table function (the same order as the IN-list cap). */
export const CONSTANT_TABLE_MAX_ROWS = 1_000_000;

/** Lower-cased names of the constant table functions a shard query may hold. */
export const CONSTANT_TABLE_FUNCTIONS: ReadonlySet<string> = new Set(['numbers', 'numbers_mt', 'zeros', 'zeros_mt', 'values', 'generaterandom']);

/** generateRandom()'s max_string_length and max_array_length: at most this (ClickHouse's defaults are 10). */
export const RANDOM_TABLE_MAX_LENGTH = 1000;

export function isConstantTableFunction(t: TableFunction): boolean {
  return CONSTANT_TABLE_FUNCTIONS.has(t.name.toLowerCase());
}

export const isSystemOne = (t: { database?: string; table: string }): boolean => t.database?.toLowerCase() === 'system' && t.table === 'one';

/** The one column of numbers() and zeros(), by function. */
const ONE_COLUMN: Record<string, string> = { numbers: 'number', numbers_mt: 'number', zeros: 'zero', zeros_mt: 'zero' };

/**
 * A constant table function's columns: the one of numbers() and zeros(), those the structure of
 * values('name Type, ...', ...) or generateRandom('name Type, ...', ...) declares, or c1, c2, ... of values() without
 * one (one per element of its first row where that is a tuple, else one); undefined where not spelled so.
 */
export function constantTableColumns(t: TableFunction): { name: string }[] | undefined {
  const name = t.name.toLowerCase();
  const one = ONE_COLUMN[name];
  if (one) return [{ name: one }];
  const first = t.args[0];
  if (name === 'values' && first && !(first.kind === 'literal' && first.type === 'string')) {
    // `tuple(1)` is one column of a tuple type, which ClickHouse then reads otherwise: left unknown.
    if (first.kind === 'tuple' && first.explicit) return undefined;
    const width = first.kind === 'tuple' ? first.items.length : 1;
    return Array.from({ length: width }, (_, i) => ({ name: `c${i + 1}` }));
  }
  const structure = (name === 'values' && t.args.length > 1) || name === 'generaterandom' ? t.args[0] : undefined;
  if (structure?.kind !== 'literal' || structure.type !== 'string') return undefined;
  // Each top-level part is `name Type` (`Decimal(10, 2)` keeps its comma).
  const parts = splitTopLevel(structure.value);
  if (!parts) return undefined;
  const names = parts.map((p) => /^\s*([A-Za-z_][A-Za-z0-9_]*)\s+\S/.exec(p)?.[1]);
  return names.every((n): n is string => n !== undefined) ? names.map((n) => ({ name: n })) : undefined;
}

/**
 * A constant table function, `system.one`, or the request's external data (shipped to every engine
 * that runs the query): a FROM/JOIN table every shard holds alike.
 */
export function isConstantTable(t: TableExpr): boolean {
  if (t.kind === 'tableFunction') return isConstantTableFunction(t);
  return t.kind === 'table' && (t.external === true || isSystemOne(t));
}

/** Throws unless `t` is a constant table function with literal counts within the cap; `reader` is the SELECT whose FROM or JOIN holds it. */
export function checkConstantTable(t: TableFunction, reader?: SelectQuery): void {
  const name = t.name.toLowerCase();
  if (name === 'values') return; // its rows are its arguments: bounded by the text and the IN-list cap
  if (name === 'generaterandom') {
    checkRandomTable(t, reader);
    return;
  }
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

/**
 * generateRandom(structure, seed[, max_string_length[, max_array_length]]): a literal structure of
 * `name Type` pairs (no DEFAULT, ALIAS or other expressions), a literal seed, literal lengths within
 * RANDOM_TABLE_MAX_LENGTH, read as the FROM of a SELECT that stops at a literal LIMIT: no filter,
 * grouping, aggregate, sort, DISTINCT, LIMIT BY, window or JOIN, which would read on past it.
 */
function checkRandomTable(t: TableFunction, reader: SelectQuery | undefined): void {
  const [structure, seed, ...lengths] = t.args;
  if (structure?.kind !== 'literal' || structure.type !== 'string' || !plainStructure(structure.value))
    throw errorAt('UNSUPPORTED', 'generateRandom() inside a distributed query takes a literal structure of column names and types', structure ?? t);
  // The coordinator writes a drawn seed into a call without one before planning (random-seeds.ts).
  if (!seed || (seed.kind === 'literal' && seed.type === 'null'))
    throw errorAt('UNSUPPORTED', 'generateRandom() without a seed draws other rows on every engine and every run: give it a seed (its second argument)', t);
  if (!isCount(seed)) throw errorAt('UNSUPPORTED', 'generateRandom() takes a non-negative integer literal as its seed', seed);
  if (lengths.length > 2) throw errorAt('UNSUPPORTED', 'generateRandom() takes at most four arguments', lengths[2]);
  for (const n of lengths)
    if (!isCount(n) || BigInt((n as { value: string }).value) > BigInt(RANDOM_TABLE_MAX_LENGTH))
      throw errorAt('UNSUPPORTED', `generateRandom()'s string and array lengths are integer literals of at most ${RANDOM_TABLE_MAX_LENGTH}`, n);
  const limit = reader?.limit;
  const count = (e: Expr | undefined): bigint | undefined => (e === undefined ? 0n : isCount(e) ? BigInt((e as { value: string }).value) : undefined);
  const [n, skip] = [count(limit?.limit), count(limit?.offset)];
  const rows = limit && n !== undefined && skip !== undefined ? n + skip : undefined;
  if (!reader || reader.from?.table !== t || rows === undefined || readsPastLimit(reader))
    throw errorAt('UNSUPPORTED', 'generateRandom() has no end: read it as the FROM of a SELECT with a literal LIMIT and no filter, grouping, sort or JOIN', t);
  if (rows > BigInt(CONSTANT_TABLE_MAX_ROWS))
    throw errorAt(
      'TOO_LARGE',
      `table function ${t.name}() would generate ${rows} rows; at most ${CONSTANT_TABLE_MAX_ROWS} inside a distributed query`,
      limit!.limit,
    );
}

function readsPastLimit(q: SelectQuery): boolean {
  if (q.where || q.prewhere || q.groupBy || q.groupingSets || q.groupByAll || q.having || q.qualify || q.orderBy || q.distinct || q.distinctOn || q.limitBy)
    return true;
  if (q.limit?.withTies || (q.from?.joins.length ?? 0) > 0 || q.from?.arrayJoin) return true;
  let found = false;
  for (const { expr } of exprsOfSelect(q))
    walkExpr(expr, (e) => {
      if (e.kind === 'function' && (e.over !== undefined || aggregateName(e.name) !== undefined || e.name === 'arrayJoin')) found = true;
      return !found;
    });
  return found;
}

/** `name Type, ...`: at the top level each definition is a name and a type, the type's arguments in parentheses. */
function plainStructure(text: string): boolean {
  let tokens: ReturnType<typeof tokenize>;
  try {
    tokens = tokenize(text);
  } catch {
    return false;
  }
  let depth = 0;
  let atTop = 0; // tokens of the current definition at depth 0
  for (const tok of tokens) {
    if (tok.type === 'eof') break;
    if (tok.type === 'op' && tok.text === '(') depth++;
    else if (tok.type === 'op' && tok.text === ')') {
      if (--depth < 0) return false;
    } else if (depth === 0) {
      if (tok.type === 'op' && tok.text === ',') {
        if (atTop !== 2) return false;
        atTop = 0;
      } else if ((tok.type === 'ident' || tok.type === 'qident') && atTop < 2) atTop++;
      else return false;
    }
  }
  return depth === 0 && atTop === 2;
}
