// Recursive-descent parser for one ClickHouse SELECT (with UNION ALL), producing the AST of
// ast.ts. Expressions are parsed by one method per precedence level, the levels in the order of
// ClickHouse's operator table (operators.ts, shared with the printer: each level asks it which
// spellings it reads and what they build), and operators become the function calls ClickHouse
// itself builds (`a + b` -> plus(a, b), `a OR b OR c` -> or(a, b, c), BETWEEN -> and(>=, <=)),
// so that result-column names and rewrites see what ClickHouse sees.
//
// Guards: input length (TOO_LARGE), nesting depth (SYNTAX_ERROR with position, never a stack
// overflow) and iterative loops for long lists (100k-value IN lists).

import { ScatterError } from '../errors.js';
import { cloneAst } from './ast.js';
import { operatorAt, PREC, QUANTIFIED_COMPARISONS, spellingsAt, type Operator } from './operators.js';
import { backquote, quoteStringLiteral } from './quote.js';
import type {
  ArrayJoinClause,
  Asterisk,
  ColumnRef,
  ColumnTransformer,
  CaseExpr,
  InterpolateItem,
  Expr,
  FromClause,
  FunctionCall,
  JoinClause,
  LambdaExpr,
  LimitByClause,
  LimitClause,
  Literal,
  OrderItem,
  Pos,
  SelectQuery,
  SelectStatement,
  SettingItem,
  SubqueryExpr,
  TableExpr,
  SetOperator,
  UnionQuery,
  WindowSpec,
  WithItem,
} from './ast.js';
import { EXTRACT_FUNCTIONS, type FrameBound } from './window.js';
import { nullsActionName } from './nulls-action.js';

/** The LIMIT an OFFSET without LIMIT stands for. */
const UINT64_MAX_TEXT = '18446744073709551615';
import { positionAt, tokenize, type Token } from './lexer.js';

export interface ParseOptions {
  /** Input length cap in characters (default 1 MiB). */
  maxLength?: number;
  /** Nesting depth cap: nested expressions (parentheses, calls, NOT/minus chains) and subqueries (default 200). */
  maxDepth?: number;
}

export const DEFAULT_MAX_LENGTH = 1 << 20;
const POSTFIX_AFTER_LIST: ReadonlySet<string> = new Set(['[', '.', '::', '+', '-', '*', '/', '%', '||']);

export const DEFAULT_MAX_DEPTH = 200;
/** Cap on the depth of left-associative operator chains (`a + b + c ...` nests to the left). */
const MAX_CHAIN_DEPTH = 1000;

const WRITE_STATEMENTS = new Set([
  'INSERT',
  'ALTER',
  'DROP',
  'CREATE',
  'SYSTEM',
  'KILL',
  'SET',
  'OPTIMIZE',
  'TRUNCATE',
  'RENAME',
  'GRANT',
  'REVOKE',
  'ATTACH',
  'DETACH',
  'DELETE',
  'UPDATE',
  'USE',
  'EXCHANGE',
  'UNDROP',
  'BACKUP',
  'RESTORE',
  'MOVE',
  'REPLACE',
  'UPSERT',
  'MERGE',
  'CHECK',
  'SHOW',
  'DESCRIBE',
  'DESC',
  'EXPLAIN',
  'EXISTS',
  'WATCH',
  'BEGIN',
  'COMMIT',
  'ROLLBACK',
]);

/**
 * Words that end an expression where a bare alias could otherwise follow (`SELECT a b FROM`):
 * ClickHouse's list of keywords that cannot be an implicit alias, plus clause starters.
 */
export const NON_ALIAS_KEYWORDS = new Set([
  'FROM',
  'WHERE',
  'PREWHERE',
  'GROUP',
  'HAVING',
  'ORDER',
  'LIMIT',
  'OFFSET',
  'SETTINGS',
  'FORMAT',
  'UNION',
  'EXCEPT',
  'INTERSECT',
  'INTO',
  'JOIN',
  'INNER',
  'LEFT',
  'RIGHT',
  'FULL',
  'CROSS',
  'ANY',
  'ALL',
  'ASOF',
  'SEMI',
  'ANTI',
  'GLOBAL',
  'ARRAY',
  'ON',
  'USING',
  'FINAL',
  'SAMPLE',
  'WINDOW',
  'QUALIFY',
  'AND',
  'OR',
  'NOT',
  'AS',
  'BY',
  'ASC',
  'DESC',
  'ASCENDING',
  'DESCENDING',
  'WITH',
  'SELECT',
  'IN',
  'LIKE',
  'ILIKE',
  'BETWEEN',
  'IS',
  'NULLS',
  'COLLATE',
  'TOTALS',
  'THEN',
  'ELSE',
  'END',
  'WHEN',
  'CASE',
  'OUTER',
  'PASTE',
  'LOCAL',
  'DISTINCT',
  'INTERVAL',
  'MOD',
  'DIV',
  'REGEXP',
  'FETCH',
  'TOP',
  'OVER',
  'FILL',
  'TIES',
  'STEP',
  'TO',
  'NULL',
  'TRUE',
  'FALSE',
]);

/** Error messages quote at most 40 characters of a token (a 1 MiB identifier stays out of logs). */
function clip(s: string): string {
  return s.length > 40 ? s.slice(0, 40) + '...' : s;
}

// Bare words that are not a column when they stand alone.
const ATOM_SPECIAL = new Set([
  'NULL',
  'TRUE',
  'FALSE',
  'INF',
  'NAN',
  'CASE',
  'CAST',
  'INTERVAL',
  'NOT',
  'EXISTS',
  'DATE',
  'TIMESTAMP',
  'SELECT',
  'FROM',
  'WHERE',
  'WITH',
  'COLUMNS',
]);

const INTERVAL_UNITS: Record<string, string> = {
  NANOSECOND: 'NANOSECOND',
  NANOSECONDS: 'NANOSECOND',
  NS: 'NANOSECOND',
  MICROSECOND: 'MICROSECOND',
  MICROSECONDS: 'MICROSECOND',
  US: 'MICROSECOND',
  MILLISECOND: 'MILLISECOND',
  MILLISECONDS: 'MILLISECOND',
  MS: 'MILLISECOND',
  SECOND: 'SECOND',
  SECONDS: 'SECOND',
  SS: 'SECOND',
  S: 'SECOND',
  MINUTE: 'MINUTE',
  MINUTES: 'MINUTE',
  MI: 'MINUTE',
  N: 'MINUTE',
  HOUR: 'HOUR',
  HOURS: 'HOUR',
  HH: 'HOUR',
  H: 'HOUR',
  DAY: 'DAY',
  DAYS: 'DAY',
  DD: 'DAY',
  D: 'DAY',
  WEEK: 'WEEK',
  WEEKS: 'WEEK',
  WK: 'WEEK',
  WW: 'WEEK',
  MONTH: 'MONTH',
  MONTHS: 'MONTH',
  MM: 'MONTH',
  M: 'MONTH',
  QUARTER: 'QUARTER',
  QUARTERS: 'QUARTER',
  QQ: 'QUARTER',
  Q: 'QUARTER',
  YEAR: 'YEAR',
  YEARS: 'YEAR',
  YYYY: 'YEAR',
  YY: 'YEAR',
};

/** One level's infix operators: symbols by their text, keyword spellings by their first word (longest first). */
interface LevelOperators {
  symbols: Map<string, Operator>;
  words: Map<string, { op: Operator; words: string[] }[]>;
}

function levelOperators(prec: number): LevelOperators {
  const level: LevelOperators = { symbols: new Map(), words: new Map() };
  for (const op of spellingsAt(prec)) {
    if (!/^[A-Z]/.test(op.spelling)) {
      level.symbols.set(op.spelling, op);
      continue;
    }
    const words = op.spelling.split(' ');
    const list = level.words.get(words[0]!) ?? [];
    list.push({ op, words });
    level.words.set(words[0]!, list);
  }
  return level;
}

const OR_LEVEL = levelOperators(PREC.or);
const AND_LEVEL = levelOperators(PREC.and);
const COMPARE_LEVEL = levelOperators(PREC.compare);
const CONCAT_LEVEL = levelOperators(PREC.concat);
const ADD_LEVEL = levelOperators(PREC.add);
const MULTIPLY_LEVEL = levelOperators(PREC.multiply);
const TERNARY = operatorAt(PREC.ternary, '?:');
const NOT = operatorAt(PREC.not, 'NOT');
const IS_NULL = operatorAt(PREC.isNull, 'IS NULL');
const IS_NOT_NULL = operatorAt(PREC.isNull, 'IS NOT NULL');
const BETWEEN = operatorAt(PREC.between, 'BETWEEN');
const NOT_BETWEEN = operatorAt(PREC.between, 'NOT BETWEEN');
const [LESS, GREATER, AT_LEAST, AT_MOST] = ['<', '>', '>=', '<='].map((x) => operatorAt(PREC.compare, x)) as [Operator, Operator, Operator, Operator];
const NEGATE = operatorAt(PREC.unary, '-');
const [IN, NOT_IN] = ['IN', 'NOT IN'].map((x) => operatorAt(PREC.compare, x)) as [Operator, Operator];

/** Parses exactly one SELECT statement (optionally with UNION, SETTINGS, FORMAT and one trailing ';'). */
export function parseSelect(sql: string, opts: ParseOptions = {}): SelectStatement {
  const maxLength = opts.maxLength ?? DEFAULT_MAX_LENGTH;
  if (typeof sql !== 'string') throw new ScatterError('BAD_REQUEST', 'sql must be a string');
  if (sql.length > maxLength) {
    throw new ScatterError('TOO_LARGE', `Query is ${sql.length} characters; the limit is ${maxLength}`);
  }
  const p = new Parser(tokenize(sql), opts.maxDepth ?? DEFAULT_MAX_DEPTH);
  return p.parseStatement();
}

/** Parses one expression (e.g. a sharding-key expression or a test fixture). */
export function parseExpression(sql: string, opts: ParseOptions = {}): Expr {
  const maxLength = opts.maxLength ?? DEFAULT_MAX_LENGTH;
  if (sql.length > maxLength) throw new ScatterError('TOO_LARGE', `Expression is ${sql.length} characters; the limit is ${maxLength}`);
  const p = new Parser(tokenize(sql), opts.maxDepth ?? DEFAULT_MAX_DEPTH);
  const e = p.parseExprWithAlias();
  p.expectEnd();
  return e;
}

class Parser {
  private i = 0;
  /** How many tokens the operator operatorHere last found spans. */
  private operatorWidth = 1;
  private depth = 0;
  /** Where the last `WITH TIES` was read: ClickHouse's 476 names it when the SELECT has no ORDER BY. */
  private tiesAt: Token | undefined;

  constructor(
    private readonly toks: Token[],
    private readonly maxDepth: number,
  ) {}

  // ---------------------------------------------------------------- token helpers

