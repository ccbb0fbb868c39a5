// fast-check generator of expression ASTs in the shapes the parser produces (operators with their
// ClickHouse function names and spelling, BETWEEN as and(>=, <=) over the same operand, ...),
// with odd identifiers and aliases sprinkled in to exercise quoting and parenthesization.
import fc from 'fast-check';
import type {
  Asterisk,
  ColumnTransformer,
  Expr,
  FrameBound,
  JoinClause,
  OrderItem,
  SelectQuery,
  SelectStatement,
  SetOperator,
  SettingItem,
  TableExpr,
  WindowSpec,
} from '../../../shared/core/sql/ast.js';
import { OPERATORS } from '../../../shared/core/sql/operators.js';

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
  fc
    .double({ noNaN: true, noDefaultInfinity: true, min: 0 })
    .map((v) => String(v))
    .filter((s) => /^[0-9.e+-]+$/.test(s) && /[.e]/.test(s)),
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

/** `OVER w` or `OVER ([base] [PARTITION BY ...] [ORDER BY ...] [ROWS|RANGE BETWEEN ... AND ...])`. */
function windowArb(expr: fc.Arbitrary<Expr>): fc.Arbitrary<WindowSpec> {
  const bound: fc.Arbitrary<FrameBound> = fc.oneof(
    fc.constantFrom<FrameBound>({ type: 'UNBOUNDED PRECEDING' }, { type: 'UNBOUNDED FOLLOWING' }, { type: 'CURRENT ROW' }),
    fc
      .tuple(fc.constantFrom<'PRECEDING' | 'FOLLOWING'>('PRECEDING', 'FOLLOWING'), fc.nat(9))
      .map(([type, n]) => ({ type, offset: { kind: 'literal', type: 'integer', value: String(n) } }) as FrameBound),
  );
  const body = fc
    .record({
      base: fc.option(plainName, { freq: 4, nil: undefined }),
      partitionBy: fc.option(fc.array(expr, { minLength: 1, maxLength: 2 }), { nil: undefined }),
      orderBy: fc.option(
        fc.array(fc.tuple(expr, fc.boolean(), fc.option(fc.constantFrom<'FIRST' | 'LAST'>('FIRST', 'LAST'), { nil: undefined })), {
          minLength: 1,
          maxLength: 2,
        }),
        { nil: undefined },
      ),
      // ClickHouse's parser refuses a frame that starts at UNBOUNDED FOLLOWING or ends at UNBOUNDED PRECEDING.
      frame: fc.option(
        fc.tuple(
          fc.constantFrom<'ROWS' | 'RANGE'>('ROWS', 'RANGE'),
          bound.filter((b) => b.type !== 'UNBOUNDED FOLLOWING'),
          bound.filter((b) => b.type !== 'UNBOUNDED PRECEDING'),
        ),
        { nil: undefined },
      ),
    })
    .map(({ base, partitionBy, orderBy, frame }) => {
      const w: WindowSpec = {};
      if (base !== undefined) w.base = base;
      if (partitionBy) w.partitionBy = partitionBy;
      if (orderBy) w.orderBy = orderBy.map(([e, desc, nulls]): OrderItem => ({ expr: e, direction: desc ? 'DESC' : 'ASC', ...(nulls ? { nulls } : {}) }));
      if (frame) w.frame = { unit: frame[0], start: frame[1], end: frame[2] };
      return w;
    });
  return fc.oneof({ weight: 1, arbitrary: plainName.map((n) => ({ name: n })) }, { weight: 3, arbitrary: body });
}

// Every two-operand and n-ary operator of the parser's and printer's table.
const BINARY: [string, string][] = OPERATORS.filter((o) => o.arity === 2 && ['binary', 'cmp', 'index'].includes(o.form)).map((o) => [o.spelling, o.name]);
const NARY: [string, string][] = OPERATORS.filter((o) => o.form === 'nary').map((o) => [o.spelling, o.name]);
const FUNCS = ['f', 'sum', 'plus', 'if', 'arrayMap', 'quantile', 'my_func', 'count', 'concat', 'and', 'ALL'];
const TYPES = ['UInt8', 'Nullable(String)', "DateTime64(3, 'UTC')", 'Array(Tuple(UInt8, String))', 'Decimal(10, 2)'];
const UNITS = ['SECOND', 'MINUTE', 'HOUR', 'DAY', 'WEEK', 'MONTH', 'QUARTER', 'YEAR'];

