// The coordinator's expression evaluator: SELECT expressions over merged aggregates and group
// keys (`sum(x) / count()`, `round(avg(v), 2)`, `if(...)`), HAVING and ORDER BY, with ClickHouse
// semantics for a documented set of functions. Integers are exact bigints with ClickHouse's
// result types (plus(UInt8, UInt8) is UInt16, minus is signed, divide is Float64) and wrap at
// their width; NULL propagates except through isNull/ifNull/coalesce/and/or/if.
// Anything else is not evaluated here: the split computes it on the shard when it depends on
// group keys only (see `COORDINATOR_FUNCTIONS`), or refuses it as UNSUPPORTED.
import type { Expr, FunctionCall, Literal } from '../sql/ast.js';
import { ScatterError } from '../errors.js';
import {
  compareValues,
  intInfo,
  isFloatType,
  isNullable,
  isIntType,
  stripNullable,
  toNumber,
  wrapInt,
  nullable,
  compareStrings,
  isNaNValue,
  decimalScale,
  type Value,
} from './values.js';

export interface Typed {
  v: Value;
  t: string;
}

const COMPARISONS = ['equals', 'notEquals', 'less', 'greater', 'lessOrEquals', 'greaterOrEquals'];

/** Can `e` be evaluated by the coordinator (given `bound` sub-expressions it already knows)? */
export function canEvaluate(e: Expr, isBound: (e: Expr) => boolean): boolean {
  if (isBound(e)) return true;
  switch (e.kind) {
    case 'literal':
      return true;
    case 'function':
      return COORDINATOR_FUNCTIONS.has(e.name) && !e.params && e.args.every((a) => canEvaluate(a, isBound));
    case 'tuple':
      return e.items.every((a) => canEvaluate(a, isBound));
    case 'case':
      return (
        (!e.operand || canEvaluate(e.operand, isBound)) &&
        e.whens.every((w) => canEvaluate(w.when, isBound) && canEvaluate(w.then, isBound)) &&
        (!e.else || canEvaluate(e.else, isBound))
      );
    default:
      return false;
  }
}

export function literalTyped(l: Literal): Typed {
  switch (l.type) {
    case 'null':
      return { v: null, t: 'Nullable(Nothing)' };
    case 'string':
      return { v: l.value, t: 'String' };
    case 'bool':
      return { v: /^true$/i.test(l.value) ? 1n : 0n, t: 'Bool' };
    case 'float':
      return { v: Number(l.value), t: 'Float64' };
    case 'integer': {
      const s = l.value.toLowerCase();
      let v: bigint;
      try {
        v = BigInt(s);
      } catch {
        return { v: Number(s), t: 'Float64' };
      }
      if (v < 0n) return { v, t: v >= -128n ? 'Int8' : v >= -32768n ? 'Int16' : v >= -2147483648n ? 'Int32' : 'Int64' };
      return { v, t: v <= 255n ? 'UInt8' : v <= 65535n ? 'UInt16' : v <= 4294967295n ? 'UInt32' : 'UInt64' };
    }
  }
}

function bits(t: string): number {
  return intInfo(t)?.bits ?? 64;
}
function signedT(t: string): boolean {
  return intInfo(t)?.signed ?? true;
}
const up = (b: number) => Math.min(64, b * 2);

/** The common type of branches (if/multiIf/least/greatest/coalesce). */
export function supertype(ts: string[]): string {
  const known = ts.filter((t) => t !== 'Nullable(Nothing)' && t !== 'Nothing');
  const anyNull = known.length !== ts.length || known.some(isNullable);
  const base = known.map(stripNullable);
  let out: string;
  if (base.length === 0) return 'Nullable(Nothing)';
  if (base.every((t) => t === base[0])) out = base[0]!;
  else if (base.every((t) => isIntType(t) || t === 'Bool')) {
    const infos = base.map((t) => intInfo(t) ?? { signed: false, bits: 8 });
    const maxBits = Math.max(...infos.map((i) => i.bits));
    if (infos.every((i) => !i.signed)) out = `UInt${maxBits}`;
    else if (infos.every((i) => i.signed)) out = `Int${maxBits}`;
    else {
      const maxU = Math.max(...infos.filter((i) => !i.signed).map((i) => i.bits));
      const maxS = Math.max(...infos.filter((i) => i.signed).map((i) => i.bits));
      out = `Int${maxU >= maxS ? up(maxU) : maxS}`;
    }
  } else if (base.every((t) => isIntType(t) || isFloatType(t) || t === 'Bool')) out = 'Float64';
  else if (base.every((t) => /^(String|FixedString|Date|DateTime)/.test(t))) out = base.find((t) => /^Date/.test(t)) ?? 'String';
  else out = base[0]!;
  return anyNull ? nullable(out) : out;
}