  private get t(): Token {
    return this.toks[this.i]!;
  }
  private peek(k = 1): Token {
    return this.toks[Math.min(this.i + k, this.toks.length - 1)]!;
  }
  private pos(t: Token = this.t): Pos {
    return { line: t.line, column: t.column, offset: t.start };
  }
  private isKw(word: string, t: Token = this.t): boolean {
    return t.type === 'ident' && t.upper === word;
  }
  private isOp(op: string, t: Token = this.t): boolean {
    return t.type === 'op' && t.text === op;
  }
  /** A postfix or binary operator after a closing parenthesis: `(1) + 1` is not a plain list. */
  private postfixFollows(): boolean {
    const t = this.t;
    return t.type === 'op' && POSTFIX_AFTER_LIST.has(t.text);
  }
  private acceptKw(word: string): boolean {
    if (this.isKw(word)) {
      this.i++;
      return true;
    }
    return false;
  }
  private acceptOp(op: string): boolean {
    if (this.isOp(op)) {
      this.i++;
      return true;
    }
    return false;
  }
  private describe(t: Token): string {
    switch (t.type) {
      case 'eof':
        return 'end of query';
      case 'string':
        return `string '${clip(t.text)}'`;
      case 'qident':
        return `identifier \`${clip(t.text)}\``;
      case 'param':
        return `parameter {${clip(t.text)}:${clip(t.extra ?? '')}}`;
      default:
        return `'${clip(t.text)}'`;
    }
  }
  error(expected: string, t: Token = this.t): ScatterError {
    return new ScatterError('SYNTAX_ERROR', `Syntax error at line ${t.line}, column ${t.column}: expected ${expected}, found ${this.describe(t)}`, {
      position: { line: t.line, column: t.column },
    });
  }
  private unsupported(what: string, t: Token = this.t): ScatterError {
    return new ScatterError('UNSUPPORTED', `${what} is not supported (line ${t.line}, column ${t.column})`, {
      position: { line: t.line, column: t.column },
    });
  }
  private expectKw(word: string): Token {
    const t = this.t;
    if (!this.isKw(word)) throw this.error(word);
    this.i++;
    return t;
  }
  private expectOp(op: string, what = `'${op}'`): Token {
    const t = this.t;
    if (!this.isOp(op)) throw this.error(what);
    this.i++;
    return t;
  }
  private enter(): void {
    if (++this.depth > this.maxDepth) {
      const t = this.t;
      throw new ScatterError('SYNTAX_ERROR', `Query is nested too deeply (more than ${this.maxDepth} levels) at line ${t.line}, column ${t.column}`, {
        position: { line: t.line, column: t.column },
      });
    }
  }
  private leave(): void {
    this.depth--;
  }
  /** An identifier (bare or quoted); returns its name. */
  private ident(what = 'an identifier'): string {
    const t = this.t;
    if (t.type === 'ident' || t.type === 'qident') {
      this.i++;
      return t.text;
    }
    throw this.error(what);
  }
  expectEnd(): void {
    if (this.t.type !== 'eof') throw this.error('end of query');
  }

  // ---------------------------------------------------------------- statements

  parseStatement(): SelectStatement {
    const first = this.t;
    if (first.type === 'eof') throw this.error('SELECT');
    if (first.type === 'ident' && WRITE_STATEMENTS.has(first.upper)) {
      throw new ScatterError('NOT_READ_ONLY', `Only SELECT queries are allowed; found ${first.upper} at line ${first.line}, column ${first.column}`, {
        position: { line: first.line, column: first.column },
      });
    }
    const stmt = this.parseUnion();
    this.acceptOp(';');
    if (this.t.type !== 'eof') {
      const t = this.t;
      // Anything after the statement's end that starts a statement is a second statement.
      if (this.toks[this.i - 1]!.text === ';') {
        throw new ScatterError('NOT_READ_ONLY', `Only one SELECT statement is allowed; found a second statement at line ${t.line}, column ${t.column}`, {
          position: { line: t.line, column: t.column },
        });
      }
      throw this.error('end of query');
    }
    return stmt;
  }

  /** SELECT ... [UNION ALL | EXCEPT | INTERSECT ... SELECT ...]* [FORMAT f] */
  private parseUnion(): SelectStatement {
    const start = this.t;
    const selects: SelectQuery[] = [this.parseSelectOrParens()];
    const ops: SetOperator[] = [];
    while (this.isKw('UNION') || this.isKw('EXCEPT') || this.isKw('INTERSECT')) {
      const word = this.t.upper as 'UNION' | 'EXCEPT' | 'INTERSECT';
      this.i++;
      const m = this.acceptKw('ALL') ? ' ALL' : this.acceptKw('DISTINCT') ? ' DISTINCT' : '';
      ops.push(`${word}${m}` as SetOperator);
      selects.push(this.parseSelectOrParens());
    }
    if (this.isKw('INTO')) {
      const t = this.t;
      throw new ScatterError('NOT_READ_ONLY', `INTO OUTFILE is not allowed (line ${t.line}, column ${t.column})`, {
        position: { line: t.line, column: t.column },
      });
    }
    let format: string | undefined;
    if (this.acceptKw('FORMAT')) {
      format = this.ident('a format name');
      // ClickHouse also accepts SETTINGS after FORMAT; they belong to the last SELECT.
      if (this.acceptKw('SETTINGS')) {
        const last = selects[selects.length - 1]!;
        last.settings = [...(last.settings ?? []), ...this.parseSettings()];
      }
    }
    if (selects.length === 1) {
      const q = selects[0]!;
      if (format !== undefined) {
        if (q.format !== undefined) throw this.error('end of query');
        q.format = format;
      }
      return q;
    }
    const u: UnionQuery = { kind: 'union', ops, selects, pos: this.pos(start) };
    // SETTINGS after the last SELECT apply to the whole statement (ClickHouse applies them so).
    const last = selects[selects.length - 1]!;
    if (last.settings) {
      u.settings = last.settings;
      delete last.settings;
    }
    if (last.format !== undefined) {
      u.format = last.format;
      delete last.format;
    }
    if (format !== undefined) u.format = format;
    return u;
  }

  private parseSelectOrParens(): SelectQuery {
    if (this.isOp('(')) {
      const t = this.t;
      this.i++;
      this.enter();
      const inner = this.parseUnion();
      this.leave();
      this.expectOp(')');
      if (inner.kind !== 'union') return inner;
      const pos = this.pos(t);
      return {
        kind: 'select',
        parenthesized: true,
        distinct: false,
        columns: [{ kind: 'asterisk', pos }],
        from: { table: { kind: 'subqueryTable', query: inner, pos }, joins: [] },
        withTotals: false,
        pos,
      };
    }
    return this.parseSelectQuery();
  }

  private parseSelectQuery(): SelectQuery {
    const start = this.t;
    let withItems: WithItem[] | undefined;
    let recursive = false;
    if (this.isKw('WITH')) {
      this.i++;
      if (this.acceptKw('RECURSIVE')) recursive = true;
      withItems = [];
      do withItems.push(this.parseWithItem());
      while (this.acceptOp(','));
    }
    if (!this.isKw('SELECT')) {
      if (this.t.type === 'ident' && WRITE_STATEMENTS.has(this.t.upper) && !withItems) {
        throw new ScatterError('NOT_READ_ONLY', `Only SELECT queries are allowed; found ${this.t.upper}`, {
          position: { line: this.t.line, column: this.t.column },
        });
      }
      throw this.error('SELECT');
    }
    this.i++;
    const q: SelectQuery = { kind: 'select', distinct: false, columns: [], withTotals: false, pos: this.pos(withItems ? start : this.toks[this.i - 1]) };
    if (withItems) q.with = withItems;
    if (recursive) q.withRecursive = true;
    if (this.acceptKw('DISTINCT')) {
      q.distinct = true;
      if (this.isKw('ON') && this.isOp('(', this.peek())) {
        this.i += 2;
        q.distinctOn = this.parseExprList(')');
        this.expectOp(')');
      }
    } else if (this.isKw('ALL')) {
      // As in ClickHouse, `SELECT ALL(x)` is the ALL modifier, not a function call.
      this.i++;
    }
    // `SELECT TOP n [WITH TIES]` is ClickHouse's LIMIT n (refused beside a LIMIT, 406).
    let top: { clause: LimitClause; at: Token } | undefined;
    if (this.isKw('TOP')) {
      const at = this.t;
      this.i++;
      // A number, bare or in parentheses, as ClickHouse's parser takes it.
      const paren = this.acceptOp('(');
      const num = this.t;
      if (num.type !== 'number') throw this.error('a number after TOP');
      this.i++;
      const limit = this.numberLiteral(num, false);
      if (paren) this.expectOp(')');
      top = { clause: { limit }, at };
      if (this.isKw('WITH') && this.isKw('TIES', this.peek())) {
        this.tiesAt = this.t;
        this.i += 2;
        top.clause.withTies = true;
      }
    }
    q.columns = this.parseSelectList();
    if (this.acceptKw('FROM')) q.from = this.parseFrom();
    if (this.acceptKw('PREWHERE')) q.prewhere = this.parseExprWithAlias();
    if (this.acceptKw('WHERE')) q.where = this.parseExprWithAlias();
    if (this.isKw('GROUP')) {
      this.i++;
      this.expectKw('BY');
      if (this.isKw('ALL') && !this.isOp('(', this.peek())) {
        this.i++;
        q.groupByAll = true;
      } else if (this.isKw('GROUPING') && this.isKw('SETS', this.peek())) {
        this.i += 2;
        q.groupingSets = this.parseGroupingSets();
      } else if ((this.isKw('ROLLUP') || this.isKw('CUBE')) && this.isOp('(', this.peek())) {
        q.groupByModifier = this.t.upper as 'ROLLUP' | 'CUBE';
        this.i += 2;
        q.groupBy = this.parseExprList(')');
        this.expectOp(')');
      } else if (!q.groupingSets) {
        q.groupBy = this.parseExprList();
      }
      while (this.isKw('WITH')) {
        const w = this.peek();
        if (this.isKw('TOTALS', w)) q.withTotals = true;
        else if (this.isKw('ROLLUP', w) || this.isKw('CUBE', w)) {
          if (q.groupByModifier) throw this.error('TOTALS', w);
          q.groupByModifier = w.upper as 'ROLLUP' | 'CUBE';
        } else break;
        this.i += 2;
      }
    }
    if (this.isKw('WITH') && this.isKw('TOTALS', this.peek())) {
      // WITH TOTALS without GROUP BY is legal ClickHouse (a totals row over everything).
      this.i += 2;
      q.withTotals = true;
    }
    if (this.acceptKw('HAVING')) q.having = this.parseExprWithAlias();
    if (this.isKw('WINDOW')) {
      this.i++;
      q.window = [];
      do {
        const name = this.ident('a window name');
        this.expectKw('AS');
        this.expectOp('(');
        q.window.push({ name, spec: this.parseWindowBody() });
      } while (this.acceptOp(','));
    }
    if (this.acceptKw('QUALIFY')) q.qualify = this.parseExprWithAlias();
    if (this.isKw('ORDER')) {
      this.i++;
      this.expectKw('BY');
      const all = this.parseOrderByAll();
      if (all) q.orderByAll = all;
      else {
        q.orderBy = this.parseOrderList();
        // ClickHouse reads INTERPOLATE only after an ORDER BY that fills.
        if (q.orderBy.some((o) => o.withFill) && this.acceptKw('INTERPOLATE')) q.interpolate = this.parseInterpolate();
      }
    }
    // LIMIT n [OFFSET m] BY ..., then LIMIT n [OFFSET m]. Both may appear, LIMIT BY first.
    if (this.isKw('LIMIT')) {
      const lim = this.parseLimitHead();
      if (this.acceptKw('BY')) {
        if (q.distinctOn) throw this.error('no LIMIT BY with DISTINCT ON (ClickHouse refuses both)', this.toks[this.i - 1]);
        const lb: LimitByClause = { limit: lim.limit, by: this.parseExprList() };
        if (lim.offset) lb.offset = lim.offset;
        if (lim.withTies) throw this.error('LIMIT ... BY without WITH TIES');
        q.limitBy = lb;
        if (this.isKw('LIMIT')) {
          const l2 = this.parseLimitHead();
          if (this.isKw('BY')) throw this.error('end of LIMIT clause');
          q.limit = l2;
        }
      } else {
        q.limit = lim;
      }
      if (q.limit?.withTies && q.distinctOn) throw this.error('no WITH TIES with DISTINCT ON (ClickHouse refuses both)', this.toks[this.i - 1]);
    }
    if (top) {
      if (q.limit)
        throw new ScatterError('QUERY_ERROR', `Can not use TOP and LIMIT together (line ${top.at.line}, column ${top.at.column})`, {
          position: { line: top.at.line, column: top.at.column },
          details: { clickhouse: { code: 406, name: 'TOP_AND_LIMIT_TOGETHER' } },
        });
      q.limit = top.clause;
    }
    if (this.isKw('OFFSET') || (this.isKw('FETCH') && !q.limit)) {
      if (q.limit?.offset) throw this.error('end of query');
      let off: Expr | undefined;
      if (this.acceptKw('OFFSET')) {
        off = this.parseExpr();
        this.acceptKw('ROWS') || this.acceptKw('ROW');
      }
      if (!q.limit && this.isKw('FETCH')) q.limit = this.parseFetch();
      // OFFSET alone is ClickHouse's LIMIT off, 2^64-1: every row after the first `off`.
      if (q.limit) {
        if (off) q.limit.offset = off;
      } else q.limit = { limit: { kind: 'literal', type: 'integer', value: UINT64_MAX_TEXT }, offset: off! };
    }
    if (q.limit?.withTies && !q.orderBy) {
      const at = this.tiesAt ?? this.t;
      throw new ScatterError('QUERY_ERROR', `Can not use WITH TIES without ORDER BY (line ${at.line}, column ${at.column})`, {
        position: { line: at.line, column: at.column },
        details: { clickhouse: { code: 476, name: 'WITH_TIES_WITHOUT_ORDER_BY' } },
      });
    }
    if (this.acceptKw('SETTINGS')) q.settings = this.parseSettings();
    return q;
  }

