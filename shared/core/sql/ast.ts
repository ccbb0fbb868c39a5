// The AST of a ClickHouse SELECT, shaped like ClickHouse's own parser output so that column
// names can be derived the way ClickHouse derives them: operators are function calls
// (`a + b` is plus(a, b), `x IN (1, 2)` is in(x, tuple(1, 2)), `x GLOBAL IN t` is globalIn(x, t)).
// Nodes are plain JSON-able objects: `structuredClone` clones a tree, so a per-shard rewrite
// can never leak into another shard's copy (ClickHouse, too, clones the tree per shard).

export interface Pos {
  line: number; // 1-based
  column: number; // 1-based
  offset: number; // 0-based index into the source text
}

interface Base {
  /** `expr AS alias` (ClickHouse allows an alias on any expression, anywhere). */
  alias?: string;
  pos?: Pos;
}

/**
 * A literal. `value` holds the literal's source spelling for numbers (so 64-bit and
 * big values survive: `18446744073709551615`, `0xFF`, `1e3`, `-5` is a `negate` call unless
 * folded by the parser), the decoded text for strings, and nothing for NULL.
 */
export interface Literal extends Base {
  kind: 'literal';
  type: 'integer' | 'float' | 'string' | 'null' | 'bool';
  value: string;
}

/** `[a, b]` */
export interface ArrayExpr extends Base {
  kind: 'array';
  items: Expr[];
}

/** `(a, b)` or `tuple(a, b)`; `explicit` is true for the `tuple(...)` spelling. */
export interface TupleExpr extends Base {
  kind: 'tuple';
  items: Expr[];
  explicit?: boolean;
}

/** A column reference: `col`, `t.col`, `db.t.col`. Parts are unquoted names. */
export interface ColumnRef extends Base {
  kind: 'column';
  parts: string[];
  /** The name ClickHouse gives the reference when it is not its spelling (a later JOIN table's `b.site`). */
  nameAs?: string;
  /** A JSON column's sub-object `j.^a`: the index in `parts` of the part read after `^`. */
  prefix?: number;
  /** A JSON column's typed path `j.a.:Int64`: the type name read after `.:`. */
  typed?: string;
  /**
   * A key written for a position, ORDER BY ALL or GROUP BY ALL: the SELECT item of this alias itself,
   * as ClickHouse reads those, never a reference into the aliases (which a cycle of them reads otherwise).
   */
  selectItem?: true;
}

/** `*`, `t.*`, `COLUMNS('re')`, `COLUMNS(a, b)`, `t.COLUMNS(...)`, each with its transformers. */
export interface Asterisk extends Base {
  kind: 'asterisk';
  table?: string[];
  /** `COLUMNS('regexp')`: the columns whose names match (re2, as ClickHouse matches them). */
  regexp?: string;
  /** `COLUMNS(a, t.b)`: these columns, in this order. */
  list?: ColumnRef[];
  /**
   * `EXCEPT` / `REPLACE` / `APPLY` after it, in order as ClickHouse applies them: each column goes
   * through the steps one after the other.
   */
  transformers?: ColumnTransformer[];
}

/**
 * One step of a column-transformer chain. `fn` is the function applied to each column: a call without
 * arguments (its `params` kept: `quantile(0.9)`) or a one-parameter lambda. `EXCEPT ('re')` leaves out
 * the names that match `pattern` (then `names` is empty). `strict`: every name must match a column.
 */
export type ColumnTransformer =
  | { kind: 'apply'; fn: FunctionCall | LambdaExpr }
  | { kind: 'except'; names: string[]; pattern?: string; strict?: true }
  | { kind: 'replace'; items: { name: string; expr: Expr }[]; strict?: true };

/**
 * A function call, including operators. `params` are the parametric-aggregate parameters:
 * `quantile(0.9)(x)` is { name: 'quantile', params: [0.9], args: [x] }.
 * `operator` records the infix/prefix spelling the user wrote (for readable printing only).
 */
