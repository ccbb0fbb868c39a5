// Prints the AST back to ClickHouse SQL: readable (operators infix, parentheses only where
// precedence needs them, plus a few extra where ClickHouse 18.16 and current versions disagree),
// and round-tripping: parseSelect(printSelect(ast)) equals ast (ignoring positions).
// Only spellings valid on both ClickHouse 18.16 and current versions are chosen where the AST
// leaves a choice (LIMIT m, n rather than LIMIT n OFFSET m; USING (a, b); backquoted names).

import type { CaseExpr, Expr, FunctionCall, JoinClause, OrderItem, SelectQuery, SelectStatement, SettingItem, TableExpr } from './ast.js';
import { operatorOf, PREC, type Operator } from './operators.js';
import { NON_ALIAS_KEYWORDS } from './parse.js';
import { backquote, quoteStringLiteral } from './quote.js';
import { formatWindow } from './window.js';

/** The infix form of a call, or undefined when it must print as `name(args)`. */
function infixOf(f: FunctionCall): Operator | undefined {
  const op = f.operator;
  if (op === undefined || f.params || f.distinct || f.over) return undefined;
  const d = operatorOf(op, f.name);
  if (!d) return undefined;
  if (d.arity === 'n' ? f.args.length < 2 : f.args.length !== d.arity) return undefined;
  if (d.form === 'tupleIndex') {
    const idx = f.args[1]!;
    if (idx.kind !== 'literal' || idx.type !== 'integer' || !/^\d+$/.test(idx.value) || idx.alias !== undefined) return undefined;
  }
  if (d.form === 'between' && !betweenShape(f)) return undefined;
  return d;
}

// and(greaterOrEquals(x, lo), lessOrEquals(x, hi)) / or(less(x, lo), greater(x, hi)) with the same x.
function betweenShape(f: FunctionCall): boolean {
  const [a, b] = f.args as [Expr, Expr];
  const [n1, n2] = f.name === 'and' ? ['greaterOrEquals', 'lessOrEquals'] : ['less', 'greater'];
  if (a.kind !== 'function' || b.kind !== 'function' || a.name !== n1 || b.name !== n2) return false;
  if (a.args.length !== 2 || b.args.length !== 2 || a.params || b.params || a.distinct || b.distinct) return false;
  if (a.alias !== undefined || b.alias !== undefined) return false;
  // The inner nodes must carry the operator the parser gives them, so the round trip is exact.
  const ops = f.name === 'and' ? ['>=', '<='] : ['<', '>'];
  if (a.operator !== ops[0] || b.operator !== ops[1]) return false;
  return sameTree(a.args[0]!, b.args[0]!);
}

function sameTree(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(ao), ...Object.keys(bo)]);
  for (const k of keys) {
    if (k === 'pos') continue;
    if (!sameTree(ao[k], bo[k])) return false;
  }
  return true;
}

// Words that must be backquoted when used as a name (they would parse as something else).
const QUOTE_WORDS = new Set([...NON_ALIAS_KEYWORDS, 'INF', 'NAN', 'ALL']);
// Function names that would parse as something else before '('.
const QUOTE_FUNCTIONS = new Set(['NOT', 'NULL', 'CASE', 'SELECT', 'FROM', 'WHERE', 'WITH', 'CAST', 'INTERVAL', 'EXISTS', 'ALL', 'DISTINCT']);

function quoteFunctionName(name: string): string {
  return PLAIN_NAME.test(name) && !QUOTE_FUNCTIONS.has(name.toUpperCase()) ? name : backquote(name);
}
const PLAIN_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** An identifier, backquoted when it is not a plain name or collides with a keyword. */
export function quoteIdent(name: string): string {
  return PLAIN_NAME.test(name) && !QUOTE_WORDS.has(name.toUpperCase()) ? name : backquote(name);
}

/** How tightly the printed form of `e` binds (without its alias). */
function precOf(e: Expr): number {
  switch (e.kind) {
    case 'literal':
      return (e.type === 'integer' || e.type === 'float') && e.value.startsWith('-') ? PREC.unary : PREC.primary;
    case 'lambda':
      return PREC.lambda;
    case 'cast':
      return e.syntax === 'colons' ? PREC.postfix : PREC.primary;
    case 'interval':
      return PREC.unary;
    case 'function': {
      const inf = infixOf(e);
      return inf ? inf.prec : PREC.primary;
    }
    default:
      return PREC.primary;
  }
}

