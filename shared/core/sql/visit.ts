// Generic traversal helpers over the SELECT AST (ast.ts). The planner and the partials engine
// rewrite expressions in many places; these keep "which children does a node have" in ONE place,
// so a new Expr kind only needs teaching here.
//
// Subqueries are a boundary by default: a rewrite of the outer query (e.g. renaming the distributed
// table's columns) must not silently reach into `IN (SELECT ...)`, whose scope is different.
// Pass `{ subqueries: true }` to cross it.

import { cloneAst } from './ast.js';
import type {
  Asterisk,
  ColumnTransformer,
  Expr,
  FunctionCall,
  JoinClause,
  LambdaExpr,
  OrderItem,
  Pos,
  SelectQuery,
  SelectStatement,
  SettingItem,
  TableExpr,
} from './ast.js';
import { mapWindow, windowExprs } from './window.js';

export interface VisitOptions {
  /** Also visit expressions inside subqueries (`(SELECT ...)` expressions and FROM/JOIN subqueries). */
  subqueries?: boolean;
}

/**
 * Visits `expr` and every sub-expression, pre-order. `fn` may return `false` to skip the
 * children of the node it was called on. `parent` is the enclosing expression (undefined at
 * the root and for top-level expressions of a subquery).
 */
export function walkExpr(expr: Expr, fn: (e: Expr, parent: Expr | undefined) => void | boolean, opts: VisitOptions = {}): void {
  // Explicit stack, not recursion: a 100k-item IN tuple or a long AND chain must not blow the stack.
  const stack: { e: Expr; parent: Expr | undefined }[] = [{ e: expr, parent: undefined }];
  while (stack.length > 0) {
    const { e, parent } = stack.pop()!;
    if (fn(e, parent) === false) continue;
    const kids = childrenOf(e);
    // Push in reverse so children are visited left to right.
    for (let i = kids.length - 1; i >= 0; i--) stack.push({ e: kids[i]!, parent: e });
    if (opts.subqueries && e.kind === 'subquery') {
      walkStatement(e.query, (x) => fn(x, undefined), opts);
    }
  }
}

/** The direct child expressions of a node (not crossing into subqueries). */
export function childrenOf(e: Expr): Expr[] {
  switch (e.kind) {
    case 'literal':
    case 'column':
    case 'param':
    case 'subquery':
      return [];
    case 'asterisk':
      return asteriskExprs(e);
    case 'array':
    case 'tuple':
      return e.items;
    case 'function':
      if (e.over) return [...(e.params ?? []), ...e.args, ...windowExprs(e.over)];
      return e.params ? [...e.params, ...e.args] : e.args;
    case 'case': {
      const out: Expr[] = [];
      if (e.operand) out.push(e.operand);
      for (const w of e.whens) out.push(w.when, w.then);
      if (e.else) out.push(e.else);
      return out;
    }
    case 'cast':
      return [e.expr];
    case 'lambda':
      return [e.body];
    case 'interval':
      return [e.value];
  }
}

/**
 * Visits every expression of a statement (every clause of every SELECT of a UNION), and with
 * `subqueries` also those of nested subqueries, including FROM/JOIN subqueries.
 */
export function walkStatement(stmt: SelectStatement, fn: (e: Expr, parent: Expr | undefined) => void | boolean, opts: VisitOptions = {}): void {
  const selects = stmt.kind === 'union' ? stmt.selects : [stmt];
  for (const q of selects) {
    for (const { expr } of exprsOfSelect(q)) walkExpr(expr, fn, opts);
    if (opts.subqueries) {
      for (const t of fromTables(q)) {
        if (t.kind === 'subqueryTable') walkStatement(t.query, fn, opts);
      }
    }
  }
  if (stmt.kind === 'union') for (const s of stmt.settings ?? []) walkExpr(s.value, fn, opts);
}

/** Return a replacement, SKIP (keep the node, do not descend), or undefined (descend). */
export const SKIP = Symbol('skip');
export type RewriteFn = (e: Expr) => Expr | typeof SKIP | undefined;

/**
 * A structure-sharing rewrite: `fn` is called pre-order on each node of the INPUT; a returned Expr
 * replaces the node (and is not descended into), SKIP keeps the node without descending, undefined
 * keeps it and rewrites its children. Returns the SAME object when nothing under a node changed,
 * and new nodes only along the paths to what changed, so per-shard rewrites of a large IN list cost
 * O(changed path), not O(tree) (the planning budget: docs/benchmarks.md#planner-and-merge-plan-merge). Never mutates; callers must not mutate the result either (it shares
 * untouched subtrees with the input). Does not enter subqueries (a different scope).
 */
