// CityHash128 as ClickHouse computes the checksum of a compressed block: CityHash v1.0.2, the version
// ClickHouse vendors (contrib/cityhash102). Later CityHash versions changed the function (HashLen0to16,
// CityMurmur's seeding), and no maintained npm package has v1.0.2, so it is written out here, in 64-bit
// BigInt arithmetic wrapped to 64 bits after every operation, the way the C++ wraps its uint64s.
const M = (1n << 64n) - 1n;
const k0 = 0xc3a5c85c97cb3127n;
const k1 = 0xb492b66fbe98f273n;
const k2 = 0x9ae16a3b2f90404fn;
const k3 = 0xc949d7c7509e6557n;
const kMul = 0x9ddfea08eb382d69n;

const mul = (a: bigint, b: bigint) => (a * b) & M;
const add = (a: bigint, b: bigint) => (a + b) & M;
const sub = (a: bigint, b: bigint) => (a - b) & M;
const rot = (v: bigint, s: number) => (s === 0 ? v : ((v >> BigInt(s)) | (v << BigInt(64 - s))) & M);
const shiftMix = (v: bigint) => v ^ (v >> 47n);

function hash128to64(lo: bigint, hi: bigint): bigint {
  let a = mul(lo ^ hi, kMul);
  a ^= a >> 47n;
  let b = mul(hi ^ a, kMul);
  b ^= b >> 47n;
  return mul(b, kMul);
}

class Bytes {
  constructor(readonly view: DataView) {}
  f64(p: number): bigint {
    return this.view.getBigUint64(p, true);
  }
  f32(p: number): bigint {
    return BigInt(this.view.getUint32(p, true));
  }
  u8(p: number): bigint {
    return BigInt(this.view.getUint8(p));
  }
}

function hashLen0to16(b: Bytes, s: number, len: number): bigint {
  const n = BigInt(len);
  if (len > 8) {
    const a = b.f64(s);
    const c = b.f64(s + len - 8);
    return hash128to64(a, rot(add(c, n), len)) ^ c;
  }
  if (len >= 4) {
    const a = b.f32(s);
    return hash128to64(add(n, a << 3n), b.f32(s + len - 4));
  }
  if (len > 0) {
    const y = b.u8(s) + (b.u8(s + (len >> 1)) << 8n);
    const z = n + (b.u8(s + len - 1) << 2n);
    return mul(shiftMix(mul(y, k2) ^ mul(z, k3)), k2);
  }
  return k2;
}

function weak(w: bigint, x: bigint, y: bigint, z: bigint, a: bigint, b: bigint): [bigint, bigint] {
  a = add(a, w);
  b = rot(add(add(b, a), z), 21);
  const c = a;
  a = add(add(a, x), y);
  b = add(b, rot(a, 44));
  return [add(a, z), add(b, c)];
}
const weakAt = (b: Bytes, s: number, x: bigint, y: bigint) => weak(b.f64(s), b.f64(s + 8), b.f64(s + 16), b.f64(s + 24), x, y);

function cityMurmur(b: Bytes, s: number, len: number, seedLo: bigint, seedHi: bigint): [bigint, bigint] {
  let a = seedLo;
  let bb = seedHi;
  let c: bigint;
  let d: bigint;
  let l = len - 16;
  if (l <= 0) {
    a = mul(shiftMix(mul(a, k1)), k1);
    c = add(mul(bb, k1), hashLen0to16(b, s, len));
    d = shiftMix(add(a, len >= 8 ? b.f64(s) : c));
  } else {
    c = hash128to64(add(b.f64(s + len - 8), k1), a);
    d = hash128to64(add(bb, BigInt(len)), add(c, b.f64(s + len - 16)));
    a = add(a, d);
    do {
      a ^= mul(shiftMix(mul(b.f64(s), k1)), k1);
      a = mul(a, k1);
      bb ^= a;
      c ^= mul(shiftMix(mul(b.f64(s + 8), k1)), k1);
      c = mul(c, k1);
      d ^= c;
      s += 16;
      l -= 16;
    } while (l > 0);
  }
  a = hash128to64(a, c);
  bb = hash128to64(d, bb);
  return [a ^ bb, hash128to64(bb, a)];
}

function withSeed(b: Bytes, s: number, len: number, seedLo: bigint, seedHi: bigint): [bigint, bigint] {
  if (len < 128) return cityMurmur(b, s, len, seedLo, seedHi);
  let x = seedLo;
  let y = seedHi;
  let z = mul(BigInt(len), k1);
  const v: [bigint, bigint] = [0n, 0n];
  const w: [bigint, bigint] = [0n, 0n];
  v[0] = add(mul(rot(y ^ k1, 49), k1), b.f64(s));
  v[1] = add(mul(rot(v[0], 42), k1), b.f64(s + 8));
  w[0] = add(mul(rot(add(y, z), 35), k1), x);
  w[1] = mul(rot(add(x, b.f64(s + 88)), 53), k1);
  const round = () => {
    x = mul(rot(add(add(add(x, y), v[0]), b.f64(s + 16)), 37), k1);
    y = mul(rot(add(add(y, v[1]), b.f64(s + 48)), 42), k1);
    x ^= w[1];
    y ^= v[0];
    z = rot(z ^ w[0], 33);
    const nv = weakAt(b, s, mul(v[1], k1), add(x, w[0]));
    const nw = weakAt(b, s + 32, add(z, w[1]), y);
    v[0] = nv[0];
    v[1] = nv[1];
    w[0] = nw[0];
    w[1] = nw[1];
    [z, x] = [x, z];
    s += 64;
  };
  do {
    round();
    round();
    len -= 128;
  } while (len >= 128);
  y = add(y, add(mul(rot(w[0], 37), k0), z));
  x = add(x, mul(rot(add(v[0], z), 49), k0));
  for (let done = 0; done < len; ) {
    done += 32;
    y = add(mul(rot(sub(y, x), 42), k0), v[1]);
    w[0] = add(w[0], b.f64(s + len - done + 16));
    x = add(mul(rot(x, 49), k0), w[0]);
    w[0] = add(w[0], v[0]);
    const nv = weakAt(b, s + len - done, v[0], v[1]);
    v[0] = nv[0];
    v[1] = nv[1];
  }
  x = hash128to64(x, v[0]);
  y = hash128to64(y, w[0]);
  return [add(hash128to64(add(x, v[1]), w[1]), y), hash128to64(add(x, w[1]), add(y, v[1]))];
}

/** CityHash128 v1.0.2 of `data`: [low 64 bits, high 64 bits] (ClickHouse writes low, then high, little-endian). */
export function cityHash128(data: Uint8Array): [bigint, bigint] {
  const b = new Bytes(new DataView(data.buffer, data.byteOffset, data.byteLength));
  const len = data.byteLength;
  if (len >= 16) return withSeed(b, 16, len - 16, b.f64(0) ^ k3, b.f64(8));
  if (len >= 8) return withSeed(b, 0, 0, b.f64(0) ^ mul(BigInt(len), k0), b.f64(len - 8) ^ k1);
  return withSeed(b, 0, len, k0, k1);
}

/** The 16 checksum bytes ClickHouse writes before a compressed block. */
export function cityHash128Bytes(data: Uint8Array): Buffer {
  const [lo, hi] = cityHash128(data);
  const out = Buffer.alloc(16);
  out.writeBigUInt64LE(lo, 0);
  out.writeBigUInt64LE(hi, 8);
  return out;
}
