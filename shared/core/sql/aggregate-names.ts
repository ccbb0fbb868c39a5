// Which function names are aggregate functions, as ClickHouse resolves them: a registered name
// (shared/core/sql/aggregate-functions.ts, generated from ClickHouse's system.functions) followed by any
// combinator suffixes (`sumIf`, `uniqArrayIf`, `SUM` -> `sum`). One recognizer for both paths: the
// fast path must never mistake an aggregate it does not compute for a scalar function.
import { AGGREGATE_COMBINATORS, AGGREGATE_FUNCTIONS, CASE_INSENSITIVE_AGGREGATES } from './aggregate-functions.js';
import { BoundedCache } from '../bounded-cache.js';

const EXACT = new Set(AGGREGATE_FUNCTIONS);
const FOLDED = new Map(CASE_INSENSITIVE_AGGREGATES.map((n) => [n.toLowerCase(), n]));
// Longest suffix first: `OrDefault` before a hypothetical shorter one ending the same way.
const COMBINATORS = [...AGGREGATE_COMBINATORS].sort((a, b) => b.length - a.length);

// Bounded: names come from users, and a long-lived coordinator must not grow without limit.
const memo = new BoundedCache<string, string | null>(10_000);

/**
 * The name ClickHouse registers for `name` when it is an aggregate function (with any combinator
 * suffixes: `sumIf`, `uniqArrayIf`, `SUM` -> `sum`), else undefined (`plus`, `arrayMap`, `nullIf`).
 */
export function aggregateName(name: string): string | undefined {
  const hit = memo.get(name);
  if (hit !== undefined) return hit ?? undefined;
  const out = resolve(name, 0);
  memo.set(name, out ?? null);
  return out;
}

function resolve(name: string, depth: number): string | undefined {
  const parts = resolveParts(name, depth);
  return parts && parts.base + parts.combinators;
}

/** An aggregate call's registered function and its combinator suffixes (`first_valueIf` -> first_value, If), else undefined. */
export function aggregateParts(name: string): { base: string; combinators: string } | undefined {
  return resolveParts(name, 0);
}

function resolveParts(name: string, depth: number): { base: string; combinators: string } | undefined {
  if (EXACT.has(name)) return { base: name, combinators: '' };
  const folded = FOLDED.get(name.toLowerCase());
  if (folded) return { base: folded, combinators: '' };
  if (depth > 8) return undefined;
  for (const c of COMBINATORS) {
    if (name.length > c.length && name.endsWith(c)) {
      const inner = resolveParts(name.slice(0, -c.length), depth + 1);
      if (inner) return { base: inner.base, combinators: inner.combinators + c };
    }
  }
  return undefined;
}