  /** `((a, b), (a), (), c)` after GROUPING SETS: each set parenthesized, or one bare expression. */
  private parseGroupingSets(): Expr[][] {
    this.expectOp('(');
    this.enter();
    const sets: Expr[][] = [];
    do {
      if (this.isOp('(')) {
        this.i++;
        sets.push(this.isOp(')') ? [] : this.parseExprList(')'));
        this.expectOp(')', "',' or ')' closing the grouping set");
      } else {
        sets.push([this.parseExprWithAlias()]);
      }
    } while (this.acceptOp(','));
    this.leave();
    this.expectOp(')', "',' or ')' closing GROUPING SETS");
    return sets;
  }

  private parseWithItem(): WithItem {
    // `name AS (SELECT ...)` is a CTE; anything else is `expr AS name`.
    const t = this.t;
    const materialized = this.isKw('MATERIALIZED', this.peek(2)) && this.isOp('(', this.peek(3));
    const open0 = materialized ? 3 : 2;
    if ((t.type === 'ident' || t.type === 'qident') && this.isKw('AS', this.peek()) && this.isOp('(', this.peek(open0))) {
      const after = this.peek(open0 + 1);
      if (this.isKw('SELECT', after) || this.isKw('WITH', after)) {
        const name = this.ident();
        this.i += materialized ? 2 : 1; // AS [MATERIALIZED]
        const open = this.t;
        this.i++; // (
        this.enter();
        const query = this.parseUnion();
        this.leave();
        this.expectOp(')');
        return { name, expr: { kind: 'subquery', query, pos: this.pos(open) }, cte: true, ...(materialized ? { materialized } : {}) };
      }
    }
    const expr = this.parseExpr();
    this.expectKw('AS');
    return { name: this.ident('a name for the WITH expression'), expr };
  }

  private parseSelectList(): Expr[] {
    const out: Expr[] = [];
    do {
      const e = this.parseExpr();
      this.parseAlias(e, true);
      out.push(e);
    } while (this.acceptOp(','));
    return out;
  }

  /** Optional `AS name` (or a bare name where `bare`) onto `e`. */
  private parseAlias(e: Expr, bare: boolean): void {
    if (this.acceptKw('AS')) {
      e.alias = this.ident('an alias after AS');
      return;
    }
    if (!bare) return;
    const t = this.t;
    if (t.type === 'qident' || (t.type === 'ident' && !NON_ALIAS_KEYWORDS.has(t.upper))) {
      this.i++;
      e.alias = t.text;
    }
  }

  private parseLimitHead(): LimitClause {
    this.expectKw('LIMIT');
    const first = this.parseExpr();
    const out: LimitClause = { limit: first };
    if (this.acceptOp(',')) {
      // LIMIT offset, count
      out.offset = first;
      out.limit = this.parseExpr();
    } else if (this.acceptKw('OFFSET')) {
      out.offset = this.parseExpr();
    }
    if (this.isKw('WITH') && this.isKw('TIES', this.peek())) {
      this.tiesAt = this.t;
      this.i += 2;
      out.withTies = true;
    }
    return out;
  }

  /**
   * `ORDER BY ALL [ASC|DESC] [NULLS FIRST|LAST]` alone, as ClickHouse's parser reads it (the unquoted
   * keyword); `ALL` followed by an operator or another element is the identifier (undefined, nothing read).
   */
  private parseOrderByAll(): (Omit<OrderItem, 'expr'> & { pos?: Pos }) | undefined {
    if (!this.isKw('ALL')) return undefined;
    const start = this.i;
    const item: Omit<OrderItem, 'expr'> & { pos?: Pos } = { direction: 'ASC', pos: this.pos(this.t) };
    this.i++;
    this.orderModifiers(item);
    if (this.t.type === 'op' && this.t.text !== ')' && this.t.text !== ';') {
      this.i = start;
      return undefined;
    }
    if (this.isKw('COLLATE') || this.isKw('WITH')) throw this.error('LIMIT, SETTINGS, FORMAT or the end of the query after ORDER BY ALL');
    return item;
  }

  /** `ASC | DESC` and `NULLS FIRST | LAST` after a sort key (or after ORDER BY ALL). */
  private orderModifiers(item: Pick<OrderItem, 'direction' | 'nulls'>): void {
    if (this.acceptKw('DESC') || this.acceptKw('DESCENDING')) item.direction = 'DESC';
    else this.acceptKw('ASC') || this.acceptKw('ASCENDING');
    if (this.acceptKw('NULLS')) {
      if (this.acceptKw('FIRST')) item.nulls = 'FIRST';
      else if (this.acceptKw('LAST')) item.nulls = 'LAST';
      else throw this.error('FIRST or LAST');
    }
  }

  private parseOrderList(): OrderItem[] {
    const out: OrderItem[] = [];
    do {
      const expr = this.parseExprWithAlias();
      const item: OrderItem = { expr, direction: 'ASC' };
      this.orderModifiers(item);
      if (this.acceptKw('COLLATE')) {
        const t = this.t;
        if (t.type !== 'string') throw this.error('a collation string');
        this.i++;
        item.collate = t.text;
      }
      if (this.isKw('WITH') && this.isKw('FILL', this.peek())) {
        this.i += 2;
        item.withFill = true;
        if (this.acceptKw('FROM')) item.fillFrom = this.parseExpr();
        if (this.acceptKw('TO')) item.fillTo = this.parseExpr();
        if (this.acceptKw('STEP')) item.fillStep = this.parseExpr();
        if (this.acceptKw('STALENESS')) item.fillStaleness = this.parseExpr();
      }
      out.push(item);
    } while (this.acceptOp(','));
    return out;
  }

  /** `FETCH FIRST | NEXT n ROW | ROWS ONLY | WITH TIES`, the standard spelling of ClickHouse's LIMIT n [WITH TIES]. */
  private parseFetch(): LimitClause {
    this.expectKw('FETCH');
    if (!this.acceptKw('FIRST')) this.expectKw('NEXT');
    const out: LimitClause = { limit: this.parseExpr() };
    if (!this.acceptKw('ROWS')) this.expectKw('ROW');
    if (this.isKw('WITH') && this.isKw('TIES', this.peek())) {
      this.tiesAt = this.t;
      this.i += 2;
      out.withTies = true;
    } else this.expectKw('ONLY');
    return out;
  }

  /** After INTERPOLATE: nothing or `()` (every column), or `(name [AS expr], ...)`. */
  private parseInterpolate(): InterpolateItem[] {
    const out: InterpolateItem[] = [];
    if (!this.acceptOp('(') || this.acceptOp(')')) return out;
    do {
      const item: InterpolateItem = { name: this.ident('a column name') };
      if (this.acceptKw('AS')) item.expr = this.parseExpr();
      out.push(item);
    } while (this.acceptOp(','));
    this.expectOp(')', "',' or ')'");
    return out;
  }

  private parseSettings(): SettingItem[] {
    const out: SettingItem[] = [];
    do {
      const name = this.ident('a setting name');
      this.expectOp('=', "'=' after the setting name");
      out.push({ name, value: this.isOp('{') ? this.parseMapLiteral() : this.parseExpr() });
    } while (this.acceptOp(','));
    return out;
  }

  /** `{'key': value, ...}`, a SETTINGS value (additional_table_filters): the map() call ClickHouse makes of it, printed back as braces. */
  private parseMapLiteral(): Expr {
    const t = this.t;
    this.expectOp('{');
    const args: Expr[] = [];
    if (!this.isOp('}'))
      do {
        args.push(this.parseExpr());
        this.expectOp(':', "':' after a map key");
        args.push(this.parseExpr());
      } while (this.acceptOp(','));
    this.expectOp('}', "',' or '}'");
    return { kind: 'function', name: 'map', args, operator: '{}', pos: this.pos(t) };
  }

  // ---------------------------------------------------------------- FROM

