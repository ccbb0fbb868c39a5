// Turning an IN-list / `=` operand into a sharding-key value, the way ClickHouse's
// OptimizeShardingKeyRewriteInVisitor does it: convert the literal to the key's declared type
// first, then place it. Outcomes besides a value:
//  - NOWHERE: the literal converts but no row can hold it (256 for a UInt8 key, 1.5 for an
//    integer key). ClickHouse drops such set elements; against `=` it is no condition (skip-shards.ts).
//  - UNKNOWN: not a constant (NULL, a column, a subquery): no narrowing.
//  - UNEVALUATED: a constant call ClickHouse's analyzer folds (`key = toInt32(xxHash32(0))`, an IN
//    element `1 + 1`): its value is one engine's to give (key-constants.ts, read in key-context.ts).
//  - TYPE_MISMATCH (thrown): the literal cannot be converted at all ('255foo' for an integer key),
//    as ClickHouse's 01756 test expects (serverError 53).
// An IN set on a String key holds each integer as its decimal text (`key IN (0, 2)` is '0', '2'),
// as ClickHouse builds the set; `key = 0` instead compares as numbers, so it stays a mismatch.
import type { Expr } from '../sql/ast.js';
import { coerceKeyValue, intRange, keyTypeInfo, type KeyValue } from '../sharding/index.js';
import { isScatterError } from '../errors.js';
import { INTEGER_TYPE, unwrapType } from '../clickhouse/type-wrappers.js';
import { errorAt } from './position.js';
import { isConstantOperand } from './constant-operand.js';

export const NOWHERE = Symbol('nowhere');
export const UNKNOWN = Symbol('unknown');
export const UNEVALUATED = Symbol('unevaluated');
export type KeyLiteral = KeyValue | typeof NOWHERE | typeof UNKNOWN | typeof UNEVALUATED;

/** The literal's numeric text with a folded unary minus, or undefined if `e` is not a plain literal. */
function literalOf(e: Expr): { type: 'integer' | 'float' | 'string' | 'null' | 'bool'; value: string } | undefined {
  if (e.kind === 'literal') return { type: e.type, value: e.value };
  // CAST(5, 'UInt64') or CAST('s-1', 'String'): a constant whose value is the literal's own (a bound
  // query parameter has this shape). ClickHouse folds such constants before it prunes shards too.
  if (e.kind === 'cast' && e.expr.kind === 'literal' && !e.expr.alias) {
    const t = unwrapType(e.type).inner;
    if ((e.expr.type === 'integer' && INTEGER_TYPE.test(t)) || (e.expr.type === 'string' && t === 'String')) return { type: e.expr.type, value: e.expr.value };
  }
  // `-5` may arrive as negate(5) when the parser does not fold it.
  if (e.kind === 'function' && e.name === 'negate' && e.args.length === 1 && !e.alias) {
    const inner = e.args[0]!;
    if (inner.kind === 'literal' && (inner.type === 'integer' || inner.type === 'float')) {
      const v = inner.value.startsWith('-') ? inner.value.slice(1) : '-' + inner.value;
      return { type: inner.type, value: v };
    }
  }
  return undefined;
}

/** Integer text in any ClickHouse spelling (decimal, 0x.., 0b.., with sign) as a bigint. */
function parseIntegerText(text: string): bigint | undefined {
  const m = /^([+-]?)(0x[0-9a-f]+|0b[01]+|\d+)$/i.exec(text.trim());
  if (!m) return undefined;
  const n = BigInt(m[2]!);
  return m[1] === '-' ? -n : n;
}

/** A float literal's value when it is a whole number (1e3, 2.0), else undefined. */
function wholeFloat(text: string): bigint | undefined {
  const f = Number(text);
  if (!Number.isFinite(f) || !Number.isInteger(f)) return undefined;
  // Beyond 2^53 a float literal's integer value is itself rounded; BigInt(f) is what ClickHouse's
  // Float64 -> integer conversion would see.
  return BigInt(f);
}

/** A non-string IN element for a String key, as ClickHouse's set holds it (checked against chdb 26.7). */
function stringSetElement(lit: { type: string; value: string }): KeyLiteral {
  if (lit.type === 'bool') return lit.value.toLowerCase() === 'true' ? '1' : '0';
  const n = lit.type === 'integer' ? parseIntegerText(lit.value) : undefined;
  // A float's text in the set is not the literal's (2.0 does not match '2'), and past 64 bits an
  // integer literal is a float: not narrowed.
  return n === undefined || n < -(2n ** 63n) || n >= 2n ** 64n ? UNKNOWN : String(n);
}

function mismatchError(e: Expr, lit: { type: string; value: string }, keyType: string, keyName: string, why: string) {
  return errorAt(
    'TYPE_MISMATCH',
    `cannot compare sharding key ${keyName} (${keyType}) with ${lit.type === 'string' ? `'${lit.value}'` : lit.value}: ${why}`,
    e,
  );
}

/** Convert one operand to the key type; `inSet`: an IN-list element. `keyName` is for messages. */
export function keyLiteral(e: Expr, keyType: string, keyName: string, inSet = false): KeyLiteral {
  const lit = literalOf(e);
  if (!lit) return e.kind !== 'literal' && isConstantOperand(e) ? UNEVALUATED : UNKNOWN;
  if (lit.type === 'null') return UNKNOWN;
  const info = keyTypeInfo(keyType);
  // Hot path (once per IN-list value): no closures; String keys with string literals first.
  if (info.kind === 'string' && lit.type === 'string') return lit.value;
  if (info.kind === 'string' && inSet) return stringSetElement(lit);

  if (info.kind === 'int') {
    let n: bigint | undefined;
    if (lit.type === 'integer') n = parseIntegerText(lit.value);
    else if (lit.type === 'bool') n = lit.value.toLowerCase() === 'true' ? 1n : 0n;
    else if (lit.type === 'float') {
      n = wholeFloat(lit.value);
      if (n === undefined) {
        if (Number.isNaN(Number(lit.value)) && !/^[+-]?(nan|inf)/i.test(lit.value)) throw mismatchError(e, lit, keyType, keyName, 'not a number');
        return NOWHERE; // 1.5, inf, nan: no integer equals it
      }
    } else {
      // ClickHouse parses a string as the key's integer type ('255' is fine, '255foo' is not).
      n = parseIntegerText(lit.value);
      if (n === undefined || !/^[+-]?\d+$/.test(lit.value.trim())) throw mismatchError(e, lit, keyType, keyName, 'not an integer');
    }
    if (n === undefined) throw mismatchError(e, lit, keyType, keyName, 'not an integer');
    const [lo, hi] = intRange(info.bits, info.signed);
    if (n < lo || n > hi) return NOWHERE; // out of the type's range: matches no row anywhere
    return n;
  }

  // String-like, Date, DateTime, UUID keys: the literal must be a string (or, for Date/DateTime,
  // a number of days/seconds), converted by the same coercion the router uses.
  let raw: unknown;
  if (lit.type === 'string') raw = lit.value;
  else if ((info.kind === 'date' || info.kind === 'dateTime') && lit.type === 'integer') {
    const n = parseIntegerText(lit.value);
    raw = n === undefined ? lit.value : n;
  } else throw mismatchError(e, lit, keyType, keyName, `a ${lit.type} literal does not convert to ${keyType}`);
  try {
    return coerceKeyValue(raw, keyType);
  } catch (err) {
    if (isScatterError(err) && err.code === 'TYPE_MISMATCH') throw mismatchError(e, lit, keyType, keyName, err.message);
    throw err;
  }
}