export interface FunctionCall extends Base {
  kind: 'function';
  name: string;
  args: Expr[];
  params?: Expr[];
  distinct?: boolean; // count(DISTINCT x)
  operator?: string; // '+', '=', 'IN', 'NOT', 'AND', 'LIKE', 'BETWEEN', '[]', '.', ...
  /** `f(...) OVER (...)` or `f(...) OVER w`: a window function call. */
  over?: WindowSpec;
  /** `f(x) RESPECT NULLS OVER (...)`: kept for the engine; ClickHouse leaves it out of the column name. */
  nulls?: 'RESPECT' | 'IGNORE';
  /** The name as written when the call runs as another function (`any(x) RESPECT NULLS` runs as any_respect_nulls): its column name keeps it. */
  written?: string;
  /** The name ClickHouse gives the call as the user wrote it, kept when a rewrite changes the call (GLOBAL IN a shipped set). */
  nameAs?: string;
}

/** One end of a window frame: `UNBOUNDED PRECEDING`, `CURRENT ROW`, `<offset> FOLLOWING`, ... */
export interface FrameBound {
  type: 'UNBOUNDED PRECEDING' | 'UNBOUNDED FOLLOWING' | 'CURRENT ROW' | 'PRECEDING' | 'FOLLOWING';
  /** The offset of `n PRECEDING` / `n FOLLOWING`. */
  offset?: Expr;
}

/**
 * A window: `OVER w` (only `name`), or `OVER ([base] [PARTITION BY ...] [ORDER BY ...] [frame])`.
 * A one-ended frame (`ROWS 2 PRECEDING`) is stored as ClickHouse reads it: BETWEEN that AND CURRENT ROW.
 */
export interface WindowSpec {
  /** `OVER w`: a window of the WINDOW clause, by name. */
  name?: string;
  /** `OVER (w ORDER BY ...)`: the named window this one extends. */
  base?: string;
  partitionBy?: Expr[];
  orderBy?: OrderItem[];
  frame?: { unit: 'ROWS' | 'RANGE'; start: FrameBound; end: FrameBound };
}

/** `(SELECT ...)` used as an expression or as the right side of IN. */
export interface SubqueryExpr extends Base {
  kind: 'subquery';
  query: SelectStatement;
  /** ClickHouse's number for it (`_subquery_3` in column names): subquery-numbers.ts. */
  ordinal?: number;
}

/** `CASE [operand] WHEN .. THEN .. [ELSE ..] END` */
export interface CaseExpr extends Base {
  kind: 'case';
  operand?: Expr;
  whens: { when: Expr; then: Expr }[];
  else?: Expr;
}

/** `CAST(x AS T)`, `CAST(x, 'T')` or `x::T`. `type` is the type's text, e.g. `Nullable(UInt64)`. */
export interface CastExpr extends Base {
  kind: 'cast';
  expr: Expr;
  type: string;
  syntax: 'as' | 'comma' | 'colons';
}

/** `x -> expr`, `(x, y) -> expr` */
export interface LambdaExpr extends Base {
  kind: 'lambda';
  params: string[];
  body: Expr;
}

/** `INTERVAL 1 DAY` (printed back as written). */
export interface IntervalExpr extends Base {
  kind: 'interval';
  value: Expr;
  unit: string; // SECOND, MINUTE, HOUR, DAY, WEEK, MONTH, QUARTER, YEAR (upper case)
}

/** `{name:Type}` query parameter; shared/core/plan/bind-params.ts replaces it with a typed constant before planning. */
export interface ParamExpr extends Base {
  kind: 'param';
  name: string;
  type: string;
}

export type Expr =
  | Literal
  | ArrayExpr
  | TupleExpr
  | ColumnRef
  | Asterisk
  | FunctionCall
  | SubqueryExpr
  | CaseExpr
  | CastExpr
  | LambdaExpr
  | IntervalExpr
  | ParamExpr;

