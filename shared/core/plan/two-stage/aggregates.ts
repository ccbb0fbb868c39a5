// Which calls are aggregate functions, and how one travels between the stages: `f(params)(args)`
// with any combinators becomes `fState(params)(args)` on the shards and `fMerge(params)(state)` in
// the final stage, as ClickHouse's Distributed engine does with its "mergeable state". The names
// come from ClickHouse itself (shared/core/sql/aggregate-functions.ts, generated from system.functions).
import type { FunctionCall } from '../../sql/ast.js';
import { aggregateName } from '../../sql/aggregate-names.js';

export { aggregateName };

/** A call the shards must turn into a state: an aggregate function that is not a window call. */
export function isAggregateCall(f: FunctionCall): boolean {
  return f.over === undefined && aggregateName(f.name) !== undefined;
}

/**
 * The function whose state the shards compute for `f`: `count(DISTINCT x)` is uniqExact (ClickHouse's
 * default count_distinct_implementation), `f(DISTINCT x)` is fDistinct (as ClickHouse rewrites it).
 */
export function stateBase(f: FunctionCall): string {
  const name = aggregateName(f.name) ?? f.name;
  if (!f.distinct) return name;
  return name.toLowerCase() === 'count' ? 'uniqExact' : `${name}Distinct`;
}

/**
 * The shards' and the final stage's functions for an aggregate whose state travels:
 * `fState` / `fMerge`, except
 * - a call that already asks for the state (`uniqExactState(x)`): the shards compute that state and
 *   the final stage merges into a state again, `uniqExactMergeState` (ClickHouse refuses `StateState`);
 * - a call that merges states (`uniqMerge(s)`, over a GLOBAL JOIN's states): the shards merge theirs into
 *   one state each, `uniqMergeState`, of the type they read, and the final stage merges those with the
 *   call itself (ClickHouse refuses `MergeMerge`, 184);
 * - `fIfOrNull` / `fIfOrDefault`: travel as `fOrNullIf` / `fOrDefaultIf`, the same function (NULL or the
 *   default when no row passes the condition), because ClickHouse's `-IfOrNull` state loses the
 *   "nothing added" mark across -State/-Merge (sumIfOrNullMerge of an empty state is 0, not NULL;
 *   checked on chdb).
 */
export function stageNames(base: string): { state: string; merge: string } {
  if (base.endsWith('State') && aggregateName(base.slice(0, -5)) !== undefined) {
    return { state: base, merge: `${base.slice(0, -5)}MergeState` };
  }
  if (base.endsWith('Merge') && aggregateName(base.slice(0, -5)) !== undefined) return { state: `${base}State`, merge: base };
  const name = base.replace(/If(OrNull|OrDefault)$/, '$1If');
  return { state: `${name}State`, merge: `${name}Merge` };
}
