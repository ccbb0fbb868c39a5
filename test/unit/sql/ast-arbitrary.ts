// fast-check generator of expression ASTs in the shapes the parser produces (operators with their
// ClickHouse function names and spelling, BETWEEN as and(>=, <=) over the same operand, ...),
// with odd identifiers and aliases sprinkled in to exercise quoting and parenthesization.
import fc from 'fast-check';
import type { Expr } from '../../../shared/sql/ast.js';


const plainName = fc.constantFrom('a', 'b', 'x', 'col_1', 'Sensor', 'ts', 'date', 'value');
const oddName = fc.oneof(
  fc.constantFrom('from', 'select', 'NULL', 'inf', 'nan', 'a b', 'back`tick', 'back\\slash', "quo'te", '1abc', 'ü', 'new\nline', 'ALL', 'WHEN', 'e'),
  fc.string({ minLength: 1, maxLength: 6 }),
);
const name = fc.oneof({ weight: 4, arbitrary: plainName }, { weight: 1, arbitrary: oddName });
// Mostly no alias: an alias forces parentheses, which would hide precedence mistakes.
const maybeAlias: fc.Arbitrary<string | undefined> = fc.oneof({ weight: 10, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: name });

const intLit = fc.oneof(
  fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }).map((v) => v.toString()),
  fc.constantFrom('0x1F', '0b101', '0', '007'),
);
const floatLit = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true, min: 0 }).map((v) => String(v)).filter((s) => /^[0-9.e+-]+$/.test(s) && /[.e]/.test(s)),
  fc.constantFrom('1.5', '1e3', '1E-7', '1.', '0.25', 'inf', 'nan'),
);
const literal: fc.Arbitrary<Expr> = fc.oneof(
  fc.tuple(intLit, fc.boolean()).map(([v, neg]) => ({ kind: 'literal', type: 'integer', value: neg ? '-' + v : v }) as Expr),
  fc.tuple(floatLit, fc.boolean()).map(([v, neg]) => ({ kind: 'literal', type: 'float', value: neg ? '-' + v : v }) as Expr),
  fc.string({ maxLength: 8, unit: 'grapheme' }).map((v) => ({ kind: 'literal', type: 'string', value: v }) as Expr),
  fc.constant({ kind: 'literal', type: 'null', value: '' } as Expr),
  fc.constantFrom('true', 'false').map((v) => ({ kind: 'literal', type: 'bool', value: v }) as Expr),
);
const column: fc.Arbitrary<Expr> = fc.array(name, { minLength: 1, maxLength: 3 }).map((parts) => ({ kind: 'column', parts }));

const BINARY: [string, string][] = [
  ['+', 'plus'], ['-', 'minus'], ['*', 'multiply'], ['/', 'divide'], ['%', 'modulo'], ['MOD', 'modulo'], ['DIV', 'intDiv'],
  ['=', 'equals'], ['==', 'equals'], ['!=', 'notEquals'], ['<>', 'notEquals'], ['<', 'less'], ['<=', 'lessOrEquals'],
  ['>', 'greater'], ['>=', 'greaterOrEquals'], ['<=>', 'isNotDistinctFrom'], ['LIKE', 'like'], ['ILIKE', 'ilike'],
  ['NOT LIKE', 'notLike'], ['NOT ILIKE', 'notILike'], ['REGEXP', 'match'], ['IN', 'in'], ['NOT IN', 'notIn'],
  ['GLOBAL IN', 'globalIn'], ['GLOBAL NOT IN', 'globalNotIn'], ['[]', 'arrayElement'],
];
const NARY: [string, string][] = [['AND', 'and'], ['OR', 'or'], ['||', 'concat']];
const FUNCS = ['f', 'sum', 'plus', 'if', 'arrayMap', 'quantile', 'my_func', 'count', 'concat', 'and', 'ALL'];
const TYPES = ['UInt8', 'Nullable(String)', "DateTime64(3, 'UTC')", 'Array(Tuple(UInt8, String))', 'Decimal(10, 2)'];
const UNITS = ['SECOND', 'MINUTE', 'HOUR', 'DAY', 'WEEK', 'MONTH', 'QUARTER', 'YEAR'];

const withAlias = (e: fc.Arbitrary<Expr>): fc.Arbitrary<Expr> =>
  fc.tuple(e, maybeAlias).map(([x, alias]) => (alias === undefined ? x : { ...x, alias }));