/** `e` with its alias (for places where ClickHouse accepts `expr AS name`). */
function aliased(e: Expr): string {
  // A lambda is only unambiguous to ClickHouse as a direct function argument (see callArgs);
  // anywhere else `->` would swallow what precedes it (`CASE WHEN a THEN x -> 0`).
  const s = e.kind === 'lambda' ? `(${bare(e)})` : bare(e);
  return e.alias !== undefined ? `${s} AS ${quoteIdent(e.alias)}` : s;
}

/**
 * Function-call arguments: a lambda in first place prints bare (`arrayMap(x -> x + 1, arr)`).
 * ClickHouse reads `f(b, a -> a)` as the lambda `(b, a) -> a`, so later lambdas get parentheses.
 */
function callArgs(items: Expr[]): string {
  let out = '';
  for (let i = 0; i < items.length; i++) {
    const e = items[i]!;
    const s = e.kind === 'lambda' && i === 0 ? (e.alias !== undefined ? `${bare(e)} AS ${quoteIdent(e.alias)}` : bare(e)) : aliased(e);
    out += (i > 0 ? ', ' : '') + s;
  }
  return out;
}

/** `e` as an operand that must bind at least as tightly as `min`; aliases force parentheses. */
function operand(e: Expr, min: number): string {
  if (e.alias !== undefined) return `(${aliased(e)})`;
  const s = bare(e);
  return precOf(e) < min ? `(${s})` : s;
}

function list(items: Expr[]): string {
  let out = '';
  for (let i = 0; i < items.length; i++) out += (i > 0 ? ', ' : '') + aliased(items[i]!);
  return out;
}

function bare(e: Expr): string {
  switch (e.kind) {
    case 'literal':
      switch (e.type) {
        case 'string':
          return quoteStringLiteral(e.value);
        case 'null':
          return 'NULL';
        case 'bool':
          return e.value === 'true' ? 'true' : 'false';
        default:
          return e.value;
      }
    case 'column': {
      // A JSON column's sub-object `j.^a` and typed path `j.a.:Int64`, as ClickHouse reads them.
      const path = e.parts.map((p, i) => (i === e.prefix ? `^${quoteIdent(p)}` : quoteIdent(p))).join('.');
      return e.typed === undefined ? path : `${path}.:${quoteIdent(e.typed)}`;
    }
    case 'asterisk': {
      const table = e.table ? `${e.table.map(quoteIdent).join('.')}.` : '';
      let out =
        e.regexp !== undefined
          ? `${table}COLUMNS(${quoteStringLiteral(e.regexp)})`
          : e.list
            ? `${table}COLUMNS(${e.list.map((c) => c.parts.map(quoteIdent).join('.')).join(', ')})`
            : `${table}*`;
      for (const step of e.transformers ?? []) {
        const strict = step.kind !== 'apply' && step.strict ? ' STRICT' : '';
        if (step.kind === 'except')
          out += ` EXCEPT${strict} (${step.pattern !== undefined ? quoteStringLiteral(step.pattern) : step.names.map(quoteIdent).join(', ')})`;
        else if (step.kind === 'replace') out += ` REPLACE${strict} (${step.items.map((r) => `${printExpr(r.expr)} AS ${quoteIdent(r.name)}`).join(', ')})`;
        else if (step.fn.kind === 'lambda') out += ` APPLY(${bare(step.fn)})`;
        else out += ` APPLY(${quoteIdent(step.fn.name)}${step.fn.params ? `(${step.fn.params.map((p) => printExpr(p)).join(', ')})` : ''})`;
      }
      return out;
    }
    case 'array':
      return `[${list(e.items)}]`;
    case 'tuple':
      // A one-element tuple only has the tuple(...) spelling on every version.
      return e.explicit || e.items.length === 1 ? `tuple(${list(e.items)})` : `(${list(e.items)})`;
    case 'subquery':
      return `(${printSelect(e.query)})`;
    case 'param':
      return `{${e.name}:${e.type}}`;
    case 'case':
      return printCase(e);
    case 'cast':
      if (e.syntax === 'colons') {
        // `-1::Int8` is CAST('-1', 'Int8'); `(-1)::Int8` would cast the text '(-1)' and fail.
        const x = e.expr;
        const negLit = x.kind === 'literal' && x.alias === undefined && x.value.startsWith('-');
        return `${negLit ? bare(x) : operand(x, PREC.postfix + 1)}::${e.type}`;
      }
      // An aliased operand needs parentheses: `CAST(x AS y AS T)` would read y as the type.
      if (e.syntax === 'comma') return `CAST(${operand(e.expr, 0)}, ${quoteStringLiteral(e.type)})`;
      return `CAST(${operand(e.expr, 0)} AS ${e.type})`;
    case 'lambda': {
      const ps = e.params.map(quoteIdent);
      // A lambda body that is itself a lambda needs parentheses (`x -> (y -> 1)`).
      return `${ps.length === 1 ? ps[0] : `(${ps.join(', ')})`} -> ${operand(e.body, PREC.lambda + 1)}`;
    }
    case 'interval':
      return `INTERVAL ${intervalValue(e.value)} ${e.unit}`;
    case 'function':
      return printCall(e);
  }
}