/** A table in FROM or JOIN: `db.t [AS a] [FINAL] [SAMPLE ...]`. */
export interface TableRef {
  kind: 'table';
  database?: string;
  table: string;
  alias?: string;
  /** `FROM {name:Identifier}`: the table is the request's value of that parameter, bound before planning (`table` is empty until then). */
  param?: string;
  /** `FROM {db:Identifier}.t` / `{db:Identifier}.{t:Identifier}`: the database is that parameter's value, bound alike (`database` is unset until then). */
  databaseParam?: string;
  /** A table the request carries with it (ClickHouse's external data), marked by plan/external-tables.ts; never set by the parser. */
  external?: true;
  /**
   * The table's columns (a distributed table's ordinary ones, the request's external data's, system.one's), where the
   * plan read them to read aliases that lead round as ClickHouse does (plan/alias-cycles.ts); never set by the parser.
   */
  columns?: string[];
  final?: boolean;
  sample?: { ratio: Expr; offset?: Expr };
  pos?: Pos;
}

/** `(SELECT ...) [AS a]` in FROM or JOIN. */
export interface SubqueryTable {
  kind: 'subqueryTable';
  query: SelectStatement;
  alias?: string;
  /** The alias is the plan's, given so its columns can be qualified (expand-columns.ts): ClickHouse reads the subquery as unaliased. */
  planAlias?: true;
  pos?: Pos;
}

/** `numbers(10)`, `remote(...)` etc. in FROM: parsed so the planner can refuse it by name. */
export interface TableFunction {
  kind: 'tableFunction';
  name: string;
  args: Expr[];
  alias?: string;
  pos?: Pos;
}

export type TableExpr = TableRef | SubqueryTable | TableFunction;

export interface JoinClause {
  global: boolean;
  /** ClickHouse's strictness; undefined means the default (ALL). */
  strictness?: 'ANY' | 'ALL' | 'ASOF' | 'SEMI' | 'ANTI';
  /** LEFT/RIGHT/FULL may carry OUTER in the source; it is not kept (same meaning). */
  /** PASTE pairs the nth row of each side, as ClickHouse's PASTE JOIN; like CROSS it has no ON or USING. */
  type: 'INNER' | 'LEFT' | 'RIGHT' | 'FULL' | 'CROSS' | 'PASTE' | 'COMMA';
  table: TableExpr;
  using?: Expr[];
  on?: Expr;
  pos?: Pos;
}

export interface ArrayJoinClause {
  left: boolean; // LEFT ARRAY JOIN
  exprs: Expr[];
  pos?: Pos;
}

export interface FromClause {
  table: TableExpr;
  arrayJoin?: ArrayJoinClause;
  joins: JoinClause[];
}

export interface OrderItem {
  expr: Expr;
  direction: 'ASC' | 'DESC';
  /** Explicit NULLS FIRST/LAST; undefined means ClickHouse's default. */
  nulls?: 'FIRST' | 'LAST';
  collate?: string;
  withFill?: boolean; // WITH FILL (the general path's final stage fills; the fast path refuses it)
  /** `WITH FILL FROM a TO b STEP c`: the bounds and step, each optional. */
  fillFrom?: Expr;
  fillTo?: Expr;
  fillStep?: Expr;
  /** `WITH FILL ... STALENESS n`: no row is filled further than n past the last row read. */
  fillStaleness?: Expr;
}

/** One item of `INTERPOLATE (name [AS expr], ...)`: an output column, computed from the row before. */
export interface InterpolateItem {
  name: string;
  /** Absent: the row before's value, repeated. */
  expr?: Expr;
}

export interface LimitClause {
  limit: Expr;
  offset?: Expr;
  withTies?: boolean;
}

export interface LimitByClause {
  limit: Expr;
  offset?: Expr;
  by: Expr[];
}

export interface SettingItem {
  name: string;
  value: Expr;
}

/** `WITH expr AS name` or `WITH name AS (subquery)` */
export interface WithItem {
  name: string;
  expr: Expr;
  /** true for the CTE spelling `name AS (SELECT ...)`. */
  cte?: boolean;
  /** `name AS MATERIALIZED (SELECT ...)`: ClickHouse evaluates it once, wherever it is read. */
  materialized?: true;
}