function truthy(v: Value): boolean {
  if (v === null) return false;
  if (typeof v === 'bigint') return v !== 0n;
  if (typeof v === 'number') return v !== 0; // NaN is true, as in ClickHouse
  if (typeof v === 'boolean') return v;
  return v !== '';
}
const u8 = (b: boolean): Typed => ({ v: b ? 1n : 0n, t: 'UInt8' });

function castTo(v: Value, t: string): Value {
  if (v === null) return null;
  if (isIntType(t)) {
    if (typeof v === 'number') return wrapInt(BigInt(Math.trunc(v)), t);
    if (typeof v === 'bigint') return wrapInt(v, t);
    if (typeof v === 'string') return wrapInt(BigInt(v), t);
  }
  if (isFloatType(t)) return toNumber(v);
  return v;
}

/** Round half to even at `digits` decimals, as ClickHouse's round() does for floats. */
function roundFloat(x: number, digits: number, mode: 'round' | 'floor' | 'ceil'): number {
  if (!Number.isFinite(x)) return x;
  const f = 10 ** Math.abs(digits);
  const scaled = digits >= 0 ? x * f : x / f;
  let r: number;
  if (mode === 'floor') r = Math.floor(scaled);
  else if (mode === 'ceil') r = Math.ceil(scaled);
  else {
    r = Math.round(scaled);
    if (Math.abs(scaled % 1) === 0.5 && r % 2 !== 0) r -= 1;
  }
  return digits >= 0 ? r / f : r * f;
}

export function evalError(msg: string, e?: Expr): ScatterError {
  const pos = e && 'pos' in e && e.pos ? { line: e.pos.line, column: e.pos.column } : undefined;
  return new ScatterError('UNSUPPORTED', msg, { position: pos });
}

/**
 * Evaluate `e`. `lookup` returns the value of a bound sub-expression (an aggregate, a group key,
 * a column pushed to the shard) or undefined to evaluate structurally.
 */
export function evaluate(e: Expr, lookup: (e: Expr) => Typed | undefined): Typed {
  const b = lookup(e);
  if (b) return b;

  switch (e.kind) {
    case 'literal':
      return literalTyped(e);
    case 'tuple': {
      const items = e.items.map((x) => evaluate(x, lookup));
      return { v: items.map((x) => x.v), t: `Tuple(${items.map((x) => x.t).join(', ')})` };
    }
    case 'case': {
      const args: Expr[] = [];
      for (const w of e.whens) args.push(e.operand ? { kind: 'function', name: 'equals', args: [e.operand, w.when] } : w.when, w.then);
      args.push(e.else ?? { kind: 'literal', type: 'null', value: '' });
      return evalCall({ kind: 'function', name: 'multiIf', args }, lookup);
    }
    case 'function':
      return evalCall(e, lookup);
    default:
      throw evalError(`cannot evaluate ${e.kind} on the coordinator`, e);
  }
}