// The parser reads an INTERVAL value as a unary-level operand: wrap anything looser, and
// negative literals too (`INTERVAL -1 DAY` is fine, but keep it unambiguous).
function intervalValue(v: Expr): string {
  // INTERVAL 'text' UNIT is ClickHouse's string form (`INTERVAL '1:2' MINUTE TO SECOND`): a string
  // value as an expression needs parentheses.
  if (v.kind === 'literal' && v.type === 'string' && v.alias === undefined) return `(${bare(v)})`;
  return operand(v, PREC.unary);
}

function printCase(e: CaseExpr): string {
  let out = 'CASE';
  if (e.operand) out += ' ' + aliased(e.operand);
  for (const w of e.whens) out += ` WHEN ${aliased(w.when)} THEN ${aliased(w.then)}`;
  if (e.else) out += ` ELSE ${aliased(e.else)}`;
  return out + ' END';
}

function printCall(f: FunctionCall): string {
  // A SETTINGS value's map literal, as written: ClickHouse reads `map(...)` there as no value.
  if (f.name === 'map' && f.operator === '{}') {
    const pairs: string[] = [];
    for (let i = 0; i < f.args.length; i += 2) pairs.push(`${aliased(f.args[i]!)}: ${aliased(f.args[i + 1]!)}`);
    return `{${pairs.join(', ')}}`;
  }
  const inf = infixOf(f);
  if (inf) {
    const a = f.args;
    const p = inf.prec;
    switch (inf.form) {
      case 'nary': {
        let out = operand(a[0]!, p + 1);
        for (let i = 1; i < a.length; i++) out += ` ${inf.spelling} ${operand(a[i]!, p + 1)}`;
        return out;
      }
      case 'binary':
        return `${operand(a[0]!, p)} ${inf.spelling} ${operand(a[1]!, p + 1)}`;
      case 'cmp': {
        const right = a[1]!;
        let r: string;
        if (inf.spelling.endsWith('IN')) {
          // IN's right side: a tuple or subquery prints with its own parentheses, a table name bare,
          // anything else inside parentheses (`x IN (1)` is in(x, 1) on every version).
          if (
            right.alias === undefined &&
            ((right.kind === 'tuple' && !right.explicit && right.items.length !== 1) || right.kind === 'subquery' || right.kind === 'column')
          )
            r = bare(right);
          else r = `(${aliased(right)})`;
        } else r = operand(right, p + 1);
        return `${operand(a[0]!, p + 1)} ${inf.spelling} ${r}`;
      }
      case 'prefix': {
        if (inf.spelling === '-') {
          const x = a[0]!;
          // Print the operand ONCE (printing it twice would be exponential in nested negations).
          const inner = aliased(x);
          // -(5) must not print as -5 (that is the literal -5), and "--" would start a comment.
          const wrap =
            x.alias !== undefined ||
            precOf(x) < PREC.unary ||
            (x.kind === 'literal' && (x.type === 'integer' || x.type === 'float')) ||
            // `-0x1F::UInt8` and `-inf::T` fold the minus into the number before the cast or index:
            /^(-|[0-9.]|inf|nan)/i.test(inner);
          return wrap ? `-(${inner})` : `-${inner}`;
        }
        // NOT: parenthesize anything looser than a postfix operand, for readability and for 18.16.
        return `NOT ${operand(a[0]!, PREC.compare + 1)}`;
      }
      case 'postfixWord':
        return `${operand(a[0]!, PREC.compare + 1)} ${f.operator}`;
      case 'index':
        return `${postfixBase(a[0]!)}[${aliased(a[1]!)}]`;
      case 'tupleIndex': {
        // After a `{name:Type}` parameter ClickHouse lexes `.1` as a number: the base needs parentheses.
        const base = postfixBase(a[0]!);
        return `${base.endsWith('}') ? `(${base})` : base}.${(a[1] as { value: string }).value}`;
      }
      case 'ternary':
        // ClickHouse 26 parses neither a ?: nor an OR unparenthesized in a branch (`a ? b : c OR d`
        // is a syntax error there): wrap every logical operand, in all three places.
        return `${operand(a[0]!, PREC.isNull)} ? ${operand(a[1]!, PREC.isNull)} : ${operand(a[2]!, PREC.isNull)}`;
      case 'between': {
        const lo = a[0] as FunctionCall;
        const hi = a[1] as FunctionCall;
        return `${operand(lo.args[0]!, PREC.concat)} ${f.operator} ${operand(lo.args[1]!, PREC.concat)} AND ${operand(hi.args[1]!, PREC.concat)}`;
      }
    }
  }
  const name = quoteFunctionName(f.name);
  const args = (f.distinct ? 'DISTINCT ' : '') + callArgs(f.args);
  const call = f.params ? `${name}(${callArgs(f.params)})(${args})` : `${name}(${args})`;
  const nulls = f.nulls ? `${call} ${f.nulls} NULLS` : call;
  return f.over ? `${nulls} OVER ${formatWindow(f.over, aliased, quoteIdent, false)}` : nulls;
}