  private parseFrom(): FromClause {
    const from: FromClause = { table: this.parseTableExpr(), joins: [] };
    while (true) {
      const t = this.t;
      if (this.isKw('ARRAY') || ((this.isKw('LEFT') || this.isKw('INNER')) && this.isKw('ARRAY', this.peek()))) {
        const left = this.isKw('LEFT');
        if (!this.isKw('ARRAY')) this.i++;
        this.expectKw('ARRAY');
        this.expectKw('JOIN');
        if (from.arrayJoin) throw this.unsupported('More than one ARRAY JOIN', t);
        if (from.joins.length > 0) throw this.unsupported('ARRAY JOIN after a JOIN', t);
        const aj: ArrayJoinClause = { left, exprs: [], pos: this.pos(t) };
        do {
          const e = this.parseExpr();
          this.parseAlias(e, true);
          aj.exprs.push(e);
        } while (this.acceptOp(','));
        from.arrayJoin = aj;
        continue;
      }
      if (this.isOp(',')) {
        this.i++;
        from.joins.push({ global: false, type: 'COMMA', table: this.parseTableExpr(), pos: this.pos(t) });
        continue;
      }
      const j = this.tryParseJoin();
      if (!j) break;
      from.joins.push(j);
    }
    return from;
  }

  private tryParseJoin(): JoinClause | undefined {
    const save = this.i;
    const start = this.t;
    let global = false;
    let local = false;
    if (this.acceptKw('GLOBAL')) global = true;
    else if (this.acceptKw('LOCAL')) local = true;
    let strictness: JoinClause['strictness'];
    let type: JoinClause['type'] | undefined;
    const readStrictness = (): void => {
      for (const s of ['ANY', 'ALL', 'ASOF', 'SEMI', 'ANTI'] as const) {
        if (this.isKw(s)) {
          if (strictness) throw this.error('JOIN');
          strictness = s;
          this.i++;
          return;
        }
      }
    };
    readStrictness();
    for (const k of ['INNER', 'LEFT', 'RIGHT', 'FULL', 'CROSS', 'PASTE'] as const) {
      if (this.isKw(k)) {
        type = k;
        this.i++;
        break;
      }
    }
    if (type && type !== 'INNER' && type !== 'CROSS' && type !== 'PASTE') this.acceptKw('OUTER');
    if (!strictness) readStrictness(); // `LEFT ANY JOIN` is accepted too
    if (!this.isKw('JOIN')) {
      if (global || local || strictness || type) {
        if (this.isKw('ARRAY')) throw this.unsupported('GLOBAL/strictness on ARRAY JOIN');
        throw this.error('JOIN');
      }
      this.i = save;
      return undefined;
    }
    this.i++;
    if (local) throw this.unsupported('LOCAL JOIN', start);
    // ClickHouse's parser refuses any strictness on PASTE JOIN with this text, SEMI and ASOF too.
    if (type === 'PASTE' && strictness) {
      throw new ScatterError('SYNTAX_ERROR', `You must not specify ANY or ALL for PASTE JOIN (line ${start.line}, column ${start.column})`, {
        position: { line: start.line, column: start.column },
      });
    }
    // As ClickHouse's parser: SEMI and ANTI need LEFT or RIGHT.
    if ((strictness === 'SEMI' || strictness === 'ANTI') && type !== 'LEFT' && type !== 'RIGHT') {
      throw this.error(`LEFT or RIGHT with ${strictness} JOIN`, this.toks[this.i - 1]);
    }
    const j: JoinClause = { global, type: type ?? 'INNER', table: this.parseTableExpr(), pos: this.pos(start) };
    if (strictness) j.strictness = strictness;
    // A PASTE JOIN pairs rows by position: it takes no ON or USING.
    if (type === 'CROSS' || type === 'PASTE') return j;
    if (this.acceptKw('USING')) {
      if (this.acceptOp('(')) {
        j.using = this.parseExprList(')');
        this.expectOp(')');
      } else {
        j.using = this.parseExprList();
      }
    } else if (this.acceptKw('ON')) {
      j.on = this.parseExprWithAlias();
    } else {
      throw this.error('ON or USING');
    }
    return j;
  }

  private parseTableExpr(): TableExpr {
    const t = this.t;
    let te: TableExpr;
    if (this.isOp('(')) {
      this.i++;
      this.enter();
      if (!this.isKw('SELECT') && !this.isKw('WITH') && !this.isOp('(')) throw this.error('SELECT');
      const query = this.parseUnion();
      this.leave();
      this.expectOp(')');
      te = { kind: 'subqueryTable', query, pos: this.pos(t) };
    } else if (t.type === 'ident' || t.type === 'qident') {
      const first = this.ident('a table name');
      if (this.isOp('(')) {
        this.i++;
        this.enter();
        const args = this.isOp(')') ? [] : this.parseExprList(')');
        this.leave();
        this.expectOp(')');
        te = { kind: 'tableFunction', name: first, args, pos: this.pos(t) };
      } else if (this.acceptOp('.')) {
        const p = this.t;
        if (p.type === 'param' && p.extra === 'Identifier') this.i++;
        te =
          p.type === 'param' && p.extra === 'Identifier'
            ? { kind: 'table', database: first, table: '', param: p.text, pos: this.pos(t) }
            : { kind: 'table', database: first, table: this.ident('a table name after the database'), pos: this.pos(t) };
      } else {
        te = { kind: 'table', table: first, pos: this.pos(t) };
      }
    } else if (t.type === 'param' && t.extra === 'Identifier') {
      this.i++;
      if (this.acceptOp('.')) {
        // `{db:Identifier}.t` and `{db:Identifier}.{t:Identifier}`: the database is a parameter too.
        const p = this.t;
        if (p.type === 'param' && p.extra === 'Identifier') this.i++;
        te =
          p.type === 'param' && p.extra === 'Identifier'
            ? { kind: 'table', databaseParam: t.text, table: '', param: p.text, pos: this.pos(t) }
            : { kind: 'table', databaseParam: t.text, table: this.ident('a table name after the database'), pos: this.pos(t) };
      } else te = { kind: 'table', table: '', param: t.text, pos: this.pos(t) };
    } else {
      throw this.error('a table, table function or subquery');
    }
    // alias: AS name, or a bare name that is not a keyword
    if (this.acceptKw('AS')) te.alias = this.ident('a table alias');
    else if (this.t.type === 'qident' || (this.t.type === 'ident' && !NON_ALIAS_KEYWORDS.has(this.t.upper))) te.alias = this.ident();
    if (te.kind === 'table') {
      if (this.acceptKw('FINAL')) te.final = true;
      if (this.acceptKw('SAMPLE')) {
        const ratio = this.parseSampleRatio();
        te.sample = { ratio };
        if (this.acceptKw('OFFSET')) te.sample.offset = this.parseSampleRatio();
      }
      if (!te.final && this.acceptKw('FINAL')) te.final = true;
    } else if (this.isKw('FINAL') || this.isKw('SAMPLE')) {
      throw this.unsupported(`${this.t.upper} on a ${te.kind === 'subqueryTable' ? 'subquery' : 'table function'}`);
    }
    return te;
  }

  /** SAMPLE 0.1 / SAMPLE 1/10 / SAMPLE 10000: a number or a ratio of numbers. */
  private parseSampleRatio(): Expr {
    const t = this.t;
    if (t.type !== 'number') throw this.error('a sample ratio or row count');
    this.i++;
    const a: Expr = this.numberLiteral(t, false);
    if (this.isOp('/') && this.peek().type === 'number') {
      const op = this.t;
      this.i++;
      const b = this.numberLiteral(this.t, false);
      this.i++;
      return { kind: 'function', name: 'divide', args: [a, b], operator: '/', pos: this.pos(op) };
    }
    return a;
  }

  // ---------------------------------------------------------------- expressions

  /** Comma-separated expressions (each may carry `AS alias`), until a token that is not ','. */
  private parseExprList(close?: string): Expr[] {
    const out: Expr[] = [];
    do {
      if (close && this.isOp(close)) break; // trailing comma
      out.push(this.parseExprWithAlias());
    } while (this.acceptOp(','));
    return out;
  }

  parseExprWithAlias(): Expr {
    const e = this.parseExpr();
    this.parseAlias(e, false);
    return e;
  }

  /** lambda > ternary > OR > AND > NOT > IS NULL > BETWEEN > comparison > || > + - > * / % > unary - > postfix */
  parseExpr(): Expr {
    // Fast path for long lists of plain atoms (`1, 2, ...`, `a, b, ...`): an atom followed by
    // ',', ')' or ']' is the whole expression, whatever the context.
    const t = this.t;
    const after = this.peek();
    if (after.type === 'op' && (after.text === ',' || after.text === ')' || after.text === ']')) {
      if (t.type === 'number') {
        this.i++;
        return this.numberLiteral(t, false);
      }
      if (t.type === 'string') {
        this.i++;
        return { kind: 'literal', type: 'string', value: t.text, pos: this.pos(t) };
      }
      if (t.type === 'qident' || (t.type === 'ident' && !ATOM_SPECIAL.has(t.upper))) {
        this.i++;
        return { kind: 'column', parts: [t.text], pos: this.pos(t) };
      }
    }
    this.enter();
    try {
      const lam = this.tryLambda();
      if (lam) return lam;
      return this.parseTernary();
    } finally {
      this.leave();
    }
  }

  private tryLambda(): Expr | undefined {
    const t = this.t;
    if ((t.type === 'ident' || t.type === 'qident') && this.isOp('->', this.peek())) {
      this.i += 2;
      return { kind: 'lambda', params: [t.text], body: this.parseExpr(), pos: this.pos(t) };
    }
    if (this.isOp('(')) {
      // (x, y) -> body
      let k = 1;
      const params: string[] = [];
      while (true) {
        const p = this.peek(k);
        if (p.type !== 'ident' && p.type !== 'qident') return undefined;
        params.push(p.text);
        const sep = this.peek(k + 1);
        if (this.isOp(',', sep)) {
          k += 2;
          continue;
        }
        if (this.isOp(')', sep) && this.isOp('->', this.peek(k + 2))) {
          this.i += k + 3;
          return { kind: 'lambda', params, body: this.parseExpr(), pos: this.pos(t) };
        }
        return undefined;
      }
    }
    return undefined;
  }

  private parseTernary(): Expr {
    const cond = this.parseOr();
    if (!this.isOp('?')) return cond;
    const q = this.t;
    this.i++;
    const then = this.parseExpr();
    this.expectOp(':', "':' of the ?: operator");
    const otherwise = this.parseExpr();
    return { kind: 'function', name: TERNARY.name, args: [cond, then, otherwise], operator: TERNARY.spelling, pos: this.pos(q) };
  }

  // Each level below is its own method, operatorHere giving it the spellings the table puts at its
  // level (one generic loop re-entered for every level parsed measurably slower).

  // n-ary, as ClickHouse builds them: a OR b OR c is or(a, b, c)
  private parseOr(): Expr {
    const first = this.parseAnd();
    const op = this.operatorHere(OR_LEVEL);
    if (op === undefined) return first;
    const t = this.t;
    const args = [first];
    while (this.operatorHere(OR_LEVEL) === op) {
      this.i += this.operatorWidth;
      args.push(this.parseAnd());
    }
    return this.operatorCall(op, args, t);
  }