export function rewriteExpr(e: Expr, fn: RewriteFn): Expr {
  return rebuild(e, fn, undefined);
}

/** rewriteExpr over a list: the same array when no item changed. */
export function rewriteList(items: Expr[], fn: RewriteFn): Expr[] {
  return rebuildList(items, (x) => rebuild(x, fn, undefined), false);
}

/**
 * Returns a rewritten deep copy of `expr`. `fn` is called pre-order on each node of the INPUT;
 * when it returns an Expr, that replaces the node (and is not descended into: return a node
 * built from `mapExpr` of the children if you want both). Returning undefined keeps the node
 * and maps its children. The input is never mutated and the output shares no objects with it.
 */
export function mapExpr(expr: Expr, fn: (e: Expr) => Expr | undefined, opts: VisitOptions = {}): Expr {
  const replace = (e: Expr): Expr | undefined => {
    const r = fn(e);
    return r === e ? cloneAst(e) : r;
  };
  return rebuild(expr, replace, { subqueries: opts.subqueries, map: fn });
}

/** Copy mode of rebuild: every node is new; subqueries mapped with `map` or cloned. */
interface CopyMode {
  subqueries?: boolean;
  map: (e: Expr) => Expr | undefined;
}

// The one place that rebuilds a node from its rewritten children, for both the sharing rewrite
// (copy undefined: unchanged nodes are returned as they are) and the copying map.
function rebuild(e: Expr, fn: RewriteFn, copy: CopyMode | undefined): Expr {
  const r = fn(e);
  if (r === SKIP) return copy ? cloneAst(e) : e;
  if (r !== undefined) return r;
  const m = (x: Expr): Expr => rebuild(x, fn, copy);
  const list = (xs: Expr[]): Expr[] => rebuildList(xs, m, copy !== undefined);
  let out: Expr;
  switch (e.kind) {
    case 'literal':
    case 'column':
    case 'param':
      return copy ? copyLeaf(e) : e;
    case 'asterisk': {
      const before = asteriskExprs(e);
      if (!before.length) return copy ? copyLeaf(e) : e;
      const exprs = list(before);
      if (!copy && exprs.every((x, i) => x === before[i])) return e;
      out = withAsteriskExprs(copyLeaf(e) as Asterisk, exprs);
      break;
    }
    case 'subquery':
      if (!copy) return e;
      out = { ...e, query: copy.subqueries ? mapStatement(e.query, copy.map, { subqueries: true }) : cloneAst(e.query) };
      break;
    case 'array':
    case 'tuple': {
      const items = list(e.items);
      if (!copy && items === e.items) return e;
      out = { ...e, items };
      break;
    }
    case 'function': {
      const args = list(e.args);
      const params = e.params ? list(e.params) : undefined;
      const over = e.over ? mapWindow(e.over, m, copy !== undefined) : undefined;
      if (!copy && args === e.args && params === e.params && over === e.over) return e;
      out = { ...e, args, ...(params ? { params } : {}), ...(over ? { over } : {}) };
      break;
    }
    case 'case': {
      let changed = copy !== undefined;
      const operand = e.operand ? m(e.operand) : undefined;
      if (operand !== e.operand) changed = true;
      const whens = e.whens.map((w) => {
        const when = m(w.when);
        const then = m(w.then);
        if (copy || when !== w.when || then !== w.then) {
          changed = true;
          return { when, then };
        }
        return w;
      });
      const els = e.else ? m(e.else) : undefined;
      if (els !== e.else) changed = true;
      if (!changed) return e;
      const c = { ...e, whens };
      if (operand) c.operand = operand;
      if (els) c.else = els;
      out = c;
      break;
    }
    case 'cast': {
      const x = m(e.expr);
      if (!copy && x === e.expr) return e;
      out = { ...e, expr: x };
      break;
    }
    case 'lambda': {
      const body = m(e.body);
      if (!copy && body === e.body) return e;
      out = { ...e, body, ...(copy ? { params: [...e.params] } : {}) };
      break;
    }
    case 'interval': {
      const value = m(e.value);
      if (!copy && value === e.value) return e;
      out = { ...e, value };
      break;
    }
  }
  if (copy && e.pos) out.pos = { ...e.pos };
  return out;
}

