// Cursor pagination, search_after style: the cursor carries the last row's sort-key and
// tie-breaker values; the next page's shard queries get "strictly after this row in the sort
// order" as a WHERE predicate, so page p costs one page per shard, not p pages.
// Opaque to clients: base64url of a small JSON document, bound to the query's shape, then a dot and
// an HMAC-SHA256 tag of that text. The values in a cursor become literals in every shard's SQL, so a
// cursor the coordinator did not issue (forged, edited, from another deployment) is refused with
// 400 BAD_CURSOR before it is read. The key is the coordinator's (from its environment or Secrets
// Manager, docs/api.md), passed in with the plan options; without one, a random key per process
// (cursors then only work against the process that issued them: fine for the local stack, not for a
// fleet of coordinators).
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Expr } from '../sql/ast.js';
import { ScatterError } from '../errors.js';
import { fn, int, str, float, nul } from './ast-build.js';
import type { SortSpec } from './evaluator.js';
import { decimalScale, intInfo, isArrayType, isFloatType, stripNullable, tupleTypes } from './values.js';

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
  /** Per shard, the replica the earlier pages read (null: none, the shard was skipped or missing): pinned paging. */
  r?: (number | null)[];
}

export function queryShapeHash(text: string): string {
  return createHash('sha256').update(text).digest('base64url').slice(0, 16);
}

/** The key of a coordinator given none: fixed for the process's life. */
const PROCESS_KEY: Buffer = randomBytes(32);

/** A key cursors are signed and checked with (at least 16 bytes). Every coordinator of a deployment must share it. */
export function cursorKeyOf(key: string | Buffer): Buffer {
  const k = typeof key === 'string' ? Buffer.from(key, 'utf8') : key;
  if (k.length < 16) throw new ScatterError('CONFIG_INVALID', 'the cursor key must be at least 16 bytes');
  return Buffer.from(k);
}

const tagOf = (body: string, key: Buffer): Buffer => createHmac('sha256', key).update(body).digest();

const badCursor = (why: string) => new ScatterError('BAD_CURSOR', `invalid cursor: ${why}`);

export function encodeCursor(shape: string, keys: CursorKey[], dup = 1, key: Buffer = PROCESS_KEY): string {
  const doc: CursorDoc = { v: 1, q: shape, k: keys, d: dup };
  const body = Buffer.from(JSON.stringify(doc), 'utf8').toString('base64url');
  return `${body}.${tagOf(body, key).toString('base64url')}`;
}

export function decodeCursor(cursor: string, shape: string, n: number, key: Buffer = PROCESS_KEY): { keys: CursorKey[]; dup: number } {
  const doc = signedDoc(cursor, key);
  if (doc?.v !== 1 || !Array.isArray(doc.k) || doc.k.length !== n) throw badCursor('it does not fit this query');
  if (doc.q !== shape) throw new ScatterError('BAD_CURSOR', 'the cursor belongs to a different query');
  const dup = doc.d ?? 1;
  if (!Number.isSafeInteger(dup) || dup < 1 || dup > 1_000_000) throw badCursor('bad duplicate count');
  for (const k of doc.k) checkKey(k);
  return { keys: doc.k, dup };
}

/** The signed document of a cursor this coordinator issued, or BAD_CURSOR. */
function signedDoc(cursor: string, key: Buffer): CursorDoc {
  const dot = cursor.indexOf('.');
  if (dot < 0) throw badCursor('not a cursor this service issued');
  const body = cursor.slice(0, dot);
  const tag = Buffer.from(cursor.slice(dot + 1), 'base64url');
  const want = tagOf(body, key);
  if (tag.length !== want.length || !timingSafeEqual(tag, want)) throw badCursor('not a cursor this service issued, or altered');
  try {
    return JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as CursorDoc;
  } catch {
    throw badCursor('unreadable');
  }
}

/** The replica each shard's earlier pages read (pinned paging), or undefined when the cursor names none. */
export function cursorReplicas(cursor: string, key: Buffer = PROCESS_KEY): (number | null)[] | undefined {
  const r = signedDoc(cursor, key).r;
  if (r === undefined) return undefined;
  if (!Array.isArray(r) || !r.every((x) => x === null || (Number.isSafeInteger(x) && x >= 0))) throw badCursor('bad replicas');
  return r;
}

/** The cursor naming, per shard, the replica this page read: the next page reads the same ones while they are healthy. */
export function pinCursor(cursor: string, replicas: (number | null)[], key: Buffer = PROCESS_KEY): string {
  const doc: CursorDoc = { ...signedDoc(cursor, key), r: replicas };
  const body = Buffer.from(JSON.stringify(doc), 'utf8').toString('base64url');
  return `${body}.${tagOf(body, key).toString('base64url')}`;
}

/** Even a signed cursor's values are checked against their types before they become SQL literals. */
function checkKey(k: CursorKey): void {
  if (!k || typeof k.type !== 'string') throw badCursor('bad key');
  if (k.json === null) return;
  const base = stripNullable(k.type);
  if (intInfo(base) && !(typeof k.json === 'string' || typeof k.json === 'number')) throw badCursor('bad key');
  if (intInfo(base) && !/^-?\d{1,78}$/.test(String(k.json))) throw badCursor(`key ${JSON.stringify(k.json)} is not an integer`);
  if (isFloatType(base) && !(typeof k.json === 'number' || (typeof k.json === 'string' && (/^-?nan$/i.test(k.json) || !Number.isNaN(floatOf(k.json))))))
    throw badCursor('bad key');
}