  private parseAnd(): Expr {
    const first = this.parseNot();
    const op = this.operatorHere(AND_LEVEL);
    if (op === undefined) return first;
    const t = this.t;
    const args = [first];
    while (this.operatorHere(AND_LEVEL) === op) {
      this.i += this.operatorWidth;
      args.push(this.parseNot());
    }
    return this.operatorCall(op, args, t);
  }

  private operatorCall(op: Operator, args: Expr[], t: Token): Expr {
    return { kind: 'function', name: op.name, args, operator: op.spelling, pos: this.pos(t) };
  }

  /** The level's operator that starts at the current token (its token count in `operatorWidth`). */
  private operatorHere(level: LevelOperators): Operator | undefined {
    const t = this.t;
    if (t.type === 'op') {
      this.operatorWidth = 1;
      return level.symbols.get(t.text);
    }
    if (t.type !== 'ident') return undefined;
    const candidates = level.words.get(t.upper);
    if (candidates === undefined) return undefined;
    for (let c = 0; c < candidates.length; c++) {
      const words = candidates[c]!.words;
      let k = 1;
      while (k < words.length && this.isKw(words[k]!, this.peek(k))) k++;
      if (k === words.length) {
        this.operatorWidth = k;
        return candidates[c]!.op;
      }
    }
    return undefined;
  }

  private parseNot(): Expr {
    // At the start of an operand NOT is always the prefix operator: `NOT (a) = b` is not(equals(a, b)).
    if (this.isKw('NOT')) {
      const t = this.t;
      this.i++;
      this.enter();
      try {
        return { kind: 'function', name: NOT.name, args: [this.parseNot()], operator: NOT.spelling, pos: this.pos(t) };
      } finally {
        this.leave();
      }
    }
    return this.parseIsNull();
  }

  private parseIsNull(): Expr {
    let e = this.parseBetween();
    while (this.isKw('IS')) {
      const t = this.t;
      this.i++;
      const not = this.acceptKw('NOT');
      // As ClickHouse builds them: `a IS [NOT] DISTINCT FROM b` is isDistinctFrom(a, b) (isNotDistinctFrom),
      // `x IS [NOT] TRUE` isNotDistinctFrom(x, true) (isDistinctFrom), `x IS [NOT] UNKNOWN` isNull(x) (isNotNull).
      if (this.acceptKw('DISTINCT')) {
        this.expectKw('FROM');
        e = { kind: 'function', name: not ? 'isNotDistinctFrom' : 'isDistinctFrom', args: [e, this.parseBetween()], pos: this.pos(t) };
        continue;
      }
      if (this.isKw('TRUE') || this.isKw('FALSE')) {
        const value = this.t.upper === 'TRUE' ? 'true' : 'false';
        const lit: Literal = { kind: 'literal', type: 'bool', value, pos: this.pos(this.t) };
        this.i++;
        e = { kind: 'function', name: not ? 'isDistinctFrom' : 'isNotDistinctFrom', args: [e, lit], pos: this.pos(t) };
        continue;
      }
      if (!this.acceptKw('UNKNOWN')) this.expectKw('NULL');
      const op = not ? IS_NOT_NULL : IS_NULL;
      e = { kind: 'function', name: op.name, args: [e], operator: op.spelling, pos: this.pos(t) };
    }
    return e;
  }

  private parseBetween(): Expr {
    let e = this.parseComparison();
    while (this.isKw('BETWEEN') || (this.isKw('NOT') && this.isKw('BETWEEN', this.peek()))) {
      const t = this.t;
      const not = this.acceptKw('NOT');
      this.i++;
      const lo = this.parseComparison();
      this.expectKw('AND');
      const hi = this.parseComparison();
      const x2 = cloneAst(e);
      const p = this.pos(t);
      e = not
        ? {
            kind: 'function',
            name: NOT_BETWEEN.name,
            operator: NOT_BETWEEN.spelling,
            pos: p,
            args: [
              { kind: 'function', name: LESS.name, args: [e, lo], operator: LESS.spelling, pos: p },
              { kind: 'function', name: GREATER.name, args: [x2, hi], operator: GREATER.spelling, pos: p },
            ],
          }
        : {
            kind: 'function',
            name: BETWEEN.name,
            operator: BETWEEN.spelling,
            pos: p,
            args: [
              { kind: 'function', name: AT_LEAST.name, args: [e, lo], operator: AT_LEAST.spelling, pos: p },
              { kind: 'function', name: AT_MOST.name, args: [x2, hi], operator: AT_MOST.spelling, pos: p },
            ],
          };
    }
    return e;
  }

  // left-associative, one call per operator: a = b = c is equals(equals(a, b), c); IN reads its own right side
  private parseComparison(): Expr {
    let e = this.parseConcat();
    let chain = 0;
    while (true) {
      const t = this.t;
      const op = this.operatorHere(COMPARE_LEVEL);
      if (op === undefined) return e;
      this.i += this.operatorWidth;
      if (++chain > MAX_CHAIN_DEPTH) throw this.tooDeep(t);
      const quantified = this.parseQuantified(op, e, t);
      if (quantified) {
        e = quantified;
        continue;
      }
      const right = op.spelling.endsWith('IN') ? this.parseInRight() : this.parseConcat();
      // `a LIKE b ESCAPE c` is like(a, b, c), as ClickHouse builds it (and ILIKE, NOT LIKE, NOT ILIKE).
      if (op.spelling.endsWith('LIKE') && this.acceptKw('ESCAPE'))
        e = { kind: 'function', name: op.name, args: [e, right, this.parseConcat()], pos: this.pos(t) };
      else e = this.operatorCall(op, [e, right], t);
    }
  }

  /**
   * `ANY|SOME|ALL (subquery)` after a plain comparison, rewritten as ClickHouse's parser does (operators.ts);
   * undefined (nothing consumed) otherwise: `x = any(y)` is the aggregate.
   */
  private parseQuantified(op: Operator, left: Expr, t: Token): Expr | undefined {
    const forms = QUANTIFIED_COMPARISONS.get(op.name);
    const word = this.t.type === 'ident' ? this.t.upper : '';
    if (!forms || !(word === 'ANY' || word === 'SOME' || word === 'ALL') || !this.isOp('(', this.peek())) return undefined;
    let k = 1;
    while (this.isOp('(', this.peek(k + 1))) k++;
    if (!this.isKw('SELECT', this.peek(k + 1)) && !this.isKw('WITH', this.peek(k + 1))) return undefined;
    const form = forms[word === 'ALL' ? 'ALL' : 'ANY'];
    const start = this.i++;
    const open = this.t;
    const sub = this.parsePunctPrimary();
    if (sub.kind !== 'subquery') {
      this.i = start; // `ANY((SELECT 1) + 1)`: a call after all
      return undefined;
    }
    const pos = this.pos(open);
    const right: SubqueryExpr = form.fold
      ? {
          kind: 'subquery',
          query: {
            kind: 'select',
            distinct: false,
            columns: [{ kind: 'function', name: form.fold, args: [{ kind: 'asterisk', pos }], pos }],
            from: { table: { kind: 'subqueryTable', query: sub.query, pos }, joins: [] },
            withTotals: false,
            pos,
          },
          pos,
        }
      : sub;
    const compare = form.operator === 'IN' ? IN : form.operator === 'NOT IN' ? NOT_IN : op;
    return this.operatorCall(compare, [left, right], t);
  }

  private tooDeep(t: Token): ScatterError {
    return new ScatterError('UNSUPPORTED', `Operator chain longer than ${MAX_CHAIN_DEPTH} at line ${t.line}, column ${t.column}`, {
      position: { line: t.line, column: t.column },
    });
  }

  /** Right side of IN: (SELECT ...), (1, 2, ...) as a tuple, a table name, tuple(...), or any expression. */
  private parseInRight(): Expr {
    if (this.isOp('(') && !this.isKw('SELECT', this.peek()) && !this.isKw('WITH', this.peek())) {
      // Fast path for long literal lists: `(1, 2, 'a', ...)` without recursion per item.
      const t = this.t;
      const fast = this.tryLiteralList();
      if (fast) return fast.length === 1 ? fast[0]! : { kind: 'tuple', items: fast, pos: this.pos(t) };
    }
    return this.parseConcat();
  }

  /** `(lit, lit, ...)` made only of literals (and negative numbers); undefined (nothing consumed) otherwise. */
  private tryLiteralList(): Expr[] | undefined {
    const save = this.i;
    this.i++; // (
    const items: Expr[] = [];
    if (this.isOp(')')) {
      this.i = save;
      return undefined;
    }
    while (true) {
      const t = this.t;
      let lit: Literal | undefined;
      if (t.type === 'number') {
        this.i++;
        lit = this.numberLiteral(t, false);
      } else if (t.type === 'string') {
        this.i++;
        lit = { kind: 'literal', type: 'string', value: t.text, pos: this.pos(t) };
      } else if (this.isOp('-') && this.peek().type === 'number') {
        this.i += 2;
        lit = this.numberLiteral(this.toks[this.i - 1]!, true, t);
      }
      if (!lit) break;
      items.push(lit);
      if (this.isOp(',')) {
        this.i++;
        // `(1, 2,)`: a trailing comma closes the list (for one item it makes a tuple, handled slowly).
        if (this.isOp(')') && items.length > 1) {
          this.i++;
          if (this.postfixFollows()) break;
          return items;
        }
        continue;
      }
      if (this.isOp(')')) {
        this.i++;
        // A postfix or operator after the list means it was not a plain list: `(1) + 1`.
        if (this.postfixFollows()) break;
        return items;
      }
      break;
    }
    this.i = save;
    return undefined;
  }

  private parseConcat(): Expr {
    const first = this.parseAdditive();
    const op = this.operatorHere(CONCAT_LEVEL);
    if (op === undefined) return first;
    const t = this.t;
    const args = [first];
    while (this.operatorHere(CONCAT_LEVEL) === op) {
      this.i += this.operatorWidth;
      args.push(this.parseAdditive());
    }
    return this.operatorCall(op, args, t);
  }

  // a - b + c is plus(minus(a, b), c)
  private parseAdditive(): Expr {
    let e = this.parseMultiplicative();
    let chain = 0;
    while (true) {
      const t = this.t;
      const op = this.operatorHere(ADD_LEVEL);
      if (op === undefined) return e;
      this.i += this.operatorWidth;
      const right = this.parseMultiplicative();
      if (++chain > MAX_CHAIN_DEPTH) throw this.tooDeep(t);
      e = this.operatorCall(op, [e, right], t);
    }
  }

  private parseMultiplicative(): Expr {
    let e = this.parseUnary();
    let chain = 0;
    while (true) {
      const t = this.t;
      const op = this.operatorHere(MULTIPLY_LEVEL);
      if (op === undefined) return e;
      this.i += this.operatorWidth;
      const right = this.parseUnary();
      if (++chain > MAX_CHAIN_DEPTH) throw this.tooDeep(t);
      e = this.operatorCall(op, [e, right], t);
    }
  }

