// Query parameters `{name:Type}`: each is replaced by a typed constant BEFORE planning, so the
// value is data in the tree (never text spliced into SQL) and every later step sees an ordinary
// literal: a parameter compared with the sharding key prunes shards exactly as the literal would.
// Values arrive as text (ClickHouse's `param_<name>` URL parameters, or the JSON API's "params")
// and are checked against the type the query declares, with ClickHouse's codes:
//  - a parameter the query uses but the request lacks: 456 UNKNOWN_QUERY_PARAMETER;
//  - a value that does not read as its type: 457 BAD_QUERY_PARAMETER (38 for a Date, 41 for a
//    DateTime, 376 for a UUID, as ClickHouse's own readers report them).
// What a parameter becomes: a string literal for String types (ClickHouse substitutes a plain
// literal there too, so column names agree), a bare literal for numbers, NULL for `\N` in a
// Nullable, and `CAST(<literal>, 'Type')` for the rest (the engine reads the text as that type).
// Integers wrap to their width as ClickHouse's reader wraps them (300 as UInt8 is 44).
import type { Expr, SelectStatement, TableExpr, TableRef } from '../sql/ast.js';
import { forEachStatement, mapStatement, fromTables, mapFromTables } from '../sql/visit.js';
import { parseExpression } from '../sql/parse.js';
import { printExpr, quoteIdent } from '../sql/print.js';
import { ScatterError } from '../errors.js';
import { INTEGER_TYPE, unwrapType } from '../clickhouse/type-wrappers.js';
import { errorAt, positionOf } from './position.js';

export type ParamValue = string | number | boolean | null;

/** ClickHouse's code and name, carried as the error's `clickhouse` detail (as shard errors carry theirs). */
function paramError(code: number, name: string, message: string, node: Expr): ScatterError {
  const position = positionOf(node);
  return new ScatterError('BAD_REQUEST', message, { ...(position ? { position } : {}), details: { clickhouse: { code, name } } });
}

/** The parameter's text as ClickHouse receives it (the JSON API may send numbers and booleans). */
function textOf(v: ParamValue): string | null {
  if (v === null) return null;
  return typeof v === 'string' ? v : String(v);
}

/** The value inside a CAST (the alias, if any, goes on the outermost node). */
const lit = (type: 'integer' | 'float' | 'string' | 'null' | 'bool', value: string, node: Expr): Expr => ({
  kind: 'literal',
  type,
  value,
  ...(node.pos ? { pos: node.pos } : {}),
});
const cast = (inner: Expr, type: string, node: Expr): Expr => ({
  kind: 'cast',
  expr: inner,
  type,
  syntax: 'comma',
  ...(node.alias ? { alias: node.alias } : {}),
  ...(node.pos ? { pos: node.pos } : {}),
});