// Long IN lists are flat arrays of literals: mapped in a loop (the depth of each item is small;
// the list itself is iterated). Sharing mode returns the same array when no item changed.
function rebuildList(items: Expr[], m: (x: Expr) => Expr, copy: boolean): Expr[] {
  if (copy) {
    const out = new Array<Expr>(items.length);
    for (let i = 0; i < items.length; i++) out[i] = m(items[i]!);
    return out;
  }
  let out: Expr[] | undefined;
  for (let i = 0; i < items.length; i++) {
    const x = m(items[i]!);
    if (x !== items[i] && !out) out = items.slice(0, i);
    if (out) out.push(x);
  }
  return out ?? items;
}

/** An asterisk's expressions, in order: each transformer's (the applied function, REPLACE items). */
function asteriskExprs(e: Asterisk): Expr[] {
  const out: Expr[] = [];
  for (const t of e.transformers ?? []) {
    if (t.kind === 'apply') out.push(t.fn);
    else if (t.kind === 'replace') for (const r of t.items) out.push(r.expr);
  }
  return out;
}

/** `a` with the expressions asteriskExprs lists replaced, in the same order. */
function withAsteriskExprs(a: Asterisk, exprs: Expr[]): Asterisk {
  let i = 0;
  const next = () => exprs[i++]!;
  if (a.transformers)
    a.transformers = a.transformers.map((t): ColumnTransformer => {
      if (t.kind === 'apply') return { kind: 'apply', fn: next() as FunctionCall | LambdaExpr };
      if (t.kind === 'replace') return { ...t, items: t.items.map((r) => ({ name: r.name, expr: next() })) };
      return { ...t, names: [...t.names] };
    });
  return a;
}

// Leaves are copied by hand (spread), not by a generic deep copy: IN lists are thousands of them.
function copyLeaf(e: Expr): Expr {
  const out = { ...e };
  if (e.pos) out.pos = { ...e.pos };
  if (e.kind === 'column') (out as typeof e).parts = [...e.parts];
  else if (e.kind === 'asterisk') {
    const a = out as typeof e;
    if (e.table) a.table = [...e.table];
    if (e.list) a.list = cloneAst(e.list);
    if (e.transformers) a.transformers = cloneAst(e.transformers);
  }
  return out;
}

/** `mapExpr` over every expression of every clause of a statement; returns a deep copy. */
export function mapStatement(stmt: SelectStatement, fn: (e: Expr) => Expr | undefined, opts: VisitOptions = {}): SelectStatement {
  if (stmt.kind === 'union') {
    const out = { ...stmt, selects: stmt.selects.map((q) => mapSelectExprs(q, (e) => mapExpr(e, fn, opts), opts)) };
    if (stmt.settings) out.settings = stmt.settings.map((s) => ({ name: s.name, value: mapExpr(s.value, fn, opts) }));
    if (stmt.pos) out.pos = { ...stmt.pos };
    return out;
  }
  return mapSelectExprs(stmt, (e) => mapExpr(e, fn, opts), opts);
}

/** The clause a top-level expression belongs to. */
export type Clause =
  | 'with'
  | 'distinctOn'
  | 'columns'
  | 'sample'
  | 'arrayJoin'
  | 'joinUsing'
  | 'joinOn'
  | 'prewhere'
  | 'where'
  | 'groupBy'
  | 'having'
  | 'window'
  | 'qualify'
  | 'orderBy'
  | 'interpolate'
  | 'limitBy'
  | 'limit'
  | 'settings';

/**
 * The top-level expressions of one SELECT, clause by clause, in source order. Does not list
 * expressions of FROM/JOIN subqueries (they are statements of their own), but does list
 * SubqueryExpr nodes themselves (e.g. the `(SELECT ...)` of a WITH item or an IN's right side
 * appears inside the expression that holds it).
 */
