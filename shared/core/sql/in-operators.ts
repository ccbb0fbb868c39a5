// The IN family of operators and what their right side is. ClickHouse reads a bare identifier on the
// right of IN as a table (or a shipped set), never as a column: `x IN t` tests membership in t's rows.
import type { Expr, FunctionCall } from './ast.js';

/** Every function the IN operators parse to: `x [GLOBAL] [NOT] IN ...` and the NULL-matching forms. */
export const IN_OPERATOR_NAMES: ReadonlySet<string> = new Set(['in', 'notIn', 'globalIn', 'globalNotIn', 'nullIn', 'notNullIn']);

/** The right side of an IN operator when it names a table rather than listing values. */
export function inTableOperand(e: Expr): (Expr & { kind: 'column' }) | undefined {
  if (e.kind !== 'function' || !IN_OPERATOR_NAMES.has(e.name)) return undefined;
  const right = (e as FunctionCall).args[1];
  return right?.kind === 'column' ? right : undefined;
}