function arith(name: string, a: Typed, b: Typed, e: FunctionCall): Typed {
  const ta = stripNullable(a.t);
  const tb = stripNullable(b.t);
  const nul = isNullable(a.t) || isNullable(b.t);
  // Only numbers: ClickHouse's arithmetic on dates and times has types of its own (DateTime - DateTime
  // is Int32 seconds, Date + n is a Date), which this evaluator does not model; the general path has them.
  const numeric = (t: string) => isIntType(t) || isFloatType(t) || t === 'Bool' || t === 'Nothing';
  if (!numeric(ta) || !numeric(tb)) throw evalError(`${name} over ${ta} and ${tb} is not evaluated on the coordinator`, e);
  const wrapT = (t: string) => (nul ? nullable(t) : t);
  if (a.v === null || b.v === null) {
    const t = name === 'divide' || isFloatType(ta) || isFloatType(tb) ? 'Float64' : 'Int64';
    return { v: null, t: nullable(t) };
  }
  const ints = (isIntType(ta) && isIntType(tb)) || ((ta === 'Bool' || tb === 'Bool') && !isFloatType(ta) && !isFloatType(tb));
  if (name === 'divide' || !ints) {
    const x = toNumber(a.v);
    const y = toNumber(b.v);
    let v: number;
    switch (name) {
      case 'plus':
        v = x + y;
        break;
      case 'minus':
        v = x - y;
        break;
      case 'multiply':
        v = x * y;
        break;
      case 'divide':
        v = x / y;
        break;
      case 'intDiv':
        if (y === 0) throw new ScatterError('BAD_REQUEST', 'Division by zero', {});
        v = Math.trunc(x / y);
        return { v: BigInt(v), t: wrapT('Int64') };
      case 'modulo':
        v = x % y;
        break;
      default:
        throw evalError(`operator ${name}`, e);
    }
    return { v, t: wrapT('Float64') };
  }
  const x = a.v as bigint;
  const y = b.v as bigint;
  const bm = Math.max(bits(ta), bits(tb));
  const anySigned = signedT(ta) || signedT(tb);
  let t: string;
  let v: bigint;
  switch (name) {
    case 'plus':
      t = `${anySigned ? 'Int' : 'UInt'}${up(bm)}`;
      v = x + y;
      break;
    case 'multiply':
      t = `${anySigned ? 'Int' : 'UInt'}${up(bm)}`;
      v = x * y;
      break;
    case 'minus':
      t = `Int${up(bm)}`;
      v = x - y;
      break;
    case 'intDiv':
      if (y === 0n) throw new ScatterError('BAD_REQUEST', 'Division by zero');
      t = `${anySigned ? 'Int' : 'UInt'}${bits(ta)}`;
      v = x / y;
      break;
    case 'modulo':
      if (y === 0n) throw new ScatterError('BAD_REQUEST', 'Division by zero');
      // ClickHouse: the divisor's width; signed when the dividend is (an unsigned divisor then doubles).
      if (signedT(ta)) t = `Int${signedT(tb) ? bits(tb) : up(bits(tb))}`;
      else t = signedT(tb) ? `Int${bits(tb)}` : `UInt${bits(tb)}`;
      v = x % y;
      break;
    default:
      throw evalError(`operator ${name}`, e);
  }
  return { v: wrapInt(v, t), t: wrapT(t) };
}

/** A Decimal (scaled bigint) as a double, for comparisons only. */
function undec(x: Typed): Typed {
  const sc = decimalScale(x.t);
  if (sc === undefined || x.v === null) return x;
  return { v: Number(x.v as bigint) / 10 ** sc, t: isNullable(x.t) ? 'Nullable(Float64)' : 'Float64' };
}

function cmp(name: string, a0: Typed, b0: Typed): Typed {
  const a = undec(a0);
  const b = undec(b0);
  const nul = isNullable(a.t) || isNullable(b.t);
  if (a.v === null || b.v === null) return { v: null, t: 'Nullable(UInt8)' };
  let r: boolean;
  if (isNaNValue(a.v) || isNaNValue(b.v)) r = name === 'notEquals';
  else {
    let c: number;
    if (typeof a.v === 'string' && typeof b.v !== 'string') c = compareValues(castStr(a.v, b), b.v);
    else if (typeof b.v === 'string' && typeof a.v !== 'string') c = compareValues(a.v, castStr(b.v, a));
    else c = typeof a.v === 'string' && typeof b.v === 'string' ? compareStrings(a.v, b.v) : compareValues(a.v, b.v);
    r =
      name === 'equals'
        ? c === 0
        : name === 'notEquals'
          ? c !== 0
          : name === 'less'
            ? c < 0
            : name === 'greater'
              ? c > 0
              : name === 'lessOrEquals'
                ? c <= 0
                : c >= 0;
  }
  return { v: r ? 1n : 0n, t: nul ? 'Nullable(UInt8)' : 'UInt8' };
}
function castStr(s: string, other: Typed): Value {
  // A string literal against a number (`k = '5'`) is converted to the number's type.
  if (isIntType(other.t)) return BigInt(s);
  if (isFloatType(other.t)) return Number(s);
  return s;
}