const withAlias = (e: fc.Arbitrary<Expr>): fc.Arbitrary<Expr> => fc.tuple(e, maybeAlias).map(([x, alias]) => (alias === undefined ? x : { ...x, alias }));

export const exprArb: fc.Arbitrary<Expr> = fc.letrec<{ expr: Expr; leaf: Expr }>((tie) => ({
  leaf: withAlias(fc.oneof(literal, column)),
  expr: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    tie('leaf'),
    withAlias(
      fc.oneof(
        fc
          .tuple(fc.constantFrom(...BINARY), tie('expr'), tie('expr'))
          .map(([[op, fn], l, r]) => ({ kind: 'function', name: fn, operator: op, args: [l, r] }) as Expr),
        fc
          .tuple(fc.constantFrom(...NARY), fc.array(tie('expr'), { minLength: 2, maxLength: 4 }))
          .map(([[op, fn], args]) => ({ kind: 'function', name: fn, operator: op, args }) as Expr),
        tie('expr').map((x) => ({ kind: 'function', name: 'negate', operator: '-', args: [x] }) as Expr),
        tie('expr').map((x) => ({ kind: 'function', name: 'not', operator: 'NOT', args: [x] }) as Expr),
        fc
          .tuple(fc.boolean(), tie('expr'))
          .map(([n, x]) => ({ kind: 'function', name: n ? 'isNotNull' : 'isNull', operator: n ? 'IS NOT NULL' : 'IS NULL', args: [x] }) as Expr),
        fc
          .tuple(tie('expr'), fc.integer({ min: 1, max: 9 }))
          .map(
            ([x, i]) => ({ kind: 'function', name: 'tupleElement', operator: '.', args: [x, { kind: 'literal', type: 'integer', value: String(i) }] }) as Expr,
          ),
        fc.tuple(tie('expr'), tie('expr'), tie('expr')).map(([c, a, b]) => ({ kind: 'function', name: 'if', operator: '?:', args: [c, a, b] }) as Expr),
        fc.tuple(fc.boolean(), tie('expr'), tie('expr'), tie('expr')).map(([not, x, lo, hi]) => {
          const x2 = structuredClone(x);
          return (
            not
              ? {
                  kind: 'function',
                  name: 'or',
                  operator: 'NOT BETWEEN',
                  args: [
                    { kind: 'function', name: 'less', operator: '<', args: [x, lo] },
                    { kind: 'function', name: 'greater', operator: '>', args: [x2, hi] },
                  ],
                }
              : {
                  kind: 'function',
                  name: 'and',
                  operator: 'BETWEEN',
                  args: [
                    { kind: 'function', name: 'greaterOrEquals', operator: '>=', args: [x, lo] },
                    { kind: 'function', name: 'lessOrEquals', operator: '<=', args: [x2, hi] },
                  ],
                }
          ) as Expr;
        }),
        fc
          .tuple(
            fc.constantFrom(...FUNCS),
            fc.array(tie('expr'), { maxLength: 3 }),
            fc.option(fc.array(tie('expr'), { maxLength: 2 }), { nil: undefined }),
            fc.boolean(),
            fc.option(windowArb(tie('expr')), { freq: 6, nil: undefined }),
          )
          .map(([fname, args, params, distinct, over]) => {
            const f: Expr = { kind: 'function', name: fname, args };
            if (params && args.length > 0) f.params = params; // `f(1)()` is not ClickHouse
            if (distinct && args.length > 0) f.distinct = true;
            if (over) f.over = over;
            return f;
          }),
        fc.array(tie('expr'), { maxLength: 3 }).map((items) => ({ kind: 'array', items }) as Expr),
        fc.oneof(
          fc.array(tie('expr'), { minLength: 2, maxLength: 3 }).map((items) => ({ kind: 'tuple', items }) as Expr),
          fc.constant({ kind: 'tuple', items: [] } as Expr),
          fc.array(tie('expr'), { maxLength: 3 }).map((items) => ({ kind: 'tuple', items, explicit: true }) as Expr),
        ),
        fc
          .tuple(
            fc.option(tie('expr'), { nil: undefined }),
            fc.array(fc.tuple(tie('expr'), tie('expr')), { minLength: 1, maxLength: 2 }),
            fc.option(tie('expr'), { nil: undefined }),
          )
          .map(([operand, ws, els]) => {
            const c: Expr = { kind: 'case', whens: ws.map(([when, then]) => ({ when, then })) };
            if (operand) c.operand = operand;
            if (els) c.else = els;
            return c;
          }),
        fc
          .tuple(tie('expr'), fc.constantFrom(...TYPES), fc.constantFrom('as', 'comma', 'colons'))
          .map(([x, type, syntax]) => ({ kind: 'cast', expr: x, type, syntax }) as Expr),
        fc.tuple(fc.array(name, { minLength: 1, maxLength: 2 }), tie('expr')).map(([params, body]) => ({ kind: 'lambda', params, body }) as Expr),
        fc.tuple(fc.oneof(literal, column), fc.constantFrom(...UNITS)).map(([value, unit]) => ({ kind: 'interval', value, unit }) as Expr),
        fc.constantFrom('UInt8', 'Array(String)').map((type) => ({ kind: 'param', name: 'p', type }) as Expr),
        tie('expr').map((x) => ({ kind: 'subquery', query: { kind: 'select', distinct: false, withTotals: false, columns: [x] } }) as Expr),
      ),
    ),
  ),
})).expr;

