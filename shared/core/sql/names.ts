// The result-column name ClickHouse gives an expression (docs/api.md#post-query: the alias when
// given, else the expression as ClickHouse would name it). ClickHouse names an unaliased
// expression by formatting its AST in functional form: operators as their functions
// (`a + b` -> `plus(a, b)`), nested aliases by their alias (`sum(a AS x)` -> `sum(x)`),
// literals in ClickHouse's canonical spelling (`1e3` -> `1000.`, `0x1F` -> `31`).
// Verified against chdb (ClickHouse 26.7) in test/integration/sql/column-names.test.ts.

import type { Expr, Literal, SelectQuery, TableExpr } from './ast.js';
import { backquote } from './quote.js';
import { equalExpr } from './visit.js';
import { formatWindow } from './window.js';

export interface NameOptions {
  /**
   * Table qualifiers in scope (`t`, `db.t`, an alias): ClickHouse (26.x analyzer) names `t.a` just
   * `a` when `t` is a table of the query, but keeps `n.x` for a Nested/tuple path. See qualifiersOf().
   */
  qualifiers?: ReadonlySet<string>;
}

const UINT64_MAX = (1n << 64n) - 1n;
const INT64_MIN = -(1n << 63n);

const INTERVAL_FUNCTION: Record<string, string> = {
  NANOSECOND: 'toIntervalNanosecond',
  MICROSECOND: 'toIntervalMicrosecond',
  MILLISECOND: 'toIntervalMillisecond',
  SECOND: 'toIntervalSecond',
  MINUTE: 'toIntervalMinute',
  HOUR: 'toIntervalHour',
  DAY: 'toIntervalDay',
  WEEK: 'toIntervalWeek',
  MONTH: 'toIntervalMonth',
  QUARTER: 'toIntervalQuarter',
  YEAR: 'toIntervalYear',
};

/** The column name of `e` in a result: its alias, else ClickHouse's formatting of it. */
export function columnName(e: Expr, opts: NameOptions = {}): string {
  return e.alias !== undefined ? e.alias : formatForName(e, opts);
}

/** The qualifiers a SELECT's FROM/JOIN tables can be referred by: name, db.name and alias. */
export function qualifiersOf(q: SelectQuery): Set<string> {
  const out = new Set<string>();
  const add = (t: TableExpr): void => {
    if (t.alias !== undefined) out.add(t.alias);
    if (t.kind === 'table' && t.alias === undefined) {
      out.add(t.table);
      out.add(`${t.database ?? 'default'}.${t.table}`);
    }
  };
  if (q.from) {
    add(q.from.table);
    for (const j of q.from.joins) add(j.table);
  }
  return out;
}

/** ClickHouse's functional formatting of `e`, ignoring its own alias (inner aliases still apply). */
export function formatForName(e: Expr, opts: NameOptions = {}): string {
  if ((e.kind === 'function' || e.kind === 'column') && e.nameAs !== undefined) return e.nameAs;
  const columnName = (x: Expr): string => (x.alias !== undefined ? x.alias : formatForName(x, opts));
  const names = (items: Expr[]): string => {
    let out = '';
    for (let i = 0; i < items.length; i++) out += (i > 0 ? ', ' : '') + columnName(items[i]!);
    return out;
  };
  switch (e.kind) {
    case 'literal':
      return literalName(e);
    case 'column': {
      // ClickHouse names a JSON sub-object `j.^\`a\`` and a typed path `j.a.:\`Int64\``.
      const parts = e.prefix === undefined ? e.parts : e.parts.map((p, i) => (i === e.prefix ? `^${backquote(p)}` : p));
      const name = unqualified(parts, opts.qualifiers);
      return e.typed === undefined ? name : `${name}.:${backquote(e.typed)}`;
    }
    case 'asterisk':
      return e.table ? `${e.table.join('.')}.*` : '*';
    case 'array': {
      const literal = literalArrayType(e);
      return literal === undefined ? `[${names(e.items)}]` : literalArrayName(e, literal);
    }
    case 'tuple':
      return `(${names(e.items)})`;
    case 'function': {
      // `sum(DISTINCT x)` is the function sumDistinct in ClickHouse's AST.
      const written = e.written ?? e.name;
      const name = e.distinct ? `${written}Distinct` : written;
      const args = `(${names(e.args)})`;
      const call = e.params ? `${name}(${names(e.params)})${args}` : `${name}${args}`;
      return e.over ? `${call} OVER ${formatWindow(e.over, columnName, (n) => n, true)}` : call;
    }
    case 'subquery':
      // ClickHouse numbers subqueries in the order its analyzer resolves them (subquery-numbers.ts).
      return e.ordinal !== undefined ? `_subquery_${e.ordinal}` : '_subquery';
    case 'case': {
      const parts: string[] = [];
      if (e.operand) parts.push(columnName(e.operand));
      for (const w of e.whens) parts.push(columnName(w.when), columnName(w.then));
      parts.push(e.else ? columnName(e.else) : 'NULL');
      return `${e.operand ? 'caseWithExpression' : 'multiIf'}(${parts.join(', ')})`;
    }
    case 'cast': {
      // `1::Int8` casts the literal's text: CAST('1', 'Int8'); CAST(1 AS Int8) keeps the number.
      const x = e.expr;
      const inner =
        e.syntax === 'colons' && x.alias === undefined && x.kind === 'literal' && (x.type === 'integer' || x.type === 'float')
          ? quoteNameString(x.value)
          : columnName(x);
      return `CAST(${inner}, ${quoteNameString(e.type)})`;
    }
    case 'lambda':
      return `lambda(tuple(${e.params.join(', ')}), ${columnName(e.body)})`;
    case 'interval':
      return `${INTERVAL_FUNCTION[e.unit] ?? `toInterval${e.unit.charAt(0)}${e.unit.slice(1).toLowerCase()}`}(${columnName(e.value)})`;
    case 'param':
      return `{${e.name}:${e.type}}`;
  }
}

