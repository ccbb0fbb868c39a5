// Cursor pagination, search_after style: the cursor carries the last row's sort-key and
// tie-breaker values; the next page's shard queries get "strictly after this row in the sort
// order" as a WHERE predicate, so page p costs one page per shard, not p pages.
// Opaque to clients: base64url of a small JSON document, bound to the query's shape.
import { createHash } from 'node:crypto';
import type { Expr } from '../sql/ast.js';
import { ScatterError } from '../errors.js';
import { fn, int, str, float } from './ast-build.js';
import type { SortSpec } from './evaluator.js';
import { intInfo, isFloatType, stripNullable } from './values.js';

export interface CursorKey {
  /** The value in ClickHouse JSON conventions, and its type (to print it back as a literal). */
  json: unknown;
  type: string;
}

interface CursorDoc {
  v: 1;
  q: string; // hash of the query shape
  k: CursorKey[];
  /** How many rows equal to k (on every sort and tie value) the previous pages already returned. */
  d?: number;
}

export function queryShapeHash(text: string): string {
  return createHash('sha256').update(text).digest('base64url').slice(0, 16);
}

export function encodeCursor(shape: string, keys: CursorKey[], dup = 1): string {
  const doc: CursorDoc = { v: 1, q: shape, k: keys, d: dup };
  return Buffer.from(JSON.stringify(doc), 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string, shape: string, n: number): { keys: CursorKey[]; dup: number } {
  let doc: CursorDoc;
  try {
    doc = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as CursorDoc;
  } catch {
    throw new ScatterError('BAD_REQUEST', 'invalid cursor');
  }
  if (!doc || doc.v !== 1 || !Array.isArray(doc.k) || doc.k.length !== n) throw new ScatterError('BAD_REQUEST', 'invalid cursor');
  if (doc.q !== shape) throw new ScatterError('BAD_REQUEST', 'the cursor belongs to a different query');
  const dup = doc.d ?? 1;
  if (!Number.isSafeInteger(dup) || dup < 1 || dup > 1_000_000) throw new ScatterError('BAD_REQUEST', 'invalid cursor');
  return { keys: doc.k, dup };
}

/** A SQL literal for a value of ClickHouse type `t` given in JSON conventions. */
export function literalFor(json: unknown, t: string): Expr {
  const base = stripNullable(t);
  if (intInfo(base)) return int(BigInt(String(json)));
  if (isFloatType(base)) {
    const n = Number(json);
    if (!Number.isFinite(n)) throw new ScatterError('BAD_REQUEST', 'cursor over a NaN/Inf sort key is not supported');
    return n < 0 ? fn('negate', [float(-n)]) : float(n);
  }
  return str(String(json));
}

/**
 * The predicate "row sorts after `keys`" (or equal to them, when `inclusive`) for sort expressions
 * `exprs` with `specs` (ClickHouse's order: by default values, then NULL, in either direction;
 * NULLS FIRST: NULL first). Inclusive lets rows identical to the last one, not all of which fitted
 * on the previous page, come back; the merger drops the ones already returned.
 */
export function afterPredicate(exprs: Expr[], specs: SortSpec[], keys: CursorKey[], inclusive = false): Expr {
  const ors: Expr[] = [];
  const eqs: Expr[] = [];
  for (let i = 0; i < exprs.length; i++) {
    const e = exprs[i]!;
    const s = specs[i]!;
    const k = keys[i]!;
    const isNull = k.json === null;
    let gt: Expr | undefined;
    if (s.nulls === 'FIRST') {
      gt = isNull ? fn('isNotNull', [e]) : fn(s.direction === 'DESC' ? 'less' : 'greater', [e, literalFor(k.json, k.type)]);
    } else {
      gt = isNull ? undefined : fn('or', [fn(s.direction === 'DESC' ? 'less' : 'greater', [e, literalFor(k.json, k.type)]), fn('isNull', [e])]);
    }
    if (gt) ors.push(eqs.length ? fn('and', [...eqs, gt]) : gt);
    eqs.push(isNull ? fn('isNull', [e]) : fn('equals', [e, literalFor(k.json, k.type)]));
  }
  if (inclusive) ors.push(eqs.length === 1 ? eqs[0]! : fn('and', eqs));
  if (ors.length === 0) return fn('equals', [int(0), int(1)]);
  return ors.length === 1 ? ors[0]! : fn('or', ors);
}