type Ev = (x: Expr) => Typed;
/** A function that evaluates its own arguments: short-circuits, and NULL handling of its own. */
type LazyFn = (e: FunctionCall, ev: Ev) => Typed;
/** A function over its evaluated arguments. */
type StrictFn = (args: Typed[], e: FunctionCall) => Typed;

function logical(e: FunctionCall, ev: Ev): Typed {
  const vals = e.args.map(ev);
  const isAnd = e.name === 'and';
  let sawNull = false;
  const nul = vals.some((x) => isNullable(x.t));
  for (const x of vals) {
    if (x.v === null) {
      sawNull = true;
      continue;
    }
    if (truthy(x.v) !== isAnd) return { v: isAnd ? 0n : 1n, t: nul ? 'Nullable(UInt8)' : 'UInt8' };
  }
  return sawNull ? { v: null, t: 'Nullable(UInt8)' } : { v: isAnd ? 1n : 0n, t: nul ? 'Nullable(UInt8)' : 'UInt8' };
}

function conditional(e: FunctionCall, ev: Ev): Typed {
  const args = e.args;
  const branches: Expr[] = [];
  for (let i = 1; i < args.length; i += 2) branches.push(args[i]!);
  if (e.name === 'if' || args.length % 2 === 1) branches.push(args[args.length - 1]!);
  const t = supertype(branches.map((x) => ev(x).t));
  for (let i = 0; i + 1 < args.length; i += 2) {
    const c = ev(args[i]!);
    if (c.v !== null && truthy(c.v)) return { v: castTo(ev(args[i + 1]!).v, stripNullable(t)), t };
  }
  return { v: castTo(ev(args[args.length - 1]!).v, stripNullable(t)), t };
}

function firstNonNull(e: FunctionCall, ev: Ev): Typed {
  const vals = e.args.map(ev);
  const last = vals[vals.length - 1]!;
  const st = supertype(vals.map((x) => x.t));
  const t = isNullable(last.t) ? st : stripNullable(st);
  for (const x of vals) if (x.v !== null) return { v: castTo(x.v, stripNullable(t)), t };
  return { v: null, t };
}

function membership(e: FunctionCall, ev: Ev): Typed {
  const x = ev(e.args[0]!);
  const rhs = e.args[1]!;
  const items = rhs.kind === 'tuple' ? rhs.items.map(ev) : [ev(rhs)];
  if (x.v === null) return { v: null, t: 'Nullable(UInt8)' };
  const found = items.some((it) => cmp('equals', x, it).v === 1n);
  return u8(e.name === 'in' ? found : !found);
}

// Maps, not plain objects: a function named `toString` or `constructor` must never find Object's.
const LAZY = new Map<string, LazyFn>(
  Object.entries({
    and: logical,
    or: logical,
    not: (e, ev) => {
      const x = ev(e.args[0]!);
      if (x.v === null) return { v: null, t: 'Nullable(UInt8)' };
      return { v: truthy(x.v) ? 0n : 1n, t: isNullable(x.t) ? 'Nullable(UInt8)' : 'UInt8' };
    },
    if: conditional,
    multiIf: conditional,
    isNull: (e, ev) => u8(ev(e.args[0]!).v === null),
    isNotNull: (e, ev) => u8(ev(e.args[0]!).v !== null),
    ifNull: firstNonNull,
    coalesce: firstNonNull,
    tuple: (e, ev) => {
      const items = e.args.map(ev);
      return { v: items.map((x) => x.v), t: `Tuple(${items.map((x) => x.t).join(', ')})` };
    },
    in: membership,
    notIn: membership,
  } satisfies Record<string, LazyFn>),
);

/** `t`, Nullable when any argument is. */
const nullIfAny = (args: Typed[], t: string): string => (args.some((x) => isNullable(x.t)) ? nullable(t) : t);

const arithmetic: StrictFn = (args, e) => {
  if (args.length !== 2) throw evalError(`${e.name} takes two arguments`, e);
  return arith(e.name, args[0]!, args[1]!, e);
};
const comparison: StrictFn = (args, e) => cmp(e.name, args[0]!, args[1]!);