// The base of `x[i]`, `x.1`, `x::T`: negative literals need parentheses (`(-1)[1]`), as does
// anything looser than a postfix operator.
function postfixBase(e: Expr): string {
  return operand(e, PREC.postfix + (e.kind === 'literal' ? 2 : 0));
}

/** One expression as ClickHouse SQL, with its alias if it has one. */
export function printExpr(e: Expr): string {
  return aliased(e);
}

/** One expression without its top-level alias. */
export function printExprBare(e: Expr): string {
  return bare(e);
}

function printTable(t: TableExpr): string {
  let out: string;
  if (t.kind === 'table') {
    const db = t.databaseParam !== undefined ? `{${t.databaseParam}:Identifier}.` : t.database !== undefined ? quoteIdent(t.database) + '.' : '';
    out = db + (t.param !== undefined ? `{${t.param}:Identifier}` : quoteIdent(t.table));
  } else if (t.kind === 'subqueryTable') out = `(${printSelect(t.query)})`;
  else out = `${quoteFunctionName(t.name)}(${list(t.args)})`;
  if (t.alias !== undefined) out += ` AS ${quoteIdent(t.alias)}`;
  if (t.kind === 'table') {
    if (t.final) out += ' FINAL';
    if (t.sample) {
      out += ` SAMPLE ${operand(t.sample.ratio, PREC.multiply)}`;
      if (t.sample.offset) out += ` OFFSET ${operand(t.sample.offset, PREC.multiply)}`;
    }
  }
  return out;
}

function printJoin(j: JoinClause): string {
  if (j.type === 'COMMA') return `, ${printTable(j.table)}`;
  let out = ' ';
  if (j.global) out += 'GLOBAL ';
  if (j.strictness) out += j.strictness + ' ';
  out += `${j.type} JOIN ${printTable(j.table)}`;
  if (j.using) out += ` USING (${list(j.using)})`;
  // ClickHouse takes no alias at the top of ON (`ON x AS a` is a syntax error there): parenthesize.
  else if (j.on) out += ` ON ${operand(j.on, 0)}`;
  return out;
}

function printOrder(o: OrderItem): string {
  return aliased(o.expr) + orderModifiers(o);
}

function orderModifiers(o: Omit<OrderItem, 'expr'>): string {
  let out = '';
  if (o.direction === 'DESC') out += ' DESC';
  if (o.nulls) out += ` NULLS ${o.nulls}`;
  if (o.collate !== undefined) out += ` COLLATE ${quoteStringLiteral(o.collate)}`;
  if (o.withFill) out += ' WITH FILL';
  if (o.fillFrom) out += ' FROM ' + aliased(o.fillFrom);
  if (o.fillTo) out += ' TO ' + aliased(o.fillTo);
  if (o.fillStep) out += ' STEP ' + aliased(o.fillStep);
  if (o.fillStaleness) out += ' STALENESS ' + aliased(o.fillStaleness);
  return out;
}

function printSettings(s: SettingItem[]): string {
  return s.map((x) => `${quoteIdent(x.name)} = ${operand(x.value, PREC.unary)}`).join(', ');
}

// Format names are not keywords in that position (FORMAT Null is fine); quote only odd ones.
function printFormatName(f: string): string {
  return PLAIN_NAME.test(f) ? f : quoteIdent(f);
}