/** A SQL literal for a value of ClickHouse type `t` given in JSON conventions. */
export function literalFor(json: unknown, t: string): Expr {
  const base = stripNullable(t);
  if (json === null) return nul();
  // Arrays and tuples element by element (a string literal would not compare with them).
  const el = isArrayType(base);
  if (el !== undefined && Array.isArray(json))
    return fn(
      'array',
      json.map((x) => literalFor(x, el)),
    );
  const tup = tupleTypes(base);
  if (tup && json !== null && typeof json === 'object') {
    const items = Array.isArray(json) ? json : Object.values(json);
    return fn(
      'tuple',
      items.map((x, i) => literalFor(x, tup[i] ?? 'String')),
    );
  }
  if (typeof json === 'object') throw badCursor('bad key');
  const info = intInfo(base);
  // Wider than 64 bits: typed, since ClickHouse reads a longer integer literal as a Float64.
  if (info && info.bits > 64) return fn(`to${base}`, [str(String(BigInt(String(json))))]);
  if (info) return int(BigInt(String(json)));
  // A DateTime with a time zone: the text is read in that zone (a bare string literal would be
  // read in the server's zone, and the next page would start at another instant).
  const dt = /^DateTime(?:64\((\d+)\s*,\s*'([^']+)'\)|\('([^']+)'\))$/.exec(base);
  if (dt && typeof json === 'string') {
    return dt[1] !== undefined ? fn('toDateTime64', [str(json), int(Number(dt[1])), str(dt[2]!)]) : fn('toDateTime', [str(json), str(dt[3]!)]);
  }
  // Decimals as CAST(text AS the column's type): 18.16 compares no Decimal with a String.
  if (decimalScale(base) !== undefined) return fn('CAST', [str(String(json)), str(base)]);
  if (isFloatType(base)) {
    const n = floatOf(json);
    // inf/-inf as toFloat64('inf'): no literal spelling reads alike on 18.16 and current versions.
    if (!Number.isFinite(n)) return fn(base === 'Float32' ? 'toFloat32' : 'toFloat64', [str(n > 0 ? 'inf' : '-inf')]);
    const lit = n < 0 ? fn('negate', [float(-n)]) : float(n);
    // A Float32 column compares with a Float32: its value is not the double its text reads as.
    return base === 'Float32' ? fn('toFloat32', [lit]) : lit;
  }
  return str(String(json));
}

/** A float key in the API's JSON spelling ("nan", "inf", "-inf" and "-0" are strings there). */
function floatOf(json: unknown): number {
  if (typeof json === 'number') return json;
  const s = String(json).toLowerCase();
  if (s === 'nan' || s === '-nan') return NaN;
  if (s === 'inf' || s === '+inf') return Infinity;
  if (s === '-inf') return -Infinity;
  return s.trim() === '' ? NaN : Number(s);
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
    // "After this row" is a comparison on the shards; for an Array or Tuple holding floats,
    // ClickHouse's < and its ORDER BY disagree on nan elements, so the next page could lose rows.
    if (/^(Array|Tuple|Map)\(/.test(stripNullable(k.type)) && /Float|Map\(/.test(k.type)) {
      throw new ScatterError(
        'UNSUPPORTED',
        `continuing after a ${k.type} value is not supported (nan elements compare unlike they sort); page by other columns`,
      );
    }
    // Floats: NaN sorts next to NULL (NULLS LAST: numbers, NaN, NULL; NULLS FIRST: NULL, NaN,
    // numbers) and equals nothing, so a NaN key and the rows after a number name it explicitly.
    const float = !isNull && isFloatType(stripNullable(k.type));
    const nanKey = float && Number.isNaN(floatOf(k.json));
    const cmp = () => fn(s.direction === 'DESC' ? 'less' : 'greater', [e, literalFor(k.json, k.type)]);
    let gt: Expr | undefined;
    if (s.nulls === 'FIRST') {
      if (isNull) gt = fn('isNotNull', [e]);
      else if (nanKey) gt = fn('and', [fn('not', [fn('isNaN', [e])]), fn('isNotNull', [e])]);
      else gt = cmp();
    } else if (isNull) gt = undefined;
    else if (nanKey) gt = fn('isNull', [e]);
    else gt = fn('or', float ? [cmp(), fn('isNaN', [e]), fn('isNull', [e])] : [cmp(), fn('isNull', [e])]);
    if (gt) ors.push(eqs.length ? fn('and', [...eqs, gt]) : gt);
    eqs.push(isNull ? fn('isNull', [e]) : nanKey ? fn('isNaN', [e]) : fn('equals', [e, literalFor(k.json, k.type)]));
  }
  if (inclusive) ors.push(eqs.length === 1 ? eqs[0]! : fn('and', eqs));
  if (ors.length === 0) return fn('equals', [int(0), int(1)]);
  return ors.length === 1 ? ors[0]! : fn('or', ors);
}