const rounding: StrictFn = ([a, d], e) => {
  const digits = d ? Number(d.v) : 0;
  const t = stripNullable(a!.t);
  if (a!.v === null) return { v: null, t: a!.t };
  if (isIntType(t)) {
    if (digits >= 0) return a!;
    const f = 10n ** BigInt(-digits);
    const x = a!.v as bigint;
    let q = x / f;
    const r = x % f;
    if (e.name === 'floor' && r < 0n) q -= 1n;
    if (e.name === 'ceil' && r > 0n) q += 1n;
    if (e.name === 'round' && (r < 0n ? -r : r) * 2n >= f) q += x < 0n ? -1n : 1n;
    return { v: wrapInt(q * f, t), t: a!.t };
  }
  return { v: roundFloat(toNumber(a!.v), digits, e.name as 'round' | 'floor' | 'ceil'), t: a!.t };
};

const toInteger: StrictFn = (args, e) => {
  const a = args[0]!;
  const t = e.name.slice(2);
  if (typeof a.v === 'number' && !Number.isFinite(a.v)) throw evalError(`${e.name} of ${a.v}`, e);
  return { v: castTo(a.v, t), t: nullIfAny(args, t) };
};

const MATH: Record<string, (x: number) => number> = { sqrt: Math.sqrt, exp: Math.exp, log: Math.log, ln: Math.log, log2: Math.log2, log10: Math.log10 };
const math: StrictFn = (args, e) => ({ v: args[0]!.v === null ? null : MATH[e.name]!(toNumber(args[0]!.v)), t: nullIfAny(args, 'Float64') });
const power: StrictFn = (args) => ({
  v: args[0]!.v === null || args[1]!.v === null ? null : toNumber(args[0]!.v) ** toNumber(args[1]!.v),
  t: nullIfAny(args, 'Float64'),
});

const floatClass: StrictFn = (args, e) => {
  const a = args[0]!;
  if (a.v === null) return { v: null, t: 'Nullable(UInt8)' };
  const x = toNumber(a.v);
  const r = e.name === 'isNaN' ? Number.isNaN(x) : e.name === 'isFinite' ? Number.isFinite(x) : !Number.isFinite(x) && !Number.isNaN(x);
  return { v: r ? 1n : 0n, t: nullIfAny(args, 'UInt8') };
};

// ClickHouse's lower/upper change ASCII letters only (lowerUTF8/upperUTF8 do the rest).
const letterCase: StrictFn = (args, e) => {
  const a = args[0]!;
  if (a.v === null) return { v: null, t: nullIfAny(args, 'String') };
  if (typeof a.v !== 'string') throw evalError(`${e.name} of a non-string`, e);
  const v = e.name === 'lower' ? a.v.replace(/[A-Z]/g, (c) => c.toLowerCase()) : a.v.replace(/[a-z]/g, (c) => c.toUpperCase());
  return { v, t: nullIfAny(args, 'String') };
};

const extreme: StrictFn = (args, e) => {
  const t = supertype(args.map((x) => x.t));
  if (args.some((x) => x.v === null)) return { v: null, t: nullable(t) };
  let best = args[0]!.v;
  for (const x of args.slice(1)) {
    const c = compareValues(x.v, best);
    if (e.name === 'least' ? c < 0 : c > 0) best = x.v;
  }
  return { v: castTo(best, stripNullable(t)), t };
};