export interface SelectQuery {
  kind: 'select';
  /**
   * A parenthesized chain (`(a UNION ALL b) EXCEPT c`, or the whole statement in parentheses), read as
   * `SELECT * FROM (chain)`: the same rows, names and types, and a chain of one level for every planner.
   * ClickHouse's analyzer gives it no `_subquery_N` number of its own.
   */
  parenthesized?: true;
  with?: WithItem[];
  /** `WITH RECURSIVE`: a CTE of this WITH may read itself (the general path's final stage evaluates it). */
  withRecursive?: true;
  distinct: boolean;
  /** `SELECT DISTINCT ON (a, b)` (parsed; the planner refuses it). */
  distinctOn?: Expr[];
  columns: Expr[];
  from?: FromClause;
  prewhere?: Expr;
  where?: Expr;
  groupBy?: Expr[];
  /**
   * `GROUP BY GROUPING SETS ((a, b), (a), ())`: the sets (then `groupBy` is absent). The fast path
   * refuses them; the two-stage path runs them in its final stage.
   */
  groupingSets?: Expr[][];
  /** GROUP BY ... WITH ROLLUP/CUBE (the fast path refuses them; the two-stage path runs them in its final stage). */
  groupByModifier?: 'ROLLUP' | 'CUBE';
  /** `GROUP BY ALL`: every SELECT expression that holds no aggregate (expanded before planning). */
  groupByAll?: boolean;
  withTotals: boolean;
  having?: Expr;
  /** `WINDOW w AS (...), v AS (...)`: named windows for `OVER w`. */
  window?: { name: string; spec: WindowSpec }[];
  /** `QUALIFY cond`: filters after window functions, before ORDER BY. */
  qualify?: Expr;
  orderBy?: OrderItem[];
  /**
   * `INTERPOLATE (...)` after an ORDER BY with WITH FILL: how filled rows get the other columns; an
   * empty list is `INTERPOLATE` alone, every column. It names output columns, so the final stage keeps it as written.
   */
  interpolate?: InterpolateItem[];
  /**
   * `ORDER BY ALL [ASC|DESC] [NULLS FIRST|LAST]` (then `orderBy` is absent): every SELECT column in
   * order, with these modifiers; spelled out before planning (shared/core/plan/order-by-all.ts).
   */
  orderByAll?: Omit<OrderItem, 'expr'> & { pos?: Pos };
  limitBy?: LimitByClause;
  limit?: LimitClause;
  settings?: SettingItem[];
  format?: string;
  pos?: Pos;
}

/**
 * The operator between two SELECTs of a chain, as written: a bare UNION / EXCEPT / INTERSECT takes
 * the query's default mode (`union_default_mode`, ...), so it stays bare until the session settles it
 * (shared/core/plan/set-op-modes.ts).
 */
export type SetOperator =
  | 'UNION'
  | 'UNION ALL'
  | 'UNION DISTINCT'
  | 'EXCEPT'
  | 'EXCEPT ALL'
  | 'EXCEPT DISTINCT'
  | 'INTERSECT'
  | 'INTERSECT ALL'
  | 'INTERSECT DISTINCT';

/**
 * `SELECT ... UNION ALL SELECT ... EXCEPT SELECT ...`: a flat chain, `ops[i]` between `selects[i]` and
 * `selects[i + 1]`. Printed back flat, so ClickHouse applies its own precedence (INTERSECT binds
 * tighter; the others associate left).
 */
export interface UnionQuery {
  kind: 'union';
  ops: SetOperator[];
  selects: SelectQuery[];
  /** Trailing SETTINGS / FORMAT of the whole statement, if any. */
  settings?: SettingItem[];
  format?: string;
  pos?: Pos;
}

export type SelectStatement = SelectQuery | UnionQuery;

/**
 * A deep copy of any AST node (JSON-able by design). Hand-written rather than structuredClone:
 * much faster on a 1,000-value IN list, where structuredClone alone would exceed the planning budget
 * (docs/benchmarks.md#planner-and-merge-plan-merge).
 */
export function cloneAst<T>(node: T): T {
  return deepCopy(node) as T;
}

function deepCopy(v: unknown): unknown {
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) {
    const n = v.length;
    const out = new Array<unknown>(n);
    for (let i = 0; i < n; i++) out[i] = deepCopy(v[i]);
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const k in v as Record<string, unknown>) out[k] = deepCopy((v as Record<string, unknown>)[k]);
  return out;
}