function limitValue(e: Expr): string {
  return operand(e, PREC.unary);
}

function printQuery(q: SelectQuery): string {
  let out = '';
  if (q.with && q.with.length > 0) {
    out +=
      (q.withRecursive ? 'WITH RECURSIVE ' : 'WITH ') +
      q.with
        .map((w) =>
          w.cte && w.expr.kind === 'subquery'
            ? `${quoteIdent(w.name)} AS ${w.materialized ? 'MATERIALIZED ' : ''}${bare(w.expr)}`
            : `${operand(w.expr, 0)} AS ${quoteIdent(w.name)}`,
        )
        .join(', ') +
      ' ';
  }
  out += 'SELECT ';
  if (q.distinct) out += q.distinctOn ? `DISTINCT ON (${list(q.distinctOn)}) ` : 'DISTINCT ';
  out += list(q.columns);
  if (q.from) {
    out += ' FROM ' + printTable(q.from.table);
    if (q.from.arrayJoin) out += ` ${q.from.arrayJoin.left ? 'LEFT ' : ''}ARRAY JOIN ${list(q.from.arrayJoin.exprs)}`;
    for (const j of q.from.joins) out += printJoin(j);
  }
  if (q.prewhere) out += ' PREWHERE ' + aliased(q.prewhere);
  if (q.where) out += ' WHERE ' + aliased(q.where);
  if (q.groupingSets) out += ` GROUP BY GROUPING SETS (${q.groupingSets.map((g) => `(${list(g)})`).join(', ')})`;
  if (q.groupByAll) out += ' GROUP BY ALL';
  if (q.groupBy) {
    out += ' GROUP BY ' + list(q.groupBy);
    if (q.groupByModifier) out += ` WITH ${q.groupByModifier}`;
  }
  if (q.withTotals) out += ' WITH TOTALS';
  if (q.having) out += ' HAVING ' + aliased(q.having);
  if (q.window?.length) out += ' WINDOW ' + q.window.map((w) => `${quoteIdent(w.name)} AS ${formatWindow(w.spec, aliased, quoteIdent, false)}`).join(', ');
  if (q.qualify) out += ' QUALIFY ' + aliased(q.qualify);
  if (q.orderBy) out += ' ORDER BY ' + q.orderBy.map(printOrder).join(', ');
  if (q.orderByAll) out += ' ORDER BY ALL' + orderModifiers(q.orderByAll);
  if (q.interpolate) out += ` INTERPOLATE (${q.interpolate.map((x) => quoteIdent(x.name) + (x.expr ? ` AS ${aliased(x.expr)}` : '')).join(', ')})`;
  if (q.limitBy) {
    out += ' LIMIT ' + (q.limitBy.offset ? `${limitValue(q.limitBy.offset)}, ` : '') + limitValue(q.limitBy.limit);
    out += ' BY ' + list(q.limitBy.by);
  }
  if (q.limit) {
    out += ' LIMIT ' + (q.limit.offset ? `${limitValue(q.limit.offset)}, ` : '') + limitValue(q.limit.limit);
    if (q.limit.withTies) out += ' WITH TIES';
  }
  if (q.settings && q.settings.length > 0) out += ' SETTINGS ' + printSettings(q.settings);
  if (q.format !== undefined) out += ' FORMAT ' + printFormatName(q.format);
  return out;
}

/** A statement as one line of ClickHouse SQL. */
export function printSelect(stmt: SelectStatement): string {
  if (stmt.kind === 'select') return printQuery(stmt);
  let out = '';
  const n = stmt.selects.length;
  for (let i = 0; i < n; i++) {
    const q = stmt.selects[i]!;
    // Settings/format of the last SELECT and of the union print once, at the end.
    const isLast = i === n - 1;
    const s = isLast ? { ...q, settings: undefined, format: undefined } : q;
    let part = printQuery(s);
    // A SELECT inside a UNION that has its own SETTINGS/FORMAT must be parenthesized to keep them.
    if (!isLast && (q.settings?.length || q.format !== undefined)) part = `(${part})`;
    out += (i > 0 ? ` ${stmt.ops[i - 1]} ` : '') + part;
  }
  const last = stmt.selects[n - 1];
  const settings = [...(last?.settings ?? []), ...(stmt.settings ?? [])];
  if (settings.length > 0) out += ' SETTINGS ' + printSettings(settings);
  const format = stmt.format ?? last?.format;
  if (format !== undefined) out += ' FORMAT ' + printFormatName(format);
  return out;
}