function unqualified(parts: string[], qualifiers: ReadonlySet<string> | undefined): string {
  if (qualifiers && parts.length > 1) {
    if (parts.length > 2 && qualifiers.has(`${parts[0]}.${parts[1]}`)) return parts.slice(2).join('.');
    if (qualifiers.has(parts[0]!)) return parts.slice(1).join('.');
  }
  return parts.join('.');
}

type LiteralArrayType = 'float' | 'bool' | 'int';

/**
 * ClickHouse reads an array of number, bool and NULL literals (nested arrays of them included) as one
 * constant of the elements' common type and names it by that constant: with any float in it every
 * number is a Float64 (`[1.10, 2]` is named `[1.1, 2.]`); with a bool and no float the type is Bool
 * (`[true, 2]` is `[1, 1]`). Undefined for any other array (expressions, tuples, strings, aliases),
 * which is named element by element. Checked on chdb (ClickHouse 26.7).
 */
function literalArrayType(e: Expr): LiteralArrayType | undefined {
  let float = false;
  let bool = false;
  const scan = (x: Expr): boolean => {
    if (x.alias !== undefined) return false;
    if (x.kind === 'array') return x.items.every(scan);
    if (x.kind !== 'literal' || x.type === 'string') return false;
    if (x.type === 'float') float = true;
    else if (x.type === 'bool') bool = true;
    return true;
  };
  if (!scan(e)) return undefined;
  return float ? 'float' : bool ? 'bool' : 'int';
}

function literalArrayName(e: Expr, type: LiteralArrayType): string {
  if (e.kind === 'array') return `[${e.items.map((x) => literalArrayName(x, type)).join(', ')}]`;
  const l = e as Literal;
  if (l.type === 'null' || type === 'int') return literalName(l);
  const truth = l.type === 'bool' ? l.value.toLowerCase() === 'true' : l.type === 'integer' ? integerValue(l.value) !== 0n : undefined;
  if (type === 'bool') return truth ? '1' : '0';
  if (l.type === 'float') return literalName(l);
  return l.type === 'bool' ? (truth ? '1.' : '0.') : floatName(Number(integerValue(l.value) ?? Number.NaN));
}

/** An integer literal's value (decimal, 0x.., 0b.., with a leading '-'), or undefined if unreadable. */
function integerValue(text: string): bigint | undefined {
  const neg = text.startsWith('-');
  try {
    const v = BigInt(neg ? text.slice(1) : text); // handles 0x.. and 0b.. too
    return neg ? -v : v;
  } catch {
    return undefined;
  }
}

function literalName(l: Literal): string {
  switch (l.type) {
    case 'string':
      return quoteNameString(l.value);
    case 'null':
      return 'NULL';
    case 'bool':
      return l.value.toLowerCase() === 'true' ? 'true' : 'false';
    case 'integer': {
      const v = integerValue(l.value);
      if (v === undefined) return l.value;
      // Out of the 64-bit range ClickHouse reads the number as a Float64.
      if (v > UINT64_MAX || v < INT64_MIN) return floatName(Number(v));
      return v.toString();
    }
    case 'float': {
      const lower = l.value.toLowerCase();
      if (lower === 'inf' || lower === '+inf') return 'inf';
      if (lower === '-inf') return '-inf';
      if (lower === 'nan' || lower === '-nan') return 'nan';
      return floatName(Number(l.value));
    }
  }
}

/**
 * ClickHouse writes Float64 with double-conversion's shortest ECMAScript form, without the '+'
 * of positive exponents, and marks integral values written without exponent with a trailing
 * '.' (`1000.`, `-0.`).
 */
export function floatName(v: number): string {
  if (Number.isNaN(v)) return 'nan';
  if (v === Infinity) return 'inf';
  if (v === -Infinity) return '-inf';
  let s = Object.is(v, -0) ? '-0' : String(v);
  s = s.replace('e+', 'e');
  if (/^-?\d+$/.test(s)) s += '.';
  return s;
}

/** A string literal as ClickHouse prints it inside a column name. */
export function quoteNameString(s: string): string {
  let out = "'";
  for (let k = 0; k < s.length; k++) {
    const ch = s[k]!;
    switch (ch) {
      case "'":
        out += "\\'";
        break;
      case '\\':
        out += '\\\\';
        break;
      case '\n':
        out += '\\n';
        break;
      case '\t':
        out += '\\t';
        break;
      case '\r':
        out += '\\r';
        break;
      case '\0':
        out += '\\0';
        break;
      case '\b':
        out += '\\b';
        break;
      case '\f':
        out += '\\f';
        break;
      default:
        out += ch;
    }
  }
  return out + "'";
}

/**
 * A SELECT's output column names, as ClickHouse gives them (the general path's final stage aliases its columns with them). ClickHouse drops a
 * table qualifier from a name unless that would make two columns one: `SELECT e.uid, u.uid ... JOIN`
 * is named `uid`, `u.uid`. So a later column whose name collides with an earlier, different one keeps
 * its qualifier (one alias cannot name two expressions in the final stage).
 */
export function outputNames(q: SelectQuery): string[] {
  const quals = qualifiersOf(q);
  const seen = new Map<string, Expr>();
  return q.columns.map((c) => {
    if (c.kind === 'asterisk') return '*';
    let name = columnName(c, { qualifiers: quals });
    const before = seen.get(name);
    if (before && !equalExpr(before, c)) name = columnName(c);
    if (!seen.has(name)) seen.set(name, c);
    return name;
  });
}