export function exprsOfSelect(q: SelectQuery): { clause: Clause; expr: Expr }[] {
  const out: { clause: Clause; expr: Expr }[] = [];
  const add = (clause: Clause, e: Expr | undefined): void => {
    if (e) out.push({ clause, expr: e });
  };
  for (const w of q.with ?? []) add('with', w.expr);
  for (const e of q.distinctOn ?? []) add('distinctOn', e);
  for (const e of q.columns) add('columns', e);
  if (q.from) {
    const tables: TableExpr[] = [q.from.table];
    for (const t of tables) tableExprs(t, add);
    if (q.from.arrayJoin) for (const e of q.from.arrayJoin.exprs) add('arrayJoin', e);
    for (const j of q.from.joins) {
      tableExprs(j.table, add);
      for (const e of j.using ?? []) add('joinUsing', e);
      add('joinOn', j.on);
    }
  }
  add('prewhere', q.prewhere);
  add('where', q.where);
  for (const e of q.groupBy ?? []) add('groupBy', e);
  for (const g of q.groupingSets ?? []) for (const e of g) add('groupBy', e);
  add('having', q.having);
  for (const w of q.window ?? []) for (const e of windowExprs(w.spec)) add('window', e);
  add('qualify', q.qualify);
  for (const o of q.orderBy ?? []) {
    add('orderBy', o.expr);
    add('orderBy', o.fillFrom);
    add('orderBy', o.fillTo);
    add('orderBy', o.fillStep);
    add('orderBy', o.fillStaleness);
  }
  for (const x of q.interpolate ?? []) add('interpolate', x.expr);
  if (q.limitBy) {
    add('limitBy', q.limitBy.limit);
    add('limitBy', q.limitBy.offset);
    for (const e of q.limitBy.by) add('limitBy', e);
  }
  if (q.limit) {
    add('limit', q.limit.limit);
    add('limit', q.limit.offset);
  }
  for (const s of q.settings ?? []) add('settings', s.value);
  return out;
}

function tableExprs(t: TableExpr, add: (c: Clause, e: Expr | undefined) => void): void {
  if (t.kind === 'table' && t.sample) {
    add('sample', t.sample.ratio);
    add('sample', t.sample.offset);
  }
  // Table-function arguments are not walked: they name remote sources, not columns of this query.
}

export interface MapSelectOptions extends VisitOptions {
  /**
   * Share instead of copy: the result is a shallow copy of `q` whose untouched parts (tables,
   * FROM/JOIN subqueries, positions) are the input's own objects. For structure-sharing per-shard
   * rewrites (with rewriteExpr); `subqueries` is ignored.
   */
  share?: boolean;
}

/**
 * A copy of `q` with every top-level expression replaced by `fn(expr, clause)`. FROM/JOIN
 * subqueries are deep-copied (or mapped too with `{ subqueries: true }`, using the same fn),
 * or shared with `{ share: true }`.
 */
export function mapSelectExprs(q: SelectQuery, fn: (e: Expr, clause: Clause) => Expr, opts: MapSelectOptions = {}): SelectQuery {
  const share = opts.share === true;
  const pos = <T extends { pos?: Pos }>(from: T, to: T): T => {
    if (!share && from.pos) to.pos = { ...from.pos };
    return to;
  };
  const out: SelectQuery = pos(q, { ...q, columns: q.columns.map((e) => fn(e, 'columns')) });
  if (q.with) out.with = q.with.map((w) => ({ ...w, expr: fn(w.expr, 'with') }));
  if (q.distinctOn) out.distinctOn = q.distinctOn.map((e) => fn(e, 'distinctOn'));
  if (q.from) {
    const mapTable = (t: TableExpr): TableExpr => {
      if (t.kind === 'table') {
        if (share && !t.sample) return t;
        const c = pos(t, { ...t });
        if (t.sample) {
          c.sample = { ratio: fn(t.sample.ratio, 'sample') };
          if (t.sample.offset) c.sample.offset = fn(t.sample.offset, 'sample');
        }
        return c;
      }
      if (share) return t;
      if (t.kind === 'subqueryTable') {
        const sub = opts.subqueries ? mapStatementWith(t.query, fn, opts) : cloneAst(t.query);
        return pos(t, { ...t, query: sub });
      }
      return cloneAst(t);
    };
    out.from = {
      ...q.from,
      table: mapTable(q.from.table),
      joins: q.from.joins.map((j): JoinClause => {
        const c: JoinClause = pos(j, { ...j, table: mapTable(j.table) });
        if (j.using) c.using = j.using.map((e) => fn(e, 'joinUsing'));
        if (j.on) c.on = fn(j.on, 'joinOn');
        return c;
      }),
    };
    if (q.from.arrayJoin) {
      const aj = q.from.arrayJoin;
      out.from.arrayJoin = pos(aj, { ...aj, exprs: aj.exprs.map((e) => fn(e, 'arrayJoin')) });
    }
  }
  if (q.prewhere) out.prewhere = fn(q.prewhere, 'prewhere');
  if (q.where) out.where = fn(q.where, 'where');
  if (q.groupBy) out.groupBy = q.groupBy.map((e) => fn(e, 'groupBy'));
  if (q.groupingSets) out.groupingSets = q.groupingSets.map((g) => g.map((e) => fn(e, 'groupBy')));
  if (q.having) out.having = fn(q.having, 'having');
  if (q.window) out.window = q.window.map((w) => ({ name: w.name, spec: mapWindow(w.spec, (e) => fn(e, 'window'), !share) }));
  if (q.qualify) out.qualify = fn(q.qualify, 'qualify');
  if (q.orderBy)
    out.orderBy = q.orderBy.map((o): OrderItem => {
      const m: OrderItem = { ...o, expr: fn(o.expr, 'orderBy') };
      if (o.fillFrom) m.fillFrom = fn(o.fillFrom, 'orderBy');
      if (o.fillTo) m.fillTo = fn(o.fillTo, 'orderBy');
      if (o.fillStep) m.fillStep = fn(o.fillStep, 'orderBy');
      if (o.fillStaleness) m.fillStaleness = fn(o.fillStaleness, 'orderBy');
      return m;
    });
  if (q.interpolate) out.interpolate = q.interpolate.map((x) => (x.expr ? { name: x.name, expr: fn(x.expr, 'interpolate') } : { name: x.name }));
  if (q.limitBy) {
    out.limitBy = { limit: fn(q.limitBy.limit, 'limitBy'), by: q.limitBy.by.map((e) => fn(e, 'limitBy')) };
    if (q.limitBy.offset) out.limitBy.offset = fn(q.limitBy.offset, 'limitBy');
  }
  if (q.limit) {
    out.limit = { ...q.limit, limit: fn(q.limit.limit, 'limit') };
    if (q.limit.offset) out.limit.offset = fn(q.limit.offset, 'limit');
  }
  if (q.settings) out.settings = q.settings.map((s) => ({ name: s.name, value: fn(s.value, 'settings') }));
  return out;
}