// ---------------------------------------------------------------- whole statements

const smallExpr: fc.Arbitrary<Expr> = fc.oneof({ weight: 3, arbitrary: column }, { weight: 1, arbitrary: literal }, { weight: 1, arbitrary: exprArb });
const plainExpr: fc.Arbitrary<Expr> = fc.oneof(
  column,
  literal.filter((l) => l.kind === 'literal' && l.type !== 'null'),
);
const count = fc.integer({ min: 0, max: 100 }).map((n) => ({ kind: 'literal', type: 'integer', value: String(n) }) as Expr);
const tableName = fc.oneof({ weight: 4, arbitrary: fc.constantFrom('t', 'events', 'u') }, { weight: 1, arbitrary: oddName });
const alias = fc.option(name, { freq: 2, nil: undefined });

const simpleSelect: fc.Arbitrary<SelectQuery> = fc
  .array(smallExpr, { minLength: 1, maxLength: 2 })
  .map((columns) => ({ kind: 'select', distinct: false, withTotals: false, columns }));

const tableExpr: fc.Arbitrary<TableExpr> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .record({
        db: fc.option(tableName, { nil: undefined }),
        table: tableName,
        alias,
        final: fc.boolean(),
        sample: fc.option(
          fc.record({
            ratio: fc.constantFrom('0.1', '1', '10000').map((v) => ({ kind: 'literal', type: v.includes('.') ? 'float' : 'integer', value: v }) as Expr),
            offset: fc.option(fc.constant({ kind: 'literal', type: 'float', value: '0.5' } as Expr), { nil: undefined }),
          }),
          { freq: 4, nil: undefined },
        ),
      })
      .map(({ db, table, alias: a, final, sample }) => {
        const t: TableExpr = { kind: 'table', table };
        if (db !== undefined) t.database = db;
        if (a !== undefined) t.alias = a;
        if (final) t.final = true;
        if (sample) {
          t.sample = { ratio: sample.ratio };
          if (sample.offset) t.sample.offset = sample.offset;
        }
        return t;
      }),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(simpleSelect, alias)
      .map(([query, a]) => (a === undefined ? { kind: 'subqueryTable', query } : { kind: 'subqueryTable', query, alias: a }) as TableExpr),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom('numbers', 'remote', 'file'), fc.array(plainExpr, { maxLength: 2 }), alias)
      .map(
        ([fname, args, a]) =>
          (a === undefined ? { kind: 'tableFunction', name: fname, args } : { kind: 'tableFunction', name: fname, args, alias: a }) as TableExpr,
      ),
  },
);