  private parseUnary(): Expr {
    const t = this.t;
    if (this.isOp('-')) {
      const n = this.peek();
      // ClickHouse folds a minus directly before a number into the literal: `-5` is the literal -5.
      if (n.type === 'number' || (n.type === 'ident' && (n.upper === 'INF' || n.upper === 'NAN') && !this.isOp('(', this.peek(2)))) {
        this.i += 2;
        const lit =
          n.type === 'number'
            ? this.numberLiteral(n, true, t)
            : { kind: 'literal' as const, type: 'float' as const, value: '-' + n.text.toLowerCase(), pos: this.pos(t) };
        return this.parsePostfix(lit);
      }
      this.i++;
      this.enter();
      try {
        return { kind: 'function', name: NEGATE.name, args: [this.parseUnary()], operator: NEGATE.spelling, pos: this.pos(t) };
      } finally {
        this.leave();
      }
    }
    if (this.isOp('+')) {
      // unary plus is a no-op in ClickHouse
      this.i++;
      this.enter();
      try {
        return this.parseUnary();
      } finally {
        this.leave();
      }
    }
    return this.parsePostfix(this.parsePrimary());
  }

  private parsePostfix(base: Expr): Expr {
    let e = base;
    let chain = 0;
    while (true) {
      const t = this.t;
      if (this.isOp('[')) {
        this.i++;
        this.enter();
        const idx = this.parseExprWithAlias();
        this.leave();
        this.expectOp(']');
        e = { kind: 'function', name: 'arrayElement', args: [e, idx], operator: '[]', pos: this.pos(t) };
      } else if (this.isOp('.') && this.peek().type === 'number' && /^\d+$/.test(this.peek().text)) {
        const n = this.peek();
        this.i += 2;
        e = {
          kind: 'function',
          name: 'tupleElement',
          args: [e, { kind: 'literal', type: 'integer', value: n.text, pos: this.pos(n) }],
          operator: '.',
          pos: this.pos(t),
        };
      } else if (this.isOp('.') && (this.peek().type === 'ident' || this.peek().type === 'qident') && e.kind !== 'column') {
        // `f(x).name`: ClickHouse's tupleElement(f(x), 'name') (a column's `t.name` is a compound name).
        const n = this.peek();
        this.i += 2;
        e = { kind: 'function', name: 'tupleElement', args: [e, { kind: 'literal', type: 'string', value: n.text, pos: this.pos(n) }], pos: this.pos(t) };
      } else if (this.isOp('::')) {
        this.i++;
        e = { kind: 'cast', expr: e, type: this.parseTypeName(), syntax: 'colons', pos: this.pos(t) };
      } else if (this.isKw('AT') && this.isKw('TIME', this.peek()) && this.isKw('ZONE', this.peek(2))) {
        // `x AT TIME ZONE tz` is toTimeZone(x, tz), binding as tightly as `::`.
        this.i += 3;
        e = { kind: 'function', name: 'toTimeZone', args: [e, this.parsePostfix(this.parsePrimary())], pos: this.pos(t) };
      } else {
        return e;
      }
      if (++chain > MAX_CHAIN_DEPTH) throw this.tooDeep(t);
    }
  }

  /** A type as text, e.g. `Nullable(UInt64)`, `DateTime64(3, 'UTC')`, `Array(Tuple(a UInt8, b String))`. */
  private parseTypeName(): string {
    const start = this.t;
    const startIdx = this.i;
    if (start.type !== 'ident' && start.type !== 'qident') throw this.error('a type name');
    this.i++;
    // Multi-word types: `Double Precision`, etc. are rare; keep single word plus arguments.
    if (this.isOp('(')) {
      let depth = 0;
      do {
        if (this.isOp('(')) depth++;
        else if (this.isOp(')')) depth--;
        else if (this.t.type === 'eof') throw this.error("')' closing the type");
        this.i++;
      } while (depth > 0);
    }
    // Re-print argument tokens in a normalized way so spacing does not matter.
    return this.typeText(startIdx, this.i);
  }

  private typeText(from: number, toIdx: number): string {
    let out = '';
    const wordy = (x: Token | undefined): boolean =>
      x !== undefined && (x.type === 'ident' || x.type === 'qident' || x.type === 'number' || x.type === 'string');
    for (let k = from; k < toIdx; k++) {
      const tk = this.toks[k]!;
      if (k > from && wordy(this.toks[k - 1]) && wordy(tk)) out += ' ';
      if (tk.type === 'string') out += quoteStringLiteral(tk.text);
      else if (tk.type === 'qident') out += backquote(tk.text);
      else if (tk.type === 'param') out += `{${tk.text}:${tk.extra ?? ''}}`;
      else if (tk.type === 'op' && tk.text === ',') out += ', ';
      else out += tk.text;
    }
    return out;
  }

  private numberLiteral(t: Token, negative: boolean, minusTok?: Token): Literal {
    const s = t.text;
    const isInt = isIntegerSpelling(s);
    return { kind: 'literal', type: isInt ? 'integer' : 'float', value: negative ? '-' + s : s, pos: this.pos(minusTok ?? t) };
  }

  private parsePrimary(): Expr {
    const t = this.t;
    switch (t.type) {
      case 'number':
        this.i++;
        return this.numberLiteral(t, false);
      case 'string':
        this.i++;
        return { kind: 'literal', type: 'string', value: t.text, pos: this.pos(t) };
      case 'param':
        this.i++;
        return { kind: 'param', name: t.text, type: t.extra!, pos: this.pos(t) };
      case 'qident':
        return this.parseNameOrCall();
      case 'eof':
        throw this.error('an expression');
      case 'op':
        return this.parsePunctPrimary();
      case 'ident':
        break;
    }
    const next = this.peek();
    const callNext = this.isOp('(', next);
    switch (t.upper) {
      case 'NULL':
        this.i++;
        return { kind: 'literal', type: 'null', value: '', pos: this.pos(t) };
      case 'TRUE':
      case 'FALSE':
        if (callNext) break;
        this.i++;
        return { kind: 'literal', type: 'bool', value: t.upper.toLowerCase(), pos: this.pos(t) };
      case 'INF':
      case 'NAN':
        if (callNext || this.isOp('.', next)) break;
        this.i++;
        return { kind: 'literal', type: 'float', value: t.upper.toLowerCase(), pos: this.pos(t) };
      case 'CASE':
        return this.parseCase();
      case 'CAST':
        if (callNext) return this.parseCast();
        break;
      case 'INTERVAL':
        if (!callNext) return this.parseInterval();
        // `INTERVAL (x) DAY` is an interval; `INTERVAL(x)` without a unit is a function call.
        // Decided by looking past the matching ')' (no backtracking: nesting must stay linear).
        if (this.isUnitAt(this.peek(this.matchingParen(this.i + 1) - this.i + 1))) return this.parseInterval();
        break;
      case 'NOT':
        // `NOT` inside a tighter context, e.g. `a = NOT b`: ClickHouse parses it as not(...).
        return this.parseNot();
      case 'EXISTS':
        if (callNext && (this.isKw('SELECT', this.peek(2)) || this.isKw('WITH', this.peek(2)))) return this.parseExists(t);
        break;
      case 'DATE':
      case 'TIMESTAMP':
        // `DATE '2024-01-02'` is toDate('2024-01-02') to ClickHouse (and named so); TIMESTAMP is toDateTime.
        if (next.type === 'string') {
          this.i += 2;
          const lit: Expr = { kind: 'literal', type: 'string', value: next.text, pos: this.pos(next) };
          return { kind: 'function', name: t.upper === 'DATE' ? 'toDate' : 'toDateTime', args: [lit], pos: this.pos(t) };
        }
        break;
      case 'EXTRACT':
      case 'SUBSTRING':
      case 'TRIM':
      case 'POSITION':
        if (callNext) return this.parseSpecialCall(t);
        break;
      case 'SELECT':
      case 'FROM':
      case 'WHERE':
        throw this.error('an expression');
    }
    return this.parseNameOrCall();
  }

  /** `EXISTS (SELECT ...)`: the call ClickHouse makes of it, `exists` over the subquery. */
  private parseExists(t: Token): Expr {
    this.i += 2;
    this.enter();
    const sub = this.t;
    const query = this.parseUnion();
    this.leave();
    this.expectOp(')');
    return { kind: 'function', name: 'exists', args: [{ kind: 'subquery', query, pos: this.pos(sub) }], pos: this.pos(t) };
  }

  private parsePunctPrimary(): Expr {
    const t = this.t;
    // Outside a SETTINGS value ClickHouse 26 reads `{` as a query parameter: a map literal is no expression.
    if (this.isOp('{') || this.isOp('}'))
      throw new ScatterError('SYNTAX_ERROR', `Malformed query parameter: expected {name:Type} at line ${t.line}, column ${t.column}`, {
        position: { line: t.line, column: t.column },
      });
    if (this.isOp('(')) {
      this.i++;
      try {
        if (this.isKw('SELECT') || this.isKw('WITH')) {
          const query = this.parseUnion();
          this.expectOp(')');
          return { kind: 'subquery', query, pos: this.pos(t) };
        }
        if (this.acceptOp(')')) return { kind: 'tuple', items: [], pos: this.pos(t) };
        const first = this.parseExprWithAlias();
        if (this.acceptOp(')')) return first; // plain parentheses
        const items = [first];
        while (this.acceptOp(',')) {
          if (this.isOp(')')) break; // (1,) is a one-element tuple
          items.push(this.parseExprWithAlias());
        }
        this.expectOp(')', "',' or ')'");
        // `(x,)` prints back as tuple(x) (the only one-element spelling 18.16 knows): mark it so.
        return items.length === 1 ? { kind: 'tuple', items, explicit: true, pos: this.pos(t) } : { kind: 'tuple', items, pos: this.pos(t) };
      } finally {
      }
    }
    if (this.isOp('[')) {
      this.i++;
      try {
        const items = this.isOp(']') ? [] : this.parseExprList(']');
        this.expectOp(']', "',' or ']'");
        return { kind: 'array', items, pos: this.pos(t) };
      } finally {
      }
    }
    if (this.isOp('*')) {
      this.i++;
      return this.parseAsteriskModifiers({ kind: 'asterisk', pos: this.pos(t) });
    }
    throw this.error('an expression');
  }