/**
 * mapSelectExprs sharing everything `fn` leaves alone (see MapSelectOptions.share): the planner's
 * per-shard rewrites, with rewriteExpr inside `fn`. Does not enter FROM/JOIN subqueries.
 */
export function mapClausesShared(q: SelectQuery, fn: (e: Expr, clause: Clause) => Expr): SelectQuery {
  return mapSelectExprs(q, fn, { share: true });
}

function mapStatementWith(stmt: SelectStatement, fn: (e: Expr, clause: Clause) => Expr, opts: VisitOptions): SelectStatement {
  if (stmt.kind === 'select') return mapSelectExprs(stmt, fn, opts);
  const out = { ...stmt, selects: stmt.selects.map((q) => mapSelectExprs(q, fn, opts)) };
  if (stmt.settings) out.settings = stmt.settings.map((s) => ({ name: s.name, value: fn(s.value, 'settings') }));
  if (stmt.pos) out.pos = { ...stmt.pos };
  return out;
}

export interface EqualOptions {
  /**
   * false (default): semantic equality as ClickHouse sees it: ignores pos, aliases, the
   * `operator` spelling (`a + b` equals `plus(a, b)`), `tuple(..)` vs `(..)`, and the cast spelling.
   * true: only pos is ignored (what a print -> parse round trip must preserve).
   */
  strict?: boolean;
}

/** Structural equality of two expressions, ignoring positions (and by default aliases and spelling). */
export function equalExpr(a: Expr, b: Expr, opts: EqualOptions = {}): boolean {
  return equalValue(a, b, opts.strict === true);
}

/** Structural equality of two statements, ignoring positions (strict: aliases and spelling count). */
export function equalStatement(a: SelectStatement, b: SelectStatement, opts: EqualOptions = {}): boolean {
  return equalValue(a, b, opts.strict === true);
}

const LOOSE_IGNORED = new Set(['pos', 'alias', 'operator', 'explicit', 'syntax']);

