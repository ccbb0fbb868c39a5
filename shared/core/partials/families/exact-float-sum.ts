// Exact, order-independent summation of float partials in O(1) state per group (instead of
// keeping every shard's value to add them in shard order at finalize: ~147 B per group per shard).
//
// Every finite double is m * 2^e with integer m (< 2^53) and e >= -1074, so a sum of doubles is
// exactly big * 2^exp for a BigInt `big`: adding is integer addition (associative and commutative),
// so the state after any arrival order is the same number, and value() rounds that exact sum once
// to the nearest double (ties to even). The result is therefore bit-identical for every order and
// at least as accurate as any order of plain float addition. `big` only grows as wide as the span
// of exponents seen (tens of bits for data of one magnitude; at most ~2,100 bits).
// Caveats, both outside what sequential addition does better: a finite exact sum whose plain
// addition would overflow stays finite here; a result below 2^-1022 (subnormal) may be rounded
// twice. Infinities and NaN follow IEEE: NaN if any NaN or both infinities, else the infinity.

const view = new DataView(new ArrayBuffer(8));

export class ExactFloatSum {
  private big = 0n;
  private exp = 0; // value = big * 2^exp (exp is meaningless while big is 0n)
  private special = 0; // 1: +Infinity seen, 2: -Infinity seen, 4: NaN seen

  add(x: number): void {
    if (x === 0) return;
    if (!Number.isFinite(x)) {
      this.special |= Number.isNaN(x) ? 4 : x > 0 ? 1 : 2;
      return;
    }
    view.setFloat64(0, x);
    const hi = view.getUint32(0);
    let lo = view.getUint32(4);
    const biased = (hi >>> 20) & 0x7ff;
    let top = hi & 0xfffff;
    if (biased !== 0) top += 0x100000; // the implicit leading 1 of normal numbers
    let e = (biased === 0 ? 1 : biased) - 1075;
    // Drop trailing zero bits so `big` stays as narrow as the data needs.
    if (lo === 0) {
      lo = top;
      top = 0;
      e += 32;
    }
    const tz = 31 - Math.clz32(lo & -lo);
    if (tz > 0) {
      lo = ((lo >>> tz) | (top << (32 - tz))) >>> 0;
      top >>>= tz;
      e += tz;
    }
    let m = top === 0 ? BigInt(lo) : BigInt(top * 4294967296 + lo);
    if (x < 0) m = -m;
    if (this.big === 0n) {
      this.big = m;
      this.exp = e;
    } else if (e >= this.exp) {
      this.big += e === this.exp ? m : m << BigInt(e - this.exp);
    } else {
      this.big = (this.big << BigInt(this.exp - e)) + m;
      this.exp = e;
    }
  }

  /** Fold another accumulator in (same result as adding its values one by one). */
  addSum(o: ExactFloatSum): void {
    this.special |= o.special;
    if (o.big === 0n) return;
    if (this.big === 0n) {
      this.big = o.big;
      this.exp = o.exp;
    } else if (o.exp >= this.exp) this.big += o.big << BigInt(o.exp - this.exp);
    else {
      this.big = (this.big << BigInt(this.exp - o.exp)) + o.big;
      this.exp = o.exp;
    }
  }

  /**
   * Doubles whose exact sum is this sum (a single ±Infinity or NaN when one was seen): what a
   * pre-merging sub-coordinator sends instead of a rounded value, so adding the terms at the root
   * gives the same bits as adding every shard's value there. Usually one or two terms: 53-bit
   * slices of `big`, each exactly representable. An exact sum of 2^1024 or more (beyond every
   * finite double, yet finite here) first sheds copies of 2^1023, at most two per value added.
   */
  terms(): number[] {
    if (this.special) return [this.value()];
    if (this.big === 0n) return [0];
    const neg = this.big < 0n;
    let a = neg ? -this.big : this.big;
    let e = this.exp;
    const sign = neg ? -1 : 1;
    const out: number[] = [];
    // e <= 1023 (the lowest set bit of any finite double), so both are integers in units of 2^e.
    const beyond = 1n << BigInt(1024 - e);
    const half = 1n << BigInt(1023 - e);
    while (a >= beyond) {
      out.push(sign * 2 ** 1023);
      a -= half;
    }
    const mask = (1n << 53n) - 1n;
    while (a > 0n) {
      const chunk = a & mask;
      // chunk < 2^53 and e >= -1074: chunk * 2^e is a double (normal or subnormal), so exact.
      if (chunk !== 0n) out.push(sign * Number(chunk) * 2 ** e);
      a >>= 53n;
      e += 53;
    }
    return out.reverse();
  }

  /** The exact sum rounded once to the nearest double. */
  value(): number {
    if (this.special & 4 || (this.special & 3) === 3) return NaN;
    if (this.special & 1) return Infinity;
    if (this.special & 2) return -Infinity;
    if (this.big === 0n) return 0;
    const neg = this.big < 0n;
    let a = neg ? -this.big : this.big;
    let e = this.exp;
    const len = a.toString(2).length;
    if (len > 64) {
      // Keep 64 bits plus a sticky bit for everything dropped: Number() then rounds exactly as
      // rounding the full value would (the dropped bits lie below the round bit).
      const s = BigInt(len - 64);
      const sticky = (a & ((1n << s) - 1n)) !== 0n;
      a = (a >> s) | (sticky ? 1n : 0n);
      e += len - 64;
    }
    let v = Number(a); // BigInt -> Number is correctly rounded (ties to even)
    while (e > 1000 && Number.isFinite(v)) {
      v *= 2 ** 1000;
      e -= 1000;
    }
    while (e < -1000 && v !== 0) {
      v *= 2 ** -1000;
      e += 1000;
    }
    v *= 2 ** e;
    return neg ? -v : v;
  }
}

/**
 * Add one float partial of sum() or avg() to `sum` (created on first use): a shard's own sum, or a
 * sub-coordinator's pre-merged sum as the terms of its exact value (tree-premerge.ts).
 */
export function addFloatPartial(sum: ExactFloatSum | undefined, v: unknown): ExactFloatSum {
  const s = sum ?? new ExactFloatSum();
  if (Array.isArray(v)) for (const x of v) s.add(Number(x));
  else s.add(Number(v));
  return s;
}
