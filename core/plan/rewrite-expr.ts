// A structure-sharing expression rewrite: returns the SAME object when nothing under it changed, and
// new nodes only along the paths to what changed. The planner never mutates a tree it did not just
// create, so sharing untouched subtrees between shard variants is as safe as a full clone (no shard's
// rewrite may leak into another's) while costing O(changed path) instead of O(tree) per shard. That is
// what keeps a 1,000-value IN list within the planning budget
// (docs/benchmarks.md#planner-and-merge-plan-merge).
import type { Expr } from '../sql/ast.js';

/** Return a replacement, SKIP (keep the node, do not descend), or undefined (descend). */
export const SKIP = Symbol('skip');
export type RewriteFn = (e: Expr) => Expr | typeof SKIP | undefined;

export function rewriteExpr(e: Expr, fn: RewriteFn): Expr {
  const r = fn(e);
  if (r === SKIP) return e;
  if (r !== undefined) return r;
  switch (e.kind) {
    case 'literal':
    case 'column':
    case 'asterisk':
    case 'param':
    case 'subquery':
      return e;
    case 'array':
    case 'tuple': {
      const items = rewriteList(e.items, fn);
      return items === e.items ? e : { ...e, items };
    }
    case 'function': {
      const args = rewriteList(e.args, fn);
      const params = e.params ? rewriteList(e.params, fn) : undefined;
      return args === e.args && params === e.params ? e : { ...e, args, ...(params ? { params } : {}) };
    }
    case 'case': {
      let changed = false;
      const operand = e.operand ? rewriteExpr(e.operand, fn) : undefined;
      if (operand !== e.operand) changed = true;
      const whens = e.whens.map((w) => {
        const when = rewriteExpr(w.when, fn);
        const then = rewriteExpr(w.then, fn);
        if (when !== w.when || then !== w.then) {
          changed = true;
          return { when, then };
        }
        return w;
      });
      const els = e.else ? rewriteExpr(e.else, fn) : undefined;
      if (els !== e.else) changed = true;
      if (!changed) return e;
      const out = { ...e, whens };
      if (operand) out.operand = operand;
      if (els) out.else = els;
      return out;
    }
    case 'cast': {
      const x = rewriteExpr(e.expr, fn);
      return x === e.expr ? e : { ...e, expr: x };
    }
    case 'lambda': {
      const body = rewriteExpr(e.body, fn);
      return body === e.body ? e : { ...e, body };
    }
    case 'interval': {
      const value = rewriteExpr(e.value, fn);
      return value === e.value ? e : { ...e, value };
    }
  }
}

export function rewriteList(items: Expr[], fn: RewriteFn): Expr[] {
  let out: Expr[] | undefined;
  for (let i = 0; i < items.length; i++) {
    const x = rewriteExpr(items[i]!, fn);
    if (x !== items[i] && !out) out = items.slice(0, i);
    if (out) out.push(x);
  }
  return out ?? items;
}

/** Which clause a top-level expression of a SELECT sits in (for clause-sensitive rewrites). */
export type ClauseName =
  | 'with'
  | 'columns'
  | 'prewhere'
  | 'where'
  | 'joinOn'
  | 'joinUsing'
  | 'arrayJoin'
  | 'groupBy'
  | 'having'
  | 'orderBy'
  | 'limitBy'
  | 'limit'
  | 'sample';

/**
 * A shallow copy of `q` whose top-level expressions are `fn(expr, clause)`; unchanged expressions
 * are shared. Does not enter FROM/JOIN subqueries (a different scope). Tables are copied shallowly.
 */
export function mapClausesShared(q: import('../sql/ast.js').SelectQuery, fn: (e: Expr, clause: ClauseName) => Expr): import('../sql/ast.js').SelectQuery {
  const out = { ...q, columns: q.columns.map((e) => fn(e, 'columns')) };
  if (q.with) out.with = q.with.map((w) => ({ ...w, expr: fn(w.expr, 'with') }));
  if (q.from) {
    const t = q.from.table;
    out.from = {
      ...q.from,
      table:
        t.kind === 'table' && t.sample
          ? { ...t, sample: { ratio: fn(t.sample.ratio, 'sample'), ...(t.sample.offset ? { offset: fn(t.sample.offset, 'sample') } : {}) } }
          : t,
      joins: q.from.joins.map((j) => ({
        ...j,
        ...(j.on ? { on: fn(j.on, 'joinOn') } : {}),
        ...(j.using ? { using: j.using.map((e) => fn(e, 'joinUsing')) } : {}),
      })),
    };
    if (q.from.arrayJoin) out.from.arrayJoin = { ...q.from.arrayJoin, exprs: q.from.arrayJoin.exprs.map((e) => fn(e, 'arrayJoin')) };
  }
  if (q.prewhere) out.prewhere = fn(q.prewhere, 'prewhere');
  if (q.where) out.where = fn(q.where, 'where');
  if (q.groupBy) out.groupBy = q.groupBy.map((e) => fn(e, 'groupBy'));
  if (q.having) out.having = fn(q.having, 'having');
  if (q.orderBy) out.orderBy = q.orderBy.map((o) => ({ ...o, expr: fn(o.expr, 'orderBy') }));
  if (q.limitBy)
    out.limitBy = {
      ...q.limitBy,
      limit: fn(q.limitBy.limit, 'limitBy'),
      by: q.limitBy.by.map((e) => fn(e, 'limitBy')),
      ...(q.limitBy.offset ? { offset: fn(q.limitBy.offset, 'limitBy') } : {}),
    };
  if (q.limit) out.limit = { ...q.limit, limit: fn(q.limit.limit, 'limit'), ...(q.limit.offset ? { offset: fn(q.limit.offset, 'limit') } : {}) };
  return out;
}