const STRICT = new Map<string, StrictFn>(
  Object.entries({
    ...Object.fromEntries(['plus', 'minus', 'multiply', 'divide', 'intDiv', 'modulo'].map((n) => [n, arithmetic])),
    ...Object.fromEntries(COMPARISONS.map((n) => [n, comparison])),
    negate: (args) => {
      const a = args[0]!;
      const t = stripNullable(a.t);
      if (isIntType(t)) {
        const rt = signedT(t) ? t : `Int${up(bits(t))}`;
        return { v: a.v === null ? null : wrapInt(-(a.v as bigint), rt), t: nullIfAny(args, rt) };
      }
      return { v: a.v === null ? null : -toNumber(a.v), t: nullIfAny(args, 'Float64') };
    },
    abs: (args) => {
      const a = args[0]!;
      const t = stripNullable(a.t);
      if (isIntType(t)) {
        const rt = `UInt${bits(t)}`;
        return { v: a.v === null ? null : wrapInt((a.v as bigint) < 0n ? -(a.v as bigint) : (a.v as bigint), rt), t: nullIfAny(args, rt) };
      }
      return { v: a.v === null ? null : Math.abs(toNumber(a.v)), t: nullIfAny(args, t) };
    },
    round: rounding,
    floor: rounding,
    ceil: rounding,
    toFloat64: (args) => ({ v: args[0]!.v === null ? null : toNumber(args[0]!.v), t: nullIfAny(args, 'Float64') }),
    ...Object.fromEntries(['toInt8', 'toInt16', 'toInt32', 'toInt64', 'toUInt8', 'toUInt16', 'toUInt32', 'toUInt64'].map((n) => [n, toInteger])),
    ...Object.fromEntries(Object.keys(MATH).map((n) => [n, math])),
    pow: power,
    power,
    isNaN: floatClass,
    isFinite: floatClass,
    isInfinite: floatClass,
    toString: ((args, e) => {
      // Integers and strings only: float text formatting differs between ClickHouse and JavaScript.
      const a = args[0]!;
      if (a.v === null) return { v: null, t: nullIfAny(args, 'String') };
      if (typeof a.v === 'bigint' || typeof a.v === 'string') return { v: String(a.v), t: nullIfAny(args, 'String') };
      throw evalError('toString of a non-integer value is not evaluated on the coordinator', e);
    }) as StrictFn,
    concat: (args, e) => {
      if (args.some((x) => x.v === null)) return { v: null, t: nullIfAny(args, 'String') };
      if (!args.every((x) => typeof x.v === 'string')) throw evalError('concat of non-strings is not evaluated on the coordinator', e);
      return { v: args.map((x) => x.v as string).join(''), t: nullIfAny(args, 'String') };
    },
    length: (args, e) => {
      const a = args[0]!;
      if (a.v === null) return { v: null, t: nullIfAny(args, 'UInt64') };
      if (typeof a.v === 'string') return { v: BigInt(Buffer.byteLength(a.v, 'utf8')), t: nullIfAny(args, 'UInt64') };
      if (Array.isArray(a.v)) return { v: BigInt(a.v.length), t: nullIfAny(args, 'UInt64') };
      throw evalError('length of this value', e);
    },
    lower: letterCase,
    upper: letterCase,
    least: extreme,
    greatest: extreme,
  } satisfies Record<string, StrictFn>),
);

/** Functions (and operators, by their function names) the coordinator evaluates: the two tables' names. */
export const COORDINATOR_FUNCTIONS: ReadonlySet<string> = new Set([...LAZY.keys(), ...STRICT.keys()]);

function evalCall(e: FunctionCall, lookup: (e: Expr) => Typed | undefined): Typed {
  if (!COORDINATOR_FUNCTIONS.has(e.name) || e.params) throw evalError(`function ${e.name} cannot be evaluated on the coordinator`, e);
  const ev = (x: Expr) => evaluate(x, lookup);
  const lazy = LAZY.get(e.name);
  if (lazy) return lazy(e, ev);
  const args = e.args.map(ev);
  // Decimal values are scaled bigints; only comparisons are evaluated on them here (arithmetic
  // would need ClickHouse's Decimal result types).
  if (!COMPARISONS.includes(e.name) && args.some((x) => decimalScale(x.t) !== undefined)) {
    throw evalError(`${e.name} over a Decimal value is not evaluated on the coordinator (compare it, or cast it to Float64 inside the aggregate)`, e);
  }
  // A bare NULL literal makes the whole call Nullable(Nothing), as in ClickHouse.
  if (args.some((x) => x.t === 'Nullable(Nothing)')) return { v: null, t: 'Nullable(Nothing)' };
  return STRICT.get(e.name)!(args, e);
}

export interface SortSpec {
  direction: 'ASC' | 'DESC';
  nulls?: 'FIRST' | 'LAST';
}

/**
 * ClickHouse's ORDER BY comparison of one key: by default (NULLS LAST, either direction) values
 * come first, then NaN, then NULL; with NULLS FIRST: NULL, then NaN, then values. The direction
 * reverses only the order among values.
 */
export function compareForSort(a: Value, b: Value, s: SortSpec): number {
  const rank = (v: Value) => (v === null ? 2 : isNaNValue(v) ? 1 : 0);
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return s.nulls === 'FIRST' ? rb - ra : ra - rb;
  if (ra !== 0) return 0;
  const c = compareValues(a, b);
  return s.direction === 'DESC' ? -c : c;
}
