// Values whose ClickHouse order is not the order of their JSON text: an Enum orders by its number,
// IPv4 as a 32-bit number, IPv6 by its 16 bytes. `orderKey` maps such a value to one that
// compareValues orders the ClickHouse way (and that is equal exactly when the values are), for the
// merges that compare: min/max, argMin/argMax, ORDER BY and its ties. Other values are themselves.
import { BoundedCache } from '../bounded-cache.js';
import { isArrayType, stripNullable, TYPE_CACHE_SIZE, tupleTypes, type Value } from './values.js';

type Keyer = (v: Value) => Value;
const keyers = new BoundedCache<string, Keyer | null>(TYPE_CACHE_SIZE);

export function orderKey(v: Value, t: string): Value {
  if (v === null) return v;
  let k = keyers.get(t);
  if (k === undefined) {
    k = keyerFor(stripNullable(t));
    keyers.set(t, k);
  }
  return k ? k(v) : v;
}

function keyerFor(base: string): Keyer | null {
  if (/^Enum(8|16)?\(/.test(base)) {
    const codes = enumCodes(base);
    return (v) => (typeof v === 'string' && codes.has(v) ? codes.get(v)! : v);
  }
  if (base === 'IPv4') return (v) => (typeof v === 'string' ? ipv4Number(v) : v);
  if (base === 'IPv6') return (v) => (typeof v === 'string' ? ipv6Hex(v) : v);
  const el = isArrayType(base);
  if (el !== undefined) {
    const inner = keyerFor(stripNullable(el));
    return inner ? (v) => (Array.isArray(v) ? v.map((x) => (x === null ? x : inner(x))) : v) : null;
  }
  const tup = tupleTypes(base);
  if (tup) {
    const inner = tup.map((x) => keyerFor(stripNullable(x)));
    if (inner.every((x) => x === null)) return null;
    return (v) => (Array.isArray(v) ? v.map((x, i) => (x === null || !inner[i] ? x : inner[i]!(x))) : v);
  }
  return null;
}

/** `'name' = code` pairs of an Enum type text. */
function enumCodes(t: string): Map<string, bigint> {
  const out = new Map<string, bigint>();
  const re = /'((?:[^'\\]|\\.)*)'\s*=\s*(-?\d+)/g;
  for (let m = re.exec(t); m; m = re.exec(t)) out.set(m[1]!.replace(/\\(.)/g, '$1'), BigInt(m[2]!));
  return out;
}

function ipv4Number(s: string): Value {
  const p = s.split('.').map(Number);
  if (p.length !== 4 || p.some((x) => !Number.isInteger(x) || x < 0 || x > 255)) return s;
  return BigInt(((p[0]! * 256 + p[1]!) * 256 + p[2]!) * 256 + p[3]!);
}

/** An IPv6 address as 32 lowercase hex digits (its bytes in order), or the text when unreadable. */
function ipv6Hex(s: string): Value {
  let text = s.toLowerCase();
  let tail: number[] = [];
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const n = ipv4Number(v4[1]!);
    if (typeof n !== 'bigint') return s;
    tail = [Number(n >> 16n), Number(n & 0xffffn)];
    text = text.slice(0, text.length - v4[1]!.length);
    if (text.endsWith(':') && !text.endsWith('::')) text = text.slice(0, -1);
  }
  const halves = text.split('::');
  if (halves.length > 2) return s;
  const groups = (h: string) => (h === '' ? [] : h.split(':').map((g) => Number.parseInt(g, 16)));
  const head = groups(halves[0]!);
  const rest = halves.length === 2 ? groups(halves[1]!) : [];
  const fill = 8 - head.length - rest.length - tail.length;
  if (fill < 0 || (halves.length === 1 && fill !== 0)) return s;
  const all = [...head, ...Array<number>(fill).fill(0), ...rest, ...tail];
  if (all.some((g) => !Number.isInteger(g) || g < 0 || g > 0xffff)) return s;
  return all.map((g) => g.toString(16).padStart(4, '0')).join('');
}
