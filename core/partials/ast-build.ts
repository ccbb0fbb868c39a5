// Small AST constructors and inspectors used by the split. They live here (not in core/sql)
// so the partials code does not wait on the parser's helpers; each is a few lines and works on
// the shared AST shape of core/sql/ast.ts.
import type { Expr, FunctionCall, Literal, ColumnRef } from '../sql/ast.js';

export function fn(name: string, args: Expr[], params?: Expr[]): FunctionCall {
  const f: FunctionCall = { kind: 'function', name, args };
  if (params) f.params = params;
  return f;
}
export function col(name: string): ColumnRef {
  return { kind: 'column', parts: [name] };
}
export function int(n: number | bigint): Expr {
  const v = BigInt(n);
  const lit: Literal = { kind: 'literal', type: 'integer', value: (v < 0n ? -v : v).toString() };
  return v < 0n ? fn('negate', [lit]) : lit;
}
export function float(n: number): Literal {
  return { kind: 'literal', type: 'float', value: Number.isInteger(n) ? n.toFixed(1) : String(n) };
}
export function str(s: string): Literal {
  return { kind: 'literal', type: 'string', value: s };
}
export function nul(): Literal {
  return { kind: 'literal', type: 'null', value: '' };
}
export function arr(items: Expr[]): Expr {
  return { kind: 'array', items };
}
export function withAlias<T extends Expr>(e: T, alias: string): T {
  return { ...e, alias };
}
export function lambda(params: string[], body: Expr): Expr {
  return { kind: 'lambda', params, body };
}

const canonCache = new WeakMap<object, string>();
/** A position-free, alias-free canonical text of an expression, used to compare expressions. */
export function canon(e: Expr | undefined): string {
  if (e === undefined) return 'undefined';
  let c = canonCache.get(e);
  if (c === undefined) {
    c = JSON.stringify(e, (k, v) => (k === 'pos' || k === 'alias' || k === 'operator' ? undefined : v));
    canonCache.set(e, c);
  }
  return c;
}

/** Visit every sub-expression (pre-order). Return false from `f` to skip a node's children. */
export function walk(e: Expr, f: (e: Expr) => boolean | void): void {
  if (f(e) === false) return;
  switch (e.kind) {
    case 'function':
      for (const a of e.args) walk(a, f);
      for (const p of e.params ?? []) walk(p, f);
      break;
    case 'array':
    case 'tuple':
      for (const a of e.items) walk(a, f);
      break;
    case 'case':
      if (e.operand) walk(e.operand, f);
      for (const w of e.whens) {
        walk(w.when, f);
        walk(w.then, f);
      }
      if (e.else) walk(e.else, f);
      break;
    case 'cast':
      walk(e.expr, f);
      break;
    case 'lambda':
      walk(e.body, f);
      break;
    case 'interval':
      walk(e.value, f);
      break;
    default:
      break;
  }
}

/** Rebuild an expression bottom-up; `f` may return a replacement for a node (children first not applied). */
export function rewrite(e: Expr, f: (e: Expr) => Expr | undefined): Expr {
  const r = f(e);
  if (r) return r;
  switch (e.kind) {
    case 'function': {
      const out: FunctionCall = { ...e, args: e.args.map((a) => rewrite(a, f)) };
      if (e.params) out.params = e.params.map((p) => rewrite(p, f));
      return out;
    }
    case 'array':
    case 'tuple':
      return { ...e, items: e.items.map((a) => rewrite(a, f)) };
    case 'case': {
      const out = { ...e, whens: e.whens.map((w) => ({ when: rewrite(w.when, f), then: rewrite(w.then, f) })) };
      if (e.operand) out.operand = rewrite(e.operand, f);
      if (e.else) out.else = rewrite(e.else, f);
      return out;
    }
    case 'cast':
      return { ...e, expr: rewrite(e.expr, f) };
    case 'lambda':
      return { ...e, body: rewrite(e.body, f) };
    case 'interval':
      return { ...e, value: rewrite(e.value, f) };
    default:
      return e;
  }
}