  /**
   * The transformers after a matcher, in order, as ClickHouse reads them: `EXCEPT [STRICT] (a, b)` /
   * `EXCEPT a` / `EXCEPT ('re')`, `REPLACE [STRICT] (expr AS name, ...)`, `APPLY f` / `APPLY(f)` / `APPLY(x -> ...)`.
   */
  private parseAsteriskModifiers(e: Asterisk): Expr {
    const parenthesized = <T>(one: () => T): T[] => {
      if (!this.acceptOp('(')) return [one()];
      const out: T[] = [];
      do out.push(one());
      while (this.acceptOp(','));
      this.expectOp(')', "',' or ')'");
      return out;
    };
    const steps: ColumnTransformer[] = [];
    while (this.isKw('APPLY') || this.isKw('EXCEPT') || this.isKw('REPLACE')) {
      // `* EXCEPT SELECT ...` is the set operation, not the transformer.
      if (this.isKw('EXCEPT') && (this.isKw('SELECT', this.peek()) || this.isKw('ALL', this.peek()) || this.isKw('DISTINCT', this.peek()))) break;
      const word = this.t.upper;
      this.i++;
      const strict = word !== 'APPLY' && this.acceptKw('STRICT');
      if (word === 'APPLY') steps.push({ kind: 'apply', fn: this.parseApplied() });
      else if (word === 'EXCEPT') {
        const re = this.peek();
        if (this.isOp('(') && re.type === 'string' && this.isOp(')', this.peek(2))) {
          this.i += 3;
          steps.push({ kind: 'except', names: [], pattern: re.text, ...(strict ? { strict } : {}) });
        } else steps.push({ kind: 'except', names: parenthesized(() => this.ident('a column name')), ...(strict ? { strict } : {}) });
      } else
        steps.push({
          kind: 'replace',
          items: parenthesized(() => {
            const expr = this.parseTernary();
            this.expectKw('AS');
            return { expr, name: this.ident('a column name') };
          }),
          ...(strict ? { strict } : {}),
        });
    }
    if (steps.length) e.transformers = steps;
    return e;
  }

  /** After APPLY: `f`, `(f)`, `(quantile(0.9))` or `(x -> body)`, as ClickHouse reads them. */
  private parseApplied(): FunctionCall | LambdaExpr {
    const t = this.t;
    const paren = this.acceptOp('(');
    let fn: FunctionCall | LambdaExpr;
    const lam = paren ? this.tryLambda() : undefined;
    if (lam) {
      // ClickHouse's parser refuses it so (62), whatever the columns.
      if (lam.kind !== 'lambda' || lam.params.length !== 1)
        throw new ScatterError('SYNTAX_ERROR', `APPLY column transformer can only accept lambda with one argument (line ${t.line}, column ${t.column})`, {
          position: { line: t.line, column: t.column },
        });
      fn = lam;
    } else {
      const name = this.ident('a function name');
      fn = { kind: 'function', name, args: [], pos: this.pos(t) };
      // `quantile(0.9)`: the parameters of a parametric function, applied to each column.
      if (paren && this.acceptOp('(')) {
        const params: Expr[] = [];
        if (!this.isOp(')'))
          do params.push(this.parseExpr());
          while (this.acceptOp(','));
        this.expectOp(')', "',' or ')'");
        fn.params = params;
      }
    }
    if (paren) this.expectOp(')', "')' after the applied function");
    return fn;
  }

  /** identifier, compound identifier (a.b.c), t.*, or a function call name(...)[(...)] */
  private parseNameOrCall(): Expr {
    const t = this.t;
    const parts: string[] = [this.ident()];
    if (this.isOp('(') && t.type === 'ident') return this.parseCall(t);
    if (this.isOp('(') && t.type === 'qident') return this.parseCall(t);
    let prefix: number | undefined;
    while (this.isOp('.')) {
      const n = this.peek();
      const after = this.peek(2);
      if ((this.isOp(':', n) || (this.isOp('^', n) && prefix === undefined)) && (after.type === 'ident' || after.type === 'qident')) {
        // A JSON column's typed path `j.a.:Int64` (it ends the reference) or sub-object `j.^a`.
        this.i += 3;
        if (this.isOp(':', n)) return { kind: 'column', parts, typed: after.text, pos: this.pos(t) };
        prefix = parts.length;
        parts.push(after.text);
        continue;
      }
      if (n.type === 'ident' || n.type === 'qident') {
        this.i += 2;
        parts.push(n.text);
      } else if (this.isOp('*', n)) {
        this.i += 2;
        return this.parseAsteriskModifiers({ kind: 'asterisk', table: parts, pos: this.pos(t) });
      } else break;
      if (n.type === 'ident' && n.upper === 'COLUMNS' && this.isOp('(')) {
        // `t.COLUMNS(...)`: the matcher over one table's columns.
        const matcher = this.tryColumnsMatcher(parts.slice(0, -1), t);
        if (matcher) return matcher;
      }
    }
    if (parts.length > 1 && this.isOp('(')) throw this.unsupported(`Qualified function name ${clip(parts.join('.'))}`, t);
    return prefix === undefined ? { kind: 'column', parts, pos: this.pos(t) } : { kind: 'column', parts, prefix, pos: this.pos(t) };
  }

  /**
   * At the `(` after `COLUMNS`: `COLUMNS('regexp')` or `COLUMNS(a, t.b)` (identifiers only), a matcher over the
   * table's columns, with its transformers; undefined for anything else, which ClickHouse reads as a call.
   */
  private tryColumnsMatcher(table: string[], start: Token): Expr | undefined {
    const at = this.i;
    const e: Asterisk = { kind: 'asterisk', ...(table.length ? { table } : {}), pos: this.pos(start) };
    this.i++; // (
    const re = this.t;
    if (re.type === 'string' && this.isOp(')', this.peek())) {
      this.i += 2;
      e.regexp = re.text;
      return this.parseAsteriskModifiers(e);
    }
    const list: ColumnRef[] = [];
    while (this.t.type === 'ident' || this.t.type === 'qident') {
      const c = this.t;
      const parts = [this.ident()];
      while (this.isOp('.') && (this.peek().type === 'ident' || this.peek().type === 'qident')) {
        this.i++;
        parts.push(this.ident());
      }
      list.push({ kind: 'column', parts, pos: this.pos(c) });
      if (!this.acceptOp(',')) break;
    }
    if (list.length && this.acceptOp(')')) {
      e.list = list;
      return this.parseAsteriskModifiers(e);
    }
    this.i = at;
    return undefined;
  }

  private parseCall(nameTok: Token): Expr {
    const name = nameTok.text;
    if (nameTok.type === 'ident' && nameTok.upper === 'COLUMNS') {
      const matcher = this.tryColumnsMatcher([], nameTok);
      if (matcher) return matcher;
    }
    const open = this.t;
    this.i++; // (
    try {
      let distinct = false;
      if (this.isKw('DISTINCT') && !this.isOp(')', this.peek()) && !this.isOp(',', this.peek())) {
        this.i++;
        distinct = true;
      } else if (this.isKw('ALL') && !this.isOp(')', this.peek()) && !this.isOp(',', this.peek()) && !this.isOp('(', this.peek())) {
        this.i++;
      }
      let args: Expr[];
      // count(*) is count() in ClickHouse's AST (and its column name is `count()`).
      if (this.isOp('*') && this.isOp(')', this.peek()) && name.toLowerCase() === 'count') {
        this.i++;
        args = [];
      } else {
        args = this.isOp(')') ? [] : this.parseExprList(')');
      }
      this.expectOp(')', "',' or ')'");
      let params: Expr[] | undefined;
      if (this.isOp('(')) {
        // parametric aggregate: name(params)(args)
        if (distinct) throw this.error('end of the function call', this.t);
        this.i++;
        params = args;
        if (this.isKw('DISTINCT') && !this.isOp(')', this.peek())) {
          this.i++;
          distinct = true;
        }
        // ClickHouse refuses `f(1)()`: a parametric call needs arguments.
        if (this.isOp(')')) throw this.error('an expression');
        args = this.parseExprList(')');
        this.expectOp(')', "',' or ')'");
      }
      let nulls: 'RESPECT' | 'IGNORE' | undefined;
      const nullsTok = this.t;
      if ((this.isKw('RESPECT') || this.isKw('IGNORE')) && this.isKw('NULLS', this.peek())) {
        nulls = this.t.upper as 'RESPECT' | 'IGNORE';
        this.i += 2;
      }
      // ClickHouse's parser spells GROUPING (any case) `grouping`, and names the column so.
      let fname = nameTok.type === 'ident' && name.toLowerCase() === 'grouping' ? 'grouping' : name;
      let written: string | undefined;
      // On an aggregate the clause names another function (nulls-action.ts); a window function keeps it.
      if (nulls && !this.isKw('OVER')) {
        const to = nullsActionName(name, nulls);
        if ('code' in to)
          throw new ScatterError('QUERY_ERROR', `${to.message} (line ${nullsTok.line}, column ${nullsTok.column})`, {
            position: { line: nullsTok.line, column: nullsTok.column },
            details: { clickhouse: { code: to.code, name: to.code === 48 ? 'NOT_IMPLEMENTED' : 'SYNTAX_ERROR' } },
          });
        if (to.name !== name) written = name;
        fname = to.name;
        nulls = undefined;
      }
      if (this.isKw('FILTER') && this.isOp('(', this.peek())) {
        // `f(x) FILTER (WHERE c)` is ClickHouse's `fIf(x, c)`, rewritten so by its parser (and named so).
        this.i += 2;
        if (!this.acceptKw('WHERE')) throw this.error('WHERE after FILTER (');
        args = [...args, this.parseExpr()];
        this.expectOp(')', "')' closing FILTER (WHERE ...)");
        fname = `${fname}If`;
        if (written) written = `${written}If`;
      }
      const over = this.acceptKw('OVER') ? this.parseOver() : undefined;
      if (!over && !params && !distinct && name.toLowerCase() === 'tuple' && nameTok.type === 'ident') {
        return { kind: 'tuple', items: args, explicit: true, pos: this.pos(nameTok) };
      }
      const f: FunctionCall = { kind: 'function', name: fname, args, pos: this.pos(nameTok) };
      if (params) f.params = params;
      if (distinct) f.distinct = true;
      if (nulls) f.nulls = nulls;
      if (written) f.written = written;
      if (over) f.over = over;
      void open;
      return f;
    } finally {
    }
  }

  /** After OVER: a window name, or `(` a window body `)`. */
  private parseOver(): WindowSpec {
    if (this.acceptOp('(')) return this.parseWindowBody();
    return { name: this.ident("a window name or '(' after OVER") };
  }

