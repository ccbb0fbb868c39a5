// CityHash128 as ClickHouse computes the checksum of a compressed block: CityHash v1.0.2, the version
// ClickHouse vendors (contrib/cityhash102). Later CityHash versions changed the function (HashLen0to16,
// CityMurmur's seeding), and no maintained npm package has v1.0.2, so it is written out here. The
// uint64 arithmetic runs on pairs of uint32 numbers ([high, low]): about 3.5 times BigInt's speed.

/** A uint64 as [high 32 bits, low 32 bits]. */
type U = [number, number];
const k0: U = [0xc3a5c85c, 0x97cb3127];
const k1: U = [0xb492b66f, 0xbe98f273];
const k2: U = [0x9ae16a3b, 0x2f90404f];
const k3: U = [0xc949d7c7, 0x509e6557];
const kMul: U = [0x9ddfea08, 0xeb382d69];

function add(a: U, b: U): U {
  const lo = a[1] + b[1];
  return [(a[0] + b[0] + (lo > 0xffffffff ? 1 : 0)) >>> 0, lo >>> 0];
}
function sub(a: U, b: U): U {
  const lo = a[1] - b[1];
  return [(a[0] - b[0] - (lo < 0 ? 1 : 0)) >>> 0, lo >>> 0];
}
function xor(a: U, b: U): U {
  return [(a[0] ^ b[0]) >>> 0, (a[1] ^ b[1]) >>> 0];
}
function mul(a: U, b: U): U {
  const al = a[1],
    bl = b[1];
  const a0 = al & 0xffff,
    a1 = al >>> 16,
    b0 = bl & 0xffff,
    b1 = bl >>> 16;
  const mid = a0 * b1 + a1 * b0;
  const low = a0 * b0 + (mid % 65536) * 65536;
  const hiOfLow = a1 * b1 + Math.floor(mid / 65536) + Math.floor(low / 4294967296);
  return [(hiOfLow + Math.imul(a[0], bl) + Math.imul(al, b[0])) >>> 0, low >>> 0];
}
function rot(v: U, s: number): U {
  if (s === 0) return v;
  if (s === 32) return [v[1], v[0]];
  if (s < 32) return [((v[0] >>> s) | (v[1] << (32 - s))) >>> 0, ((v[1] >>> s) | (v[0] << (32 - s))) >>> 0];
  const t = s - 32;
  return [((v[1] >>> t) | (v[0] << (32 - t))) >>> 0, ((v[0] >>> t) | (v[1] << (32 - t))) >>> 0];
}
/** v >> 47 */
function shr47(v: U): U {
  return [0, v[0] >>> 15];
}
const shiftMix = (v: U): U => xor(v, shr47(v));
const num = (n: number): U => [Math.floor(n / 4294967296) >>> 0, n >>> 0];

function hash128to64(lo: U, hi: U): U {
  let a = mul(xor(lo, hi), kMul);
  a = xor(a, shr47(a));
  let b = mul(xor(hi, a), kMul);
  b = xor(b, shr47(b));
  return mul(b, kMul);
}