// Generic deep comparison over the JSON-shaped AST. Keys whose value is undefined count as absent.
function equalValue(a: unknown, b: unknown, strict: boolean): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!equalValue(a[i], b[i], strict)) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  // Only expression nodes (with `kind`) have spelling-only fields; `alias` on a TableRef or a
  // WithItem's `name` is meaningful, so loose mode only ignores them on expressions.
  const isExpr = typeof ao.kind === 'string' && EXPR_KINDS.has(ao.kind);
  const ignored = (k: string): boolean => k === 'pos' || k === 'ordinal' || k === 'nameAs' || (!strict && isExpr && LOOSE_IGNORED.has(k));
  for (const k of Object.keys(ao)) {
    if (ignored(k) || ao[k] === undefined) continue;
    if (!equalValue(ao[k], bo[k], strict)) return false;
  }
  for (const k of Object.keys(bo)) {
    if (ignored(k) || bo[k] === undefined) continue;
    if (ao[k] === undefined) return false;
  }
  return true;
}

const EXPR_KINDS = new Set(['literal', 'array', 'tuple', 'column', 'asterisk', 'function', 'subquery', 'case', 'cast', 'lambda', 'interval', 'param']);

/**
 * Every statement inside `stmt`, itself first (`nested` false), then those of FROM / JOIN subqueries
 * and of subqueries in any clause, at any depth: the one walk over a statement's statements.
 */
export function forEachStatement(stmt: SelectStatement, fn: (s: SelectStatement, nested: boolean) => void): void {
  const ofStatement = (s: SelectStatement, nested: boolean): void => {
    fn(s, nested);
    for (const q of s.kind === 'union' ? s.selects : [s]) ofSelect(q);
  };
  const ofSelect = (q: SelectQuery): void => {
    for (const t of fromTables(q)) if (t.kind === 'subqueryTable') ofStatement(t.query, true);
    for (const { expr } of exprsOfSelect(q)) {
      walkExpr(expr, (e) => {
        if (e.kind === 'subquery') ofStatement(e.query, true);
        return undefined;
      });
    }
  };
  ofStatement(stmt, false);
}

/** Every SELECT of the statement at any depth (each of a UNION's, each subquery's), outer ones first. */
export function forEachSelect(stmt: SelectStatement, fn: (q: SelectQuery) => void): void {
  forEachStatement(stmt, (s) => {
    for (const q of s.kind === 'union' ? s.selects : [s]) fn(q);
  });
}

/**
 * `q` with each statement nested directly in it (a subquery in any clause, a FROM / JOIN subquery)
 * replaced by `fn` of it, sharing what `fn` leaves alone: the step of a rewrite that reaches every SELECT.
 */
export function mapNestedStatements(q: SelectQuery, fn: (s: SelectStatement) => SelectStatement): SelectQuery {
  const out = mapClausesShared(q, (e) => rewriteExpr(e, (x) => (x.kind === 'subquery' ? { ...x, query: fn(x.query) } : undefined)));
  return mapFromTables(out, (t) => (t.kind === 'subqueryTable' ? { ...t, query: fn(t.query) } : t));
}

/** FROM's table and each JOIN's, in order (none without a FROM). */
export function fromTables(q: SelectQuery): TableExpr[] {
  return q.from ? [q.from.table, ...q.from.joins.map((j) => j.table)] : [];
}

/** `q` with FROM's table and each JOIN's replaced by `fn` of it (`q` itself without a FROM). */
export function mapFromTables(q: SelectQuery, fn: (t: TableExpr) => TableExpr): SelectQuery {
  if (!q.from) return q;
  return { ...q, from: { ...q.from, table: fn(q.from.table), joins: q.from.joins.map((j) => ({ ...j, table: fn(j.table) })) } };
}

/** Every SELECT of the statement at any depth replaced by `fn` of it, innermost first: `fn` sees its subqueries mapped already. */
export function mapEverySelect(stmt: SelectStatement, fn: (q: SelectQuery) => SelectQuery): SelectStatement {
  const one = (q: SelectQuery): SelectQuery => fn(mapNestedStatements(q, (s) => mapEverySelect(s, fn)));
  return stmt.kind === 'select' ? one(stmt) : { ...stmt, selects: stmt.selects.map(one) };
}

/**
 * Every SETTINGS clause of a statement, at any depth: its own (`nested` false; for a UNION, its
 * clause and its branches'), then those of FROM / JOIN subqueries and of subqueries in any clause.
 */
export function forEachSettingsClause(stmt: SelectStatement, fn: (items: SettingItem[], nested: boolean) => void): void {
  forEachStatement(stmt, (s, nested) => {
    if (s.kind === 'union' && s.settings?.length) fn(s.settings, nested);
    for (const q of s.kind === 'union' ? s.selects : [s]) if (q.settings?.length) fn(q.settings, nested);
  });
}