const join: fc.Arbitrary<JoinClause> = fc
  .record({
    global: fc.boolean(),
    strictness: fc.option(fc.constantFrom('ANY', 'ALL', 'ASOF', 'SEMI', 'ANTI') as fc.Arbitrary<JoinClause['strictness']>, { nil: undefined }),
    type: fc.constantFrom('INNER', 'LEFT', 'RIGHT', 'FULL', 'CROSS', 'PASTE', 'COMMA') as fc.Arbitrary<JoinClause['type']>,
    table: tableExpr,
    using: fc.array(column, { minLength: 1, maxLength: 2 }),
    on: smallExpr,
    useUsing: fc.boolean(),
  })
  .map(({ global, strictness, type, table, using, on, useUsing }) => {
    if (type === 'COMMA') return { global: false, type, table };
    const j: JoinClause = { global, type, table };
    if (type === 'CROSS' || type === 'PASTE') return j;
    if (strictness && ((strictness !== 'SEMI' && strictness !== 'ANTI') || type === 'LEFT' || type === 'RIGHT')) j.strictness = strictness;
    if (useUsing) j.using = using;
    else j.on = on;
    return j;
  });

const orderItem: fc.Arbitrary<OrderItem> = fc
  .record({
    expr: smallExpr,
    desc: fc.boolean(),
    nulls: fc.option(fc.constantFrom('FIRST', 'LAST') as fc.Arbitrary<'FIRST' | 'LAST'>, { nil: undefined }),
    collate: fc.option(fc.constantFrom('en', "it's"), { freq: 5, nil: undefined }),
    withFill: fc.boolean(),
    staleness: fc.option(count, { freq: 3, nil: undefined }),
  })
  .map(({ expr, desc, nulls, collate, withFill, staleness }) => {
    const o: OrderItem = { expr, direction: desc ? 'DESC' : 'ASC' };
    if (nulls) o.nulls = nulls;
    if (collate !== undefined) o.collate = collate;
    if (withFill && Math.abs(expr.kind.length) % 2 === 0) {
      o.withFill = true;
      if (staleness) o.fillStaleness = staleness;
    }
    return o;
  });

// The parser reads these positions without an alias on top (an alias there would end the expression).
const unaliased = smallExpr.map((e): Expr => {
  if (e.alias === undefined) return e;
  const { alias: _alias, ...bare } = e;
  return bare as Expr;
});

// `*`, `t.*`, `COLUMNS('re')`, `COLUMNS(a, t.b)` with a chain of EXCEPT / REPLACE (STRICT or not) / APPLY steps.
const transformer: fc.Arbitrary<ColumnTransformer> = fc.oneof(
  fc
    .record({ names: fc.array(name, { minLength: 1, maxLength: 2 }), strict: fc.boolean() })
    .map(({ names, strict }): ColumnTransformer => ({ kind: 'except', names, ...(strict ? { strict: true as const } : {}) })),
  fc.constantFrom('^a', 'b$').map((pattern): ColumnTransformer => ({ kind: 'except', names: [], pattern })),
  fc
    .record({ items: fc.array(fc.record({ name, expr: unaliased }), { minLength: 1, maxLength: 2 }), strict: fc.boolean() })
    .map(({ items, strict }): ColumnTransformer => ({ kind: 'replace', items, ...(strict ? { strict: true as const } : {}) })),
  fc.constantFrom('sum', 'toString', 'max').map((fn): ColumnTransformer => ({ kind: 'apply', fn: { kind: 'function', name: fn, args: [] } })),
);
const matcher: fc.Arbitrary<Expr> = fc
  .record({
    form: fc.constantFrom('star', 'regexp', 'list'),
    table: fc.option(plainName, { nil: undefined }),
    list: fc.array(fc.array(plainName, { minLength: 1, maxLength: 2 }), { minLength: 1, maxLength: 3 }),
    steps: fc.array(transformer, { maxLength: 3 }),
  })
  .map(({ form, table, list, steps }): Expr => {
    const a: Asterisk = { kind: 'asterisk' };
    if (table !== undefined) a.table = [table];
    if (form === 'regexp') a.regexp = '^[ab]';
    if (form === 'list') a.list = list.map((parts) => ({ kind: 'column', parts }));
    if (steps.length) a.transformers = steps;
    return a;
  });