export const exprArb: fc.Arbitrary<Expr> = fc.letrec<{ expr: Expr; leaf: Expr }>((tie) => ({
  leaf: withAlias(fc.oneof(literal, column)),
  expr: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    tie('leaf'),
    withAlias(
      fc.oneof(
        fc.tuple(fc.constantFrom(...BINARY), tie('expr'), tie('expr')).map(([[op, fn], l, r]) => ({ kind: 'function', name: fn, operator: op, args: [l, r] }) as Expr),
        fc.tuple(fc.constantFrom(...NARY), fc.array(tie('expr'), { minLength: 2, maxLength: 4 })).map(([[op, fn], args]) => ({ kind: 'function', name: fn, operator: op, args }) as Expr),
        tie('expr').map((x) => ({ kind: 'function', name: 'negate', operator: '-', args: [x] }) as Expr),
        tie('expr').map((x) => ({ kind: 'function', name: 'not', operator: 'NOT', args: [x] }) as Expr),
        fc.tuple(fc.boolean(), tie('expr')).map(([n, x]) => ({ kind: 'function', name: n ? 'isNotNull' : 'isNull', operator: n ? 'IS NOT NULL' : 'IS NULL', args: [x] }) as Expr),
        fc.tuple(tie('expr'), fc.integer({ min: 1, max: 9 })).map(([x, i]) => ({ kind: 'function', name: 'tupleElement', operator: '.', args: [x, { kind: 'literal', type: 'integer', value: String(i) }] }) as Expr),
        fc.tuple(tie('expr'), tie('expr'), tie('expr')).map(([c, a, b]) => ({ kind: 'function', name: 'if', operator: '?:', args: [c, a, b] }) as Expr),
        fc.tuple(fc.boolean(), tie('expr'), tie('expr'), tie('expr')).map(([not, x, lo, hi]) => {
          const x2 = structuredClone(x);
          return (not
            ? { kind: 'function', name: 'or', operator: 'NOT BETWEEN', args: [{ kind: 'function', name: 'less', operator: '<', args: [x, lo] }, { kind: 'function', name: 'greater', operator: '>', args: [x2, hi] }] }
            : { kind: 'function', name: 'and', operator: 'BETWEEN', args: [{ kind: 'function', name: 'greaterOrEquals', operator: '>=', args: [x, lo] }, { kind: 'function', name: 'lessOrEquals', operator: '<=', args: [x2, hi] }] }) as Expr;
        }),
        fc.tuple(fc.constantFrom(...FUNCS), fc.array(tie('expr'), { maxLength: 3 }), fc.option(fc.array(tie('expr'), { maxLength: 2 }), { nil: undefined }), fc.boolean()).map(([fname, args, params, distinct]) => {
          const f: Expr = { kind: 'function', name: fname, args };
          if (params && args.length > 0) f.params = params; // `f(1)()` is not ClickHouse
          if (distinct && args.length > 0) f.distinct = true;
          return f;
        }),
        fc.array(tie('expr'), { maxLength: 3 }).map((items) => ({ kind: 'array', items }) as Expr),
        fc.oneof(
          fc.array(tie('expr'), { minLength: 2, maxLength: 3 }).map((items) => ({ kind: 'tuple', items }) as Expr),
          fc.constant({ kind: 'tuple', items: [] } as Expr),
          fc.array(tie('expr'), { maxLength: 3 }).map((items) => ({ kind: 'tuple', items, explicit: true }) as Expr),
        ),
        fc.tuple(fc.option(tie('expr'), { nil: undefined }), fc.array(fc.tuple(tie('expr'), tie('expr')), { minLength: 1, maxLength: 2 }), fc.option(tie('expr'), { nil: undefined })).map(([operand, ws, els]) => {
          const c: Expr = { kind: 'case', whens: ws.map(([when, then]) => ({ when, then })) };
          if (operand) c.operand = operand;
          if (els) c.else = els;
          return c;
        }),
        fc.tuple(tie('expr'), fc.constantFrom(...TYPES), fc.constantFrom('as', 'comma', 'colons')).map(([x, type, syntax]) => ({ kind: 'cast', expr: x, type, syntax }) as Expr),
        fc.tuple(fc.array(name, { minLength: 1, maxLength: 2 }), tie('expr')).map(([params, body]) => ({ kind: 'lambda', params, body }) as Expr),
        fc.tuple(fc.oneof(literal, column), fc.constantFrom(...UNITS)).map(([value, unit]) => ({ kind: 'interval', value, unit }) as Expr),
        fc.constantFrom('UInt8', 'Array(String)').map((type) => ({ kind: 'param', name: 'p', type }) as Expr),
        tie('expr').map((x) => ({ kind: 'subquery', query: { kind: 'select', distinct: false, withTotals: false, columns: [x] } }) as Expr),
      ),
    ),
  ),
})).expr;