  /** `[base] [PARTITION BY ...] [ORDER BY ...] [ROWS|RANGE frame] )` (the '(' is consumed). */
  private parseWindowBody(): WindowSpec {
    this.enter();
    const spec: WindowSpec = {};
    const t = this.t;
    if ((t.type === 'ident' || t.type === 'qident') && !['PARTITION', 'ORDER', 'ROWS', 'RANGE', 'GROUPS'].includes(t.type === 'ident' ? t.upper : '')) {
      spec.base = this.ident();
    }
    if (this.acceptKw('PARTITION')) {
      this.expectKw('BY');
      spec.partitionBy = this.parseExprList(')');
    }
    if (this.acceptKw('ORDER')) {
      this.expectKw('BY');
      spec.orderBy = this.parseOrderList();
    }
    if (this.isKw('GROUPS')) throw this.unsupported('GROUPS window frames');
    if (this.isKw('ROWS') || this.isKw('RANGE')) {
      const unit = this.t.upper as 'ROWS' | 'RANGE';
      this.i++;
      if (this.acceptKw('BETWEEN')) {
        const startTok = this.t;
        const start = this.parseFrameBound();
        // As ClickHouse's parser: a frame cannot start at UNBOUNDED FOLLOWING or end at UNBOUNDED PRECEDING.
        if (start.type === 'UNBOUNDED FOLLOWING') throw this.error('a frame start other than UNBOUNDED FOLLOWING', startTok);
        this.expectKw('AND');
        const endTok = this.t;
        const end = this.parseFrameBound();
        if (end.type === 'UNBOUNDED PRECEDING') throw this.error('a frame end other than UNBOUNDED PRECEDING', endTok);
        spec.frame = { unit, start, end };
      } else {
        // ClickHouse reads `ROWS 2 PRECEDING` as BETWEEN 2 PRECEDING AND CURRENT ROW (and names it so).
        const startTok = this.t;
        const start = this.parseFrameBound();
        if (start.type === 'UNBOUNDED FOLLOWING') throw this.error('a frame start other than UNBOUNDED FOLLOWING', startTok);
        spec.frame = { unit, start, end: { type: 'CURRENT ROW' } };
      }
    }
    this.expectOp(')', "')' closing the window");
    this.leave();
    return spec;
  }

  private parseFrameBound(): FrameBound {
    if (this.acceptKw('UNBOUNDED')) {
      if (this.acceptKw('PRECEDING')) return { type: 'UNBOUNDED PRECEDING' };
      if (this.acceptKw('FOLLOWING')) return { type: 'UNBOUNDED FOLLOWING' };
      throw this.error('PRECEDING or FOLLOWING');
    }
    if (this.acceptKw('CURRENT')) {
      this.expectKw('ROW');
      return { type: 'CURRENT ROW' };
    }
    const offset = this.parseExpr();
    if (this.acceptKw('PRECEDING')) return { type: 'PRECEDING', offset };
    if (this.acceptKw('FOLLOWING')) return { type: 'FOLLOWING', offset };
    throw this.error('PRECEDING or FOLLOWING');
  }

  /**
   * SUBSTRING(s FROM a [FOR b]) is substring(s, a[, b]), as ClickHouse's parser reads it: the first separator is
   * FROM or a comma, the second FOR or a comma (`substring(s, 2 FOR 3)` too). `SUBSTRING(s FOR n)` is its syntax error.
   */
  private parseSubstring(t: Token): Expr {
    this.i += 2; // SUBSTRING (
    this.enter();
    const args = [this.parseExpr()];
    if (this.isKw('FOR')) throw this.error("FROM or ','", this.peek());
    if (!this.acceptKw('FROM')) this.expectOp(',', "FROM or ','");
    args.push(this.parseExpr());
    if (this.acceptKw('FOR') || this.acceptOp(',')) args.push(this.parseExpr());
    this.leave();
    this.expectOp(')', "FOR, ',' or ')'");
    return { kind: 'function', name: 'substring', args, pos: this.pos(t) };
  }

  /** POSITION(needle IN haystack) is position(haystack, needle); the needle binds tighter than IN. */
  private parsePosition(t: Token): Expr {
    this.i += 2; // POSITION (
    this.enter();
    const needle = this.parseConcat();
    this.expectKw('IN');
    const haystack = this.parseExpr();
    this.leave();
    this.expectOp(')');
    return { kind: 'function', name: 'position', args: [haystack, needle], pos: this.pos(t) };
  }

  /** TRIM([BOTH|LEADING|TRAILING] chars FROM s) is trimBoth / trimLeft / trimRight(s, chars). */
  private parseTrim(t: Token): Expr {
    this.i += 2; // TRIM (
    this.enter();
    let name = 'trimBoth';
    if (this.acceptKw('LEADING')) name = 'trimLeft';
    else if (this.acceptKw('TRAILING')) name = 'trimRight';
    else this.acceptKw('BOTH');
    // As ClickHouse's parser: the characters are not optional in this form (`TRIM(LEADING FROM s)` is refused).
    if (this.isKw('FROM')) throw this.error('the characters to trim before FROM');
    const chars = this.parseExpr();
    this.expectKw('FROM');
    const str = this.parseExpr();
    this.leave();
    this.expectOp(')');
    return { kind: 'function', name, args: [str, chars], pos: this.pos(t) };
  }

  /** `EXTRACT(unit FROM x)`: the function ClickHouse reads it as (`EXTRACT(MINUTE FROM t)` is toMinute(t)). */
  private parseExtract(t: Token): Expr {
    const u = this.peek(2);
    const fn = u.type === 'ident' ? EXTRACT_FUNCTIONS[INTERVAL_UNITS[u.upper] ?? ''] : undefined;
    if (!fn) throw this.error('a unit (SECOND, MINUTE, HOUR, DAY, WEEK, MONTH, QUARTER, YEAR, ...) for EXTRACT', u);
    this.i += 4; // EXTRACT ( unit FROM
    this.enter();
    const arg = this.parseExprWithAlias();
    this.leave();
    this.expectOp(')');
    return { kind: 'function', name: fn, args: [arg], pos: this.pos(t) };
  }

  private parseCase(): Expr {
    const t = this.t;
    this.i++;
    try {
      const c: CaseExpr = { kind: 'case', whens: [], pos: this.pos(t) };
      if (this.isKw('END')) throw this.error('WHEN');
      if (!this.isKw('WHEN')) c.operand = this.parseExprWithAlias();
      while (this.acceptKw('WHEN')) {
        const when = this.parseExprWithAlias();
        this.expectKw('THEN');
        // biome-ignore lint/suspicious/noThenProperty: a CASE branch's THEN expression (an AST node, never a function)
        c.whens.push({ when, then: this.parseExprWithAlias() });
      }
      if (c.whens.length === 0) throw this.error('WHEN');
      if (this.acceptKw('ELSE')) c.else = this.parseExprWithAlias();
      this.expectKw('END');
      return c;
    } finally {
    }
  }

  private parseCast(): Expr {
    const t = this.t;
    this.i += 2; // CAST (
    try {
      // No alias here: `CAST(x AS T)` uses AS for the type.
      const expr = this.parseExpr();
      if (this.acceptKw('AS')) {
        const type = this.parseTypeName();
        this.expectOp(')');
        return { kind: 'cast', expr, type, syntax: 'as', pos: this.pos(t) };
      }
      if (this.acceptOp(',')) {
        const ty = this.t;
        if (ty.type !== 'string') {
          // CAST(x, expr) with a non-literal type: an ordinary function call.
          const rest = this.parseExprList(')');
          this.expectOp(')');
          return { kind: 'function', name: t.text, args: [expr, ...rest], pos: this.pos(t) };
        }
        this.i++;
        this.expectOp(')');
        return { kind: 'cast', expr, type: ty.text, syntax: 'comma', pos: this.pos(t) };
      }
      throw this.error("AS or ','");
    } finally {
    }
  }

  private parseInterval(): Expr {
    const t = this.t;
    this.i++;
    // INTERVAL '1 day' (string form) or INTERVAL <expr> <unit>
    if (this.t.type === 'string') {
      const s = this.t;
      const m = /^\s*(-?\d+)\s+([A-Za-z]+)\s*$/.exec(s.text);
      if (m && INTERVAL_UNITS[m[2]!.toUpperCase()] && !this.isUnitAt(this.peek())) {
        this.i++;
        const neg = m[1]!.startsWith('-');
        const digits = neg ? m[1]!.slice(1) : m[1]!;
        return {
          kind: 'interval',
          value: { kind: 'literal', type: 'integer', value: neg ? '-' + digits : digits, pos: this.pos(s) },
          unit: INTERVAL_UNITS[m[2]!.toUpperCase()]!,
          pos: this.pos(t),
        };
      }
    }
    // The value binds tighter than any binary operator: INTERVAL 1 + 1 DAY is not valid.
    this.enter();
    const value = this.parseUnary();
    this.leave();
    const u = this.t;
    if (u.type !== 'ident' || !INTERVAL_UNITS[u.upper]) throw this.error('an interval unit (SECOND, MINUTE, HOUR, DAY, WEEK, MONTH, QUARTER, YEAR)');
    this.i++;
    return { kind: 'interval', value, unit: INTERVAL_UNITS[u.upper]!, pos: this.pos(t) };
  }

  private parenMatch: Int32Array | undefined;

  /** Index of the ')' matching the '(' at token index `open` (or of the eof token). One O(n) pass, cached. */
  private matchingParen(open: number): number {
    if (!this.parenMatch) {
      const m = new Int32Array(this.toks.length).fill(this.toks.length - 1);
      const stack: number[] = [];
      for (let k = 0; k < this.toks.length; k++) {
        const x = this.toks[k]!;
        if (x.type !== 'op') continue;
        if (x.text === '(') stack.push(k);
        else if (x.text === ')' && stack.length > 0) m[stack.pop()!] = k;
      }
      this.parenMatch = m;
    }
    return this.parenMatch[open]!;
  }

  private isUnitAt(t: Token): boolean {
    return t.type === 'ident' && INTERVAL_UNITS[t.upper] !== undefined;
  }

  /**
   * The SQL-standard keyword forms, read as the calls ClickHouse makes of them (and names them by):
   * EXTRACT(unit FROM x), SUBSTRING(s FROM a [FOR b]), POSITION(a IN b), TRIM([BOTH|LEADING|TRAILING] [c] FROM s).
   */
  private parseSpecialCall(t: Token): Expr {
    if (t.upper === 'EXTRACT' && this.isKw('FROM', this.peek(3))) return this.parseExtract(t);
    // Look for the SQL-standard keyword forms inside; refuse them, else parse as a plain call.
    let k = 2;
    let depth = 0;
    while (true) {
      const x = this.peek(k);
      if (x.type === 'eof') break;
      if (this.isOp('(', x)) depth++;
      else if (this.isOp(')', x)) {
        if (depth === 0) break;
        depth--;
      } else if (depth === 0 && x.type === 'ident' && ['FROM', 'FOR', 'IN', 'BOTH', 'LEADING', 'TRAILING'].includes(x.upper)) {
        const kw = x.upper;
        if (t.upper === 'SUBSTRING') {
          if (kw === 'FROM' || kw === 'FOR') return this.parseSubstring(t);
          k++;
          continue;
        }
        if (t.upper === 'POSITION' && kw === 'IN') return this.parsePosition(t);
        if (t.upper === 'TRIM' && kw !== 'FOR' && kw !== 'IN') return this.parseTrim(t);
        throw this.unsupported(`${t.upper}(... ${kw} ...) syntax`, t);
      }
      k++;
    }
    return this.parseNameOrCall();
  }
}

// 0x.., 0b.. or plain digits (a float has '.', 'e' or 'E' but hex digits may contain 'e').
function isIntegerSpelling(s: string): boolean {
  const c1 = s.charCodeAt(1);
  if (s.charCodeAt(0) === 48 && (c1 === 120 || c1 === 88 || c1 === 98 || c1 === 66)) return true;
  for (let k = 0; k < s.length; k++) {
    const c = s.charCodeAt(k);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

export { positionAt };