// ClickHouse checks setting values even when only parsing: keep them well-typed.
const settings: fc.Arbitrary<SettingItem[]> = fc.array(
  fc.oneof(
    fc.record({ name: fc.constantFrom('max_threads', 'max_block_size'), value: count.filter((c) => c.kind === 'literal' && c.value !== '0') }),
    fc.record({
      name: fc.constant('load_balancing'),
      value: fc.constantFrom('random', 'in_order').map((v) => ({ kind: 'literal', type: 'string', value: v }) as Expr),
    }),
  ),
  { minLength: 1, maxLength: 2 },
);

export const selectArb: fc.Arbitrary<SelectQuery> = fc
  .record({
    with: fc.option(
      fc.array(
        fc.oneof(
          fc.record({ name: plainName, expr: smallExpr }),
          fc.record({ name: plainName, expr: simpleSelect.map((query) => ({ kind: 'subquery', query }) as Expr), cte: fc.constant(true) }),
        ),
        { minLength: 1, maxLength: 2 },
      ),
      { freq: 4, nil: undefined },
    ),
    withRecursive: fc.boolean(),
    distinct: fc.boolean(),
    distinctOn: fc.option(fc.array(column, { minLength: 1, maxLength: 2 }), { freq: 6, nil: undefined }),
    columns: fc.array(exprArb, { minLength: 1, maxLength: 3 }),
    matcher: fc.oneof({ weight: 30, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: matcher }),
    interpolate: fc.option(fc.array(fc.record({ name: plainName, expr: fc.option(unaliased, { nil: undefined }) }), { maxLength: 2 }), {
      freq: 2,
      nil: undefined,
    }),
    from: fc.option(
      fc.record({
        table: tableExpr,
        joins: fc.array(join, { maxLength: 2 }),
        arrayJoin: fc.option(fc.record({ left: fc.boolean(), exprs: fc.array(withAlias(column), { minLength: 1, maxLength: 2 }) }), {
          freq: 4,
          nil: undefined,
        }),
      }),
      { freq: 5, nil: undefined },
    ),
    prewhere: fc.option(smallExpr, { freq: 4, nil: undefined }),
    where: fc.option(exprArb, { freq: 2, nil: undefined }),
    groupBy: fc.option(fc.array(smallExpr, { minLength: 1, maxLength: 2 }), { freq: 3, nil: undefined }),
    groupByModifier: fc.option(fc.constantFrom('ROLLUP', 'CUBE') as fc.Arbitrary<'ROLLUP' | 'CUBE'>, { freq: 4, nil: undefined }),
    withTotals: fc.boolean(),
    having: fc.option(smallExpr, { freq: 4, nil: undefined }),
    qualify: fc.option(smallExpr, { freq: 5, nil: undefined }),
    orderBy: fc.option(fc.array(orderItem, { minLength: 1, maxLength: 2 }), { freq: 3, nil: undefined }),
    orderByAll: fc.option(
      fc.record({
        direction: fc.constantFrom('ASC', 'DESC') as fc.Arbitrary<'ASC' | 'DESC'>,
        nulls: fc.option(fc.constantFrom('FIRST', 'LAST') as fc.Arbitrary<'FIRST' | 'LAST'>, { nil: undefined }),
      }),
      { freq: 6, nil: undefined },
    ),
    limitBy: fc.option(fc.record({ limit: count, offset: fc.option(count, { nil: undefined }), by: fc.array(column, { minLength: 1, maxLength: 2 }) }), {
      freq: 4,
      nil: undefined,
    }),
    limit: fc.option(fc.record({ limit: count, offset: fc.option(count, { nil: undefined }), withTies: fc.boolean() }), { freq: 3, nil: undefined }),
    settings: fc.option(settings, { freq: 4, nil: undefined }),
    format: fc.option(fc.constantFrom('JSON', 'TabSeparated', 'Null'), { freq: 5, nil: undefined }),
  })
  .map((r) => {
    const q: SelectQuery = { kind: 'select', distinct: r.distinct, withTotals: r.withTotals, columns: r.matcher ? [...r.columns, r.matcher] : r.columns };
    if (r.with) q.with = r.with.map((w) => ('cte' in w ? { name: w.name, expr: w.expr, cte: true } : { name: w.name, expr: w.expr }));
    if (r.with && r.withRecursive) q.withRecursive = true;
    if (r.distinct && r.distinctOn) q.distinctOn = r.distinctOn;
    if (r.from) {
      q.from = { table: r.from.table, joins: r.from.joins };
      if (r.from.arrayJoin) {
        q.from.arrayJoin = r.from.arrayJoin;
        // `ARRAY JOIN a, u` would read u as a second array: the parser never builds this shape.
        q.from.joins = r.from.joins.filter((j) => j.type !== 'COMMA');
      }
    }
    if (r.prewhere) q.prewhere = r.prewhere;
    if (r.where) q.where = r.where;
    if (r.groupBy) {
      q.groupBy = r.groupBy;
      if (r.groupByModifier) q.groupByModifier = r.groupByModifier;
    }
    if (r.having) q.having = r.having;
    if (r.qualify) q.qualify = r.qualify;
    if (r.orderBy) q.orderBy = r.orderBy;
    else if (r.orderByAll) q.orderByAll = r.orderByAll.nulls ? r.orderByAll : { direction: r.orderByAll.direction };
    // ClickHouse reads INTERPOLATE only after an ORDER BY that fills.
    if (r.interpolate && r.orderBy?.some((o) => o.withFill))
      q.interpolate = r.interpolate.map((x) => (x.expr ? { name: x.name, expr: x.expr } : { name: x.name }));
    if (r.limitBy && !q.distinctOn) {
      q.limitBy = { limit: r.limitBy.limit, by: r.limitBy.by };
      if (r.limitBy.offset) q.limitBy.offset = r.limitBy.offset;
    }
    if (r.limit) {
      q.limit = { limit: r.limit.limit };
      if (r.limit.offset) q.limit.offset = r.limit.offset;
      if (r.limit.withTies && q.orderBy && !q.distinctOn) q.limit.withTies = true; // ClickHouse refuses WITH TIES without ORDER BY
    }
    if (r.settings) q.settings = r.settings;
    if (r.format) q.format = r.format;
    return q;
  });

