// Small AST constructors and inspectors used by the split. They live here (not in shared/core/sql)
// so the partials code does not wait on the parser's helpers; each is a few lines and works on
// the shared AST shape of shared/core/sql/ast.ts.
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
    c = JSON.stringify(e, (k, v) => (k === 'pos' || k === 'alias' || k === 'operator' || k === 'ordinal' || k === 'nameAs' ? undefined : v));
    canonCache.set(e, c);
  }
  return c;
}
