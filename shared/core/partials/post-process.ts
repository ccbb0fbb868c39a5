// The clauses a single node applies after GROUP BY/HAVING, applied by the coordinator to the
// merged rows in ClickHouse's order: ORDER BY, DISTINCT, LIMIT BY, then LIMIT/OFFSET.
import { compareForSort, type SortSpec } from './evaluator.js';
import { valueKey, type Value } from './values.js';

export interface WorkRow {
  /** Output column values in SELECT order. */
  out: Value[];
  /** ORDER BY key values. */
  sort: Value[];
  /** LIMIT BY key values. */
  by: Value[];
  /** Unique tie-breaker values (compared after the ORDER BY keys, ascending). */
  tie: Value[];
}

export interface PostOptions {
  sort: SortSpec[];
  distinct: boolean;
  limitBy?: { limit: number; offset: number };
  limit?: number;
  offset: number;
}

export function rowComparator(specs: SortSpec[]): (a: WorkRow, b: WorkRow) => number {
  return (a, b) => {
    for (let i = 0; i < specs.length; i++) {
      const c = compareForSort(a.sort[i]!, b.sort[i]!, specs[i]!);
      if (c) return c;
    }
    for (let i = 0; i < Math.max(a.tie.length, b.tie.length); i++) {
      const c = compareForSort(a.tie[i] ?? null, b.tie[i] ?? null, { direction: 'ASC' });
      if (c) return c;
    }
    return 0;
  };
}

/**
 * Merge two lists sorted by `cmp` into one, keeping at most `limit` items: one linear pass, no
 * heap rebuilt per element (the merge on arrival of each shard's sorted answer).
 */
export function merge2<T>(a: T[], b: T[], cmp: (a: T, b: T) => number, limit = Infinity): T[] {
  const n = Math.min(a.length + b.length, limit);
  const out = new Array<T>(n);
  let i = 0;
  let j = 0;
  for (let k = 0; k < n; k++) {
    if (j >= b.length || (i < a.length && cmp(a[i]!, b[j]!) <= 0)) out[k] = a[i++]!;
    else out[k] = b[j++]!;
  }
  return out;
}

/**
 * Apply DISTINCT, LIMIT BY, OFFSET and LIMIT to rows already in ORDER BY order.
 * Returns the page and whether rows follow it (for cursors).
 */
export function applyPostClauses(rows: WorkRow[], o: PostOptions): { rows: WorkRow[]; more: boolean } {
  let cur = rows;
  if (o.distinct) {
    const seen = new Set<string>();
    cur = cur.filter((r) => {
      const k = valueKey(r.out);
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
  }
  if (o.limitBy) {
    const counts = new Map<string, number>();
    const { limit, offset } = o.limitBy;
    cur = cur.filter((r) => {
      const k = valueKey(r.by);
      const n = counts.get(k) ?? 0;
      counts.set(k, n + 1);
      return n >= offset && n < offset + limit;
    });
  }
  const start = Math.min(o.offset, cur.length);
  const end = o.limit === undefined ? cur.length : Math.min(cur.length, start + o.limit);
  return { rows: cur.slice(start, end), more: end < cur.length };
}
