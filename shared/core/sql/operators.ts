// ClickHouse's operators (src/Parsers/ExpressionListParsers.cpp): each spelling, the function call it
// builds and how tightly it binds. The parser reads which spellings belong to each of its levels, the
// printer the precedences and forms: one table, so that what parses and what prints cannot drift apart.

/** Precedence levels, higher binds tighter. Levels without operators here are for the printer. */
export const PREC = {
  lambda: 1,
  ternary: 2,
  or: 3,
  and: 4,
  not: 5,
  isNull: 6,
  between: 7,
  compare: 9,
  concat: 10,
  add: 11,
  multiply: 12,
  unary: 13,
  postfix: 14,
  primary: 15,
} as const;

/** How the operator sits among its operands (the printer's layout, the parser's loop). */
export type OperatorForm = 'nary' | 'binary' | 'cmp' | 'prefix' | 'postfixWord' | 'index' | 'tupleIndex' | 'ternary' | 'between';

export interface Operator {
  /** As written and as kept in the AST's `operator`: a symbol, or keywords in upper case joined by one space. */
  spelling: string;
  /** The function ClickHouse builds. */
  name: string;
  /** 'n': two or more (ClickHouse folds `a OR b OR c` into one call). */
  arity: number | 'n';
  prec: number;
  form: OperatorForm;
}

const op = (spelling: string, name: string, arity: number | 'n', prec: number, form: OperatorForm): Operator => ({ spelling, name, arity, prec, form });

const COMPARISON_NAMES: [string, string][] = [
  ['=', 'equals'],
  ['==', 'equals'],
  ['!=', 'notEquals'],
  ['<>', 'notEquals'],
  ['<', 'less'],
  ['<=', 'lessOrEquals'],
  ['>', 'greater'],
  ['>=', 'greaterOrEquals'],
  ['<=>', 'isNotDistinctFrom'],
  ['LIKE', 'like'],
  ['ILIKE', 'ilike'],
  ['NOT LIKE', 'notLike'],
  ['NOT ILIKE', 'notILike'],
  ['REGEXP', 'match'],
  ['IN', 'in'],
  ['NOT IN', 'notIn'],
  ['GLOBAL IN', 'globalIn'],
  ['GLOBAL NOT IN', 'globalNotIn'],
];

export const OPERATORS: readonly Operator[] = [
  op('?:', 'if', 3, PREC.ternary, 'ternary'),
  op('OR', 'or', 'n', PREC.or, 'nary'),
  op('AND', 'and', 'n', PREC.and, 'nary'),
  op('NOT', 'not', 1, PREC.not, 'prefix'),
  op('IS NULL', 'isNull', 1, PREC.isNull, 'postfixWord'),
  op('IS NOT NULL', 'isNotNull', 1, PREC.isNull, 'postfixWord'),
  // BETWEEN builds and(x >= lo, x <= hi); NOT BETWEEN or(x < lo, x > hi).
  op('BETWEEN', 'and', 2, PREC.between, 'between'),
  op('NOT BETWEEN', 'or', 2, PREC.between, 'between'),
  ...COMPARISON_NAMES.map(([s, n]) => op(s, n, 2, PREC.compare, 'cmp')),
  op('||', 'concat', 'n', PREC.concat, 'nary'),
  op('+', 'plus', 2, PREC.add, 'binary'),
  op('-', 'minus', 2, PREC.add, 'binary'),
  op('*', 'multiply', 2, PREC.multiply, 'binary'),
  op('/', 'divide', 2, PREC.multiply, 'binary'),
  op('%', 'modulo', 2, PREC.multiply, 'binary'),
  op('MOD', 'modulo', 2, PREC.multiply, 'binary'),
  op('DIV', 'intDiv', 2, PREC.multiply, 'binary'),
  op('-', 'negate', 1, PREC.unary, 'prefix'),
  op('[]', 'arrayElement', 2, PREC.postfix, 'index'),
  op('.', 'tupleElement', 2, PREC.postfix, 'tupleIndex'),
];

const BY_SPELLING = new Map<string, Operator[]>();
for (const o of OPERATORS) BY_SPELLING.set(o.spelling, [...(BY_SPELLING.get(o.spelling) ?? []), o]);

/** The operator a call was parsed from (its `operator` and function name), if the table has it. */
export function operatorOf(spelling: string, name: string): Operator | undefined {
  const same = BY_SPELLING.get(spelling);
  if (same) for (const o of same) if (o.name === name) return o;
  return undefined;
}

/** The operator of one level with this spelling: the parser's name for what it just read. */
export function operatorAt(prec: number, spelling: string): Operator {
  const o = OPERATORS.find((x) => x.prec === prec && x.spelling === spelling);
  if (!o) throw new Error(`no operator ${spelling} at precedence ${prec}`);
  return o;
}

/** One level's infix spellings, each as its words (keywords) or one symbol, longest first. */
export function spellingsAt(prec: number): Operator[] {
  return OPERATORS.filter((o) => o.prec === prec && o.arity !== 1).sort((a, b) => b.spelling.split(' ').length - a.spelling.split(' ').length);
}

/** What `x op ANY|ALL (subquery)` becomes: `operator` over the subquery, its rows folded into one value by `fold` first. */
export interface QuantifiedForm {
  /** The comparison's spelling; absent: the one written. */
  operator?: 'IN' | 'NOT IN';
  /** The aggregate of `(SELECT fold(*) FROM (subquery))`; absent: the subquery itself. */
  fold?: 'min' | 'max' | 'singleValueOrNull';
}

/**
 * ClickHouse's parser rewrites `x op ANY (subquery)` (SOME is ANY) and `x op ALL (subquery)` for the plain
 * comparisons (ExpressionListParsers.cpp): `= ANY` is IN, `!= ALL` NOT IN, the others compare with the
 * subquery's min, max or single value. Keyed by the comparison's function name.
 */
export const QUANTIFIED_COMPARISONS: ReadonlyMap<string, { ANY: QuantifiedForm; ALL: QuantifiedForm }> = new Map([
  ['equals', { ANY: { operator: 'IN' }, ALL: { operator: 'IN', fold: 'singleValueOrNull' } }],
  ['notEquals', { ANY: { operator: 'NOT IN', fold: 'singleValueOrNull' }, ALL: { operator: 'NOT IN' } }],
  ['greater', { ANY: { fold: 'min' }, ALL: { fold: 'max' } }],
  ['greaterOrEquals', { ANY: { fold: 'min' }, ALL: { fold: 'max' } }],
  ['less', { ANY: { fold: 'max' }, ALL: { fold: 'min' } }],
  ['lessOrEquals', { ANY: { fold: 'max' }, ALL: { fold: 'min' } }],
]);