/** A statement: one SELECT, or a UNION of SELECTs with statement-level SETTINGS/FORMAT. */
export const statementArb: fc.Arbitrary<SelectStatement> = fc.oneof(
  { weight: 3, arbitrary: selectArb },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.array(
          selectArb.map((q) => ({ ...q, format: undefined })),
          { minLength: 2, maxLength: 3 },
        ),
        fc.array(
          fc.constantFrom<SetOperator>(
            'UNION',
            'UNION ALL',
            'UNION DISTINCT',
            'EXCEPT',
            'EXCEPT ALL',
            'EXCEPT DISTINCT',
            'INTERSECT',
            'INTERSECT ALL',
            'INTERSECT DISTINCT',
          ),
          {
            minLength: 2,
            maxLength: 2,
          },
        ),
        fc.option(settings, { nil: undefined }),
        fc.option(fc.constant('JSON'), { nil: undefined }),
      )
      .map(([selects, ops, st, format]) => {
        const clean = selects.map((q) => {
          const c = { ...q };
          delete c.format;
          return c;
        });
        const last = clean[clean.length - 1]!;
        delete last.settings;
        const u: SelectStatement = { kind: 'union', ops: ops.slice(0, clean.length - 1), selects: clean };
        if (st) u.settings = st;
        if (format) u.format = format;
        return u;
      }),
  },
);