const DATE = /^\d{4}-\d{1,2}-\d{1,2}$/;
const DATETIME = /^\d{4}-\d{1,2}-\d{1,2}([ T]\d{1,2}:\d{1,2}:\d{1,2}(\.\d+)?)?$|^\d+$/;
const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const FLOAT = /^[+-]?((\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?|inf|infinity|nan)$/i;

/** One parameter's replacement node, or a thrown 457-family error. */
function bindOne(node: Expr & { kind: 'param' }, raw: string | null): Expr {
  const { name, type } = node;
  const { inner, nullable } = unwrapType(type);
  const bad = (code = 457, codeName = 'BAD_QUERY_PARAMETER', why = '') =>
    paramError(code, codeName, `Value ${raw} cannot be parsed as ${type} for query parameter '${name}'${why}`, node);
  if (raw === null || (raw === '\\N' && nullable)) {
    if (!nullable) throw bad();
    return cast(lit('null', '', node), type, node);
  }
  const int = INTEGER_TYPE.exec(inner);
  if (int) {
    const m = /^([+-]?)(\d+)$/.exec(raw);
    if (!m) throw bad();
    const bits = Number(int[2]);
    const n = m[1] === '-' ? -BigInt(m[2]!) : BigInt(m[2]!);
    const v = int[1] === 'U' ? BigInt.asUintN(bits, n) : BigInt.asIntN(bits, n);
    return cast(lit('integer', v.toString(), node), type, node);
  }
  if (/^(String|FixedString\(\s*\d+\s*\))$/.test(inner)) {
    if (inner.startsWith('FixedString') && Buffer.byteLength(raw, 'utf8') > Number(/\d+/.exec(inner)![0]))
      throw paramError(131, 'TOO_LARGE_STRING_SIZE', `Value of query parameter '${name}' is longer than ${inner}`, node);
    const s = lit('string', raw, node);
    return type.trim() === 'String' ? { ...s, ...(node.alias ? { alias: node.alias } : {}) } : cast(s, type, node);
  }
  if (/^(Float32|Float64|BFloat16)$/.test(inner)) {
    if (!FLOAT.test(raw)) throw bad();
    return cast(lit('string', raw, node), type, node);
  }
  if (/^Decimal(32|64|128|256)?\s*\(/.test(inner)) {
    if (!DECIMAL.test(raw)) throw bad();
    return cast(lit('string', raw, node), type, node);
  }
  if (inner === 'Bool') {
    if (!/^(true|false|1|0)$/i.test(raw)) throw bad();
    return cast(lit('bool', /^(true|1)$/i.test(raw) ? 'true' : 'false', node), type, node);
  }
  if (inner === 'Date' || inner === 'Date32') {
    if (!DATE.test(raw)) throw bad(38, 'CANNOT_PARSE_DATE');
  } else if (/^DateTime(64)?\b/.test(inner)) {
    if (!DATETIME.test(raw)) throw bad(41, 'CANNOT_PARSE_DATETIME');
  } else if (inner === 'UUID') {
    if (!UUID.test(raw)) throw bad(376, 'CANNOT_PARSE_UUID');
  } else if (inner === 'IPv4') {
    if (!IPV4.test(raw)) throw bad(675, 'CANNOT_PARSE_IPV4');
  } else if (inner === 'IPv6') {
    if (!/^[0-9a-f:.]+$/i.test(raw) || !raw.includes(':')) throw bad(676, 'CANNOT_PARSE_IPV6');
  } else if (inner === 'Identifier') {
    throw paramError(48, 'NOT_IMPLEMENTED', `query parameter '${name}' of type Identifier is not supported: name tables and columns in the query text`, node);
  }
  if (/^Array\s*\(/.test(inner)) {
    const code = arrayReadFailure(raw, inner, node);
    if (code === 27) throw bad(27, 'CANNOT_PARSE_INPUT_ASSERTION_FAILED', ": expected ']' at end of stream");
    if (code === 130) throw bad(130, 'CANNOT_READ_ARRAY_FROM_TEXT');
    if (code === 26) throw bad(26, 'CANNOT_PARSE_QUOTED_STRING');
    if (code === 457) throw bad();
  }
  // Every other type (Enum, Tuple, Map, dates...) and a checked Array: the text, read by the engine as the type.
  return cast(lit('string', raw, node), type, node);
}

/**
 * Why a parameter's text does not read as an Array of its element type, as ClickHouse's codes say
 * (it reads the value before the query runs): 130 an element or the opening '[', 26 an element
 * that must be quoted and is not, 27 an array not closed, 457 text after it; 0 when it reads. A bad value must not reach a shard as a CAST that fails
 * there. Elements are checked by bindOne's rules (NULL reads as the default, as in ClickHouse);
 * element types it does not check pass.
 */
function arrayReadFailure(raw: string, inner: string, node: Expr & { kind: 'param' }): 0 | 26 | 27 | 130 | 457 {
  const elemType = /^Array\s*\((.*)\)$/s.exec(inner)?.[1]?.trim();
  if (elemType === undefined || !raw.startsWith('[')) return 130;
  const end = closingBracket(raw);
  if (end < 0) return 27;
  if (end !== raw.length - 1) return 457;
  let e: Expr;
  try {
    e = parseExpression(raw);
  } catch {
    return 130;
  }
  if (e.kind !== 'array' || e.alias !== undefined) return 130;
  const elem = unwrapType(elemType).inner;
  const int = INTEGER_TYPE.exec(elem);
  const numeric = int !== null || /^(Float32|Float64|BFloat16|Bool)$/.test(elem) || /^Decimal/.test(elem);
  let code: 0 | 26 | 130 = 0;
  const ok = e.items.every((item) => {
    // An element that must be quoted and is not: ClickHouse's quoted-string reader refuses it.
    if (!numeric && !/^Array\s*\(/.test(elem) && !(item.kind === 'literal' && (item.type === 'string' || item.type === 'null'))) {
      code = 26;
      return false;
    }
    if (item.alias !== undefined) return false;
    if (item.kind === 'literal' && item.type === 'null') return true;
    if (/^Array\s*\(/.test(elem)) return item.kind === 'array' && arrayReadFailure(printExpr(item), elem, node) === 0;
    const negative = item.kind === 'function' && item.name === 'negate' && item.args.length === 1 && item.args[0]!.kind === 'literal';
    const value = negative ? (item.args[0] as Expr & { kind: 'literal' }) : item;
    if (value.kind !== 'literal' || ((negative || value.value.startsWith('-')) && int?.[1] === 'U')) return false;
    // Numbers unquoted, everything else quoted (ClickHouse's quoted text form of each element).
    if (numeric !== (value.type === 'integer' || value.type === 'float' || value.type === 'bool')) return false;
    try {
      bindOne({ ...node, type: elem }, negative ? `-${value.value}` : value.value);
      return true;
    } catch {
      return false;
    }
  });
  return ok ? 0 : code || 130;
}

/** The index of the ']' that closes the '[' at 0 (quoted strings skipped), or -1. */
function closingBracket(text: string): number {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "'") {
      for (i++; i < text.length && text[i] !== "'"; i++) if (text[i] === '\\') i++;
    } else if (c === '[') depth++;
    else if (c === ']' && --depth === 0) return i;
  }
  return -1;
}

/** Names of the parameters a statement uses, in order of appearance (for checks and /explain). */
export function paramsUsed(stmt: SelectStatement): string[] {
  const seen = new Set<string>();
  mapStatement(
    stmt,
    (e) => {
      if (e.kind === 'param') seen.add(e.name);
      return undefined;
    },
    { subqueries: true },
  );
  forEachTableParam(stmt, (t) => {
    if (t.databaseParam !== undefined) seen.add(t.databaseParam);
    if (t.param !== undefined) seen.add(t.param);
  });
  return [...seen];
}

/** Each `FROM {name:Identifier}` (or `{db:Identifier}.t`) of the statement, at any depth. */
function forEachTableParam(stmt: SelectStatement, fn: (t: TableRef) => void): void {
  forEachStatement(stmt, (s) => {
    for (const q of s.kind === 'union' ? s.selects : [s])
      for (const t of fromTables(q)) if (t.kind === 'table' && (t.param !== undefined || t.databaseParam !== undefined)) fn(t);
  });
}

/**
 * The table a `{name:Identifier}` names, and the database a `{db:Identifier}.` names: each value is ONE
 * name, as ClickHouse reads it. A table value `db.t` is the table `db.t` of the current database, never
 * t of db, so it names no configured table (60); a database value with a dot is no database (81); an
 * empty value is 457, a missing one 456.
 */
function bindTable(t: TableRef, params: Readonly<Record<string, ParamValue>> | undefined): TableRef {
  const node: Expr = { kind: 'param', name: t.databaseParam ?? t.param!, type: 'Identifier', ...(t.pos ? { pos: t.pos } : {}) };
  const nameOf = (name: string): string => {
    if (!params || !Object.hasOwn(params, name)) throw paramError(456, 'UNKNOWN_QUERY_PARAMETER', `Substitution \`${name}\` is not set`, node);
    const value = textOf(params[name]!) ?? '';
    if (value === '') throw paramError(457, 'BAD_QUERY_PARAMETER', `Empty Identifier part after parameter \`${name}\` substitution`, node);
    return value;
  };
  const { kind, param, databaseParam, database, table, ...rest } = t;
  let db = database;
  if (databaseParam !== undefined) {
    db = nameOf(databaseParam);
    if (db.includes('.'))
      throw new ScatterError('UNKNOWN_TABLE', `Database ${quoteIdent(db)} does not exist`, {
        ...(positionOf(node) ? { position: positionOf(node)! } : {}),
        details: { clickhouse: { code: 81, name: 'UNKNOWN_DATABASE' } },
      });
  }
  let name = table;
  if (param !== undefined) {
    name = nameOf(param);
    if (name.includes('.')) throw errorAt('UNKNOWN_TABLE', `Unknown table expression identifier '${db !== undefined ? `${db}.` : ''}${name}'`, node);
  }
  return { kind, ...(db !== undefined ? { database: db } : {}), table: name, ...rest };
}

/** `CAST(5, 'UInt8')` -> `5`: LIMIT, OFFSET and LIMIT BY take a plain integer (ClickHouse folds the constant too). */
function plainCount(e: Expr | undefined): Expr | undefined {
  if (
    e?.kind === 'cast' &&
    e.expr.kind === 'literal' &&
    e.expr.type === 'integer' &&
    !e.expr.value.startsWith('-') &&
    INTEGER_TYPE.test(unwrapType(e.type).inner)
  )
    return { ...e.expr, ...(e.alias ? { alias: e.alias } : {}) };
  return e;
}

/** Plain integer counts in the LIMIT clauses of a statement and of its subqueries in FROM. */
function plainLimits(stmt: SelectStatement): void {
  for (const q of stmt.kind === 'union' ? stmt.selects : [stmt]) {
    if (q.limit) {
      q.limit.limit = plainCount(q.limit.limit)!;
      if (q.limit.offset) q.limit.offset = plainCount(q.limit.offset);
    }
    if (q.limitBy) {
      q.limitBy.limit = plainCount(q.limitBy.limit)!;
      if (q.limitBy.offset) q.limitBy.offset = plainCount(q.limitBy.offset);
    }
    for (const t of fromTables(q)) if (t.kind === 'subqueryTable') plainLimits(t.query);
  }
}

/**
 * The statement with every `{name:Type}` replaced by its typed value. Returns the input itself when
 * it has no parameters (the common case costs one walk). Unused values are ignored, as ClickHouse does.
 */
export function bindParams(stmt: SelectStatement, params: Readonly<Record<string, ParamValue>> | undefined): SelectStatement {
  if (paramsUsed(stmt).length === 0) return stmt;
  const bound = mapStatement(
    stmt,
    (e) => {
      if (e.kind !== 'param') return undefined;
      if (!params || !Object.hasOwn(params, e.name)) throw paramError(456, 'UNKNOWN_QUERY_PARAMETER', `Substitution \`${e.name}\` is not set`, e);
      return bindOne(e, textOf(params[e.name]!));
    },
    { subqueries: true },
  );
  plainLimits(bound);
  forEachStatement(bound, (s) => {
    for (const q of s.kind === 'union' ? s.selects : [s]) {
      if (!q.from) continue;
      const bind = (x: TableExpr): TableExpr => (x.kind === 'table' && (x.param !== undefined || x.databaseParam !== undefined) ? bindTable(x, params) : x);
      q.from = mapFromTables(q, bind).from;
    }
  });
  return bound;
}

/** TabSeparated escapes (`\t`, `\n`, `\\`, `\'`, `\xHH`...) as ClickHouse reads them. */
function unescapeTsv(s: string): string {
  const map: Record<string, string> = { t: '\t', n: '\n', r: '\r', '0': '\0', b: '\b', f: '\f', a: '\x07', v: '\v' };
  return s.replace(/\\(x[0-9a-fA-F]{2}|[\s\S])/g, (_, c: string) => (c.length === 3 ? String.fromCharCode(parseInt(c.slice(1), 16)) : (map[c] ?? c)));
}

/**
 * ClickHouse's HTTP interface reads `param_<name>` values in its escaped text format: for a String
 * (FixedString, Enum) parameter `\'`, `\\`, `\t`... are escapes, and `\N` is NULL for a Nullable one;
 * other types read their own literal syntax from the text as it is. This turns such values into the
 * plain values bindParams takes (the JSON API's "params" are plain already).
 */
export function fromEscapedParams(stmt: SelectStatement, params: Readonly<Record<string, string>>): Record<string, ParamValue> {
  const types = new Map<string, string>();
  mapStatement(
    stmt,
    (e) => {
      if (e.kind === 'param' && !types.has(e.name)) types.set(e.name, e.type);
      return undefined;
    },
    { subqueries: true },
  );
  const out: Record<string, ParamValue> = { ...params };
  for (const [name, v] of Object.entries(params)) {
    const type = types.get(name);
    if (type === undefined) continue;
    const { inner, nullable } = unwrapType(type);
    if (nullable && v === '\\N') out[name] = null;
    else if (/^(String|FixedString\(|Enum(8|16)?\()/.test(inner)) out[name] = unescapeTsv(v);
  }
  return out;
}