/** CityHash128 v1.0.2 of `data` as [low 64 bits, high 64 bits], each a [high 32, low 32] pair. */
function hash(data: Uint8Array): [U, U] {
  const dv = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const f64 = (p: number): U => [dv.getUint32(p + 4, true), dv.getUint32(p, true)];
  const f32 = (p: number): U => [0, dv.getUint32(p, true)];
  const u8 = (p: number) => dv.getUint8(p);

  const hashLen0to16 = (s: number, len: number): U => {
    if (len > 8) {
      const a = f64(s);
      const c = f64(s + len - 8);
      return xor(hash128to64(a, rot(add(c, num(len)), len)), c);
    }
    if (len >= 4) {
      const a = f32(s);
      return hash128to64(add(num(len), [((a[0] << 3) | (a[1] >>> 29)) >>> 0, (a[1] << 3) >>> 0]), f32(s + len - 4));
    }
    if (len > 0) {
      const y = num(u8(s) + (u8(s + (len >> 1)) << 8));
      const z = num(len + (u8(s + len - 1) << 2));
      return mul(shiftMix(xor(mul(y, k2), mul(z, k3))), k2);
    }
    return k2;
  };
  const weak = (w: U, x: U, y: U, z: U, a: U, b: U): [U, U] => {
    a = add(a, w);
    b = rot(add(add(b, a), z), 21);
    const c = a;
    a = add(add(a, x), y);
    b = add(b, rot(a, 44));
    return [add(a, z), add(b, c)];
  };
  const weakAt = (s: number, x: U, y: U) => weak(f64(s), f64(s + 8), f64(s + 16), f64(s + 24), x, y);
  const cityMurmur = (s: number, len: number, seedLo: U, seedHi: U): [U, U] => {
    let a = seedLo,
      b = seedHi,
      c: U,
      d: U;
    let l = len - 16;
    if (l <= 0) {
      a = mul(shiftMix(mul(a, k1)), k1);
      c = add(mul(b, k1), hashLen0to16(s, len));
      d = shiftMix(add(a, len >= 8 ? f64(s) : c));
    } else {
      c = hash128to64(add(f64(s + len - 8), k1), a);
      d = hash128to64(add(b, num(len)), add(c, f64(s + len - 16)));
      a = add(a, d);
      do {
        a = xor(a, mul(shiftMix(mul(f64(s), k1)), k1));
        a = mul(a, k1);
        b = xor(b, a);
        c = xor(c, mul(shiftMix(mul(f64(s + 8), k1)), k1));
        c = mul(c, k1);
        d = xor(d, c);
        s += 16;
        l -= 16;
      } while (l > 0);
    }
    a = hash128to64(a, c);
    b = hash128to64(d, b);
    return [xor(a, b), hash128to64(b, a)];
  };
  const withSeed = (s: number, len: number, seedLo: U, seedHi: U): [U, U] => {
    if (len < 128) return cityMurmur(s, len, seedLo, seedHi);
    let x = seedLo,
      y = seedHi,
      z = mul(num(len), k1);
    let v0 = add(mul(rot(xor(y, k1), 49), k1), f64(s));
    let v1 = add(mul(rot(v0, 42), k1), f64(s + 8));
    let w0 = add(mul(rot(add(y, z), 35), k1), x);
    let w1 = mul(rot(add(x, f64(s + 88)), 53), k1);
    const round = () => {
      x = mul(rot(add(add(add(x, y), v0), f64(s + 16)), 37), k1);
      y = mul(rot(add(add(y, v1), f64(s + 48)), 42), k1);
      x = xor(x, w1);
      y = xor(y, v0);
      z = rot(xor(z, w0), 33);
      const nv = weakAt(s, mul(v1, k1), add(x, w0));
      const nw = weakAt(s + 32, add(z, w1), y);
      v0 = nv[0];
      v1 = nv[1];
      w0 = nw[0];
      w1 = nw[1];
      const t = z;
      z = x;
      x = t;
      s += 64;
    };
    do {
      round();
      round();
      len -= 128;
    } while (len >= 128);
    y = add(y, add(mul(rot(w0, 37), k0), z));
    x = add(x, mul(rot(add(v0, z), 49), k0));
    for (let done = 0; done < len; ) {
      done += 32;
      y = add(mul(rot(sub(y, x), 42), k0), v1);
      w0 = add(w0, f64(s + len - done + 16));
      x = add(mul(rot(x, 49), k0), w0);
      w0 = add(w0, v0);
      const nv = weakAt(s + len - done, v0, v1);
      v0 = nv[0];
      v1 = nv[1];
    }
    x = hash128to64(x, v0);
    y = hash128to64(y, w0);
    return [add(hash128to64(add(x, v1), w1), y), hash128to64(add(x, w1), add(y, v1))];
  };
  const len = data.byteLength;
  const r =
    len >= 16
      ? withSeed(16, len - 16, xor(f64(0), k3), f64(8))
      : len >= 8
        ? withSeed(0, 0, xor(f64(0), mul(num(len), k0)), xor(f64(len - 8), k1))
        : withSeed(0, len, k0, k1);
  return r;
}

/** CityHash128 v1.0.2 of `data`: [low 64 bits, high 64 bits] (ClickHouse writes low, then high, little-endian). */
export function cityHash128(data: Uint8Array): [bigint, bigint] {
  const big = (u: U) => (BigInt(u[0]) << 32n) | BigInt(u[1]);
  const [lo, hi] = hash(data);
  return [big(lo), big(hi)];
}

/** The 16 checksum bytes ClickHouse writes before a compressed block. */
export function cityHash128Bytes(data: Uint8Array): Buffer {
  const [lo, hi] = hash(data);
  const out = Buffer.alloc(16);
  out.writeUInt32LE(lo[1], 0);
  out.writeUInt32LE(lo[0], 4);
  out.writeUInt32LE(hi[1], 8);
  out.writeUInt32LE(hi[0], 12);
  return out;
}
