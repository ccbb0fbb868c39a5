// `f(x) RESPECT NULLS` / `f(x) IGNORE NULLS` on an aggregate (no OVER), as ClickHouse's
// AggregateFunctionFactory resolves them: the clause picks another registered function (any ->
// any_respect_nulls, and back with IGNORE NULLS), applied under the combinators (`anyIf(x, c) RESPECT
// NULLS` runs any_respect_nullsIf). The call then runs as that function on every path and engine; its
// column name stays the call as written, without the clause, as ClickHouse names it.
import { aggregateParts } from './aggregate-names.js';

// Aliases of the functions that have a variant, to the name the factory registers them under.
const CANONICAL: Record<string, string> = {
  any_value: 'any',
  first_value: 'any',
  last_value: 'anyLast',
  anyRespectNulls: 'any_respect_nulls',
  anyValueRespectNulls: 'any_respect_nulls',
  firstValueRespectNulls: 'any_respect_nulls',
  any_value_respect_nulls: 'any_respect_nulls',
  first_value_respect_nulls: 'any_respect_nulls',
  anyLastRespectNulls: 'anyLast_respect_nulls',
  lastValueRespectNulls: 'anyLast_respect_nulls',
  last_value_respect_nulls: 'anyLast_respect_nulls',
};

const RESPECT: Record<string, string> = { any: 'any_respect_nulls', anyLast: 'anyLast_respect_nulls' };
const IGNORE: Record<string, string> = { any_respect_nulls: 'any', anyLast_respect_nulls: 'anyLast' };

export type NullsAction = 'RESPECT' | 'IGNORE';

/** The function a call named `name` runs as under the clause, or ClickHouse's refusal (its code and text). */
export function nullsActionName(name: string, action: NullsAction): { name: string } | { code: 48 | 62; message: string } {
  const parts = aggregateParts(name);
  if (!parts) return { code: 62, message: `Function with name \`${name}\` cannot use ${action} NULLS.` };
  const base = CANONICAL[parts.base] ?? parts.base;
  const target = (action === 'RESPECT' ? RESPECT : IGNORE)[base];
  if (target) return { name: target + parts.combinators };
  // IGNORE NULLS is what every other aggregate does already.
  if (action === 'IGNORE') return { name };
  return { code: 48, message: `Function ${base} does not support RESPECT NULLS.` };
}
