// Bytes of ClickHouse's Native wire written by hand in tests, independent of the code under test:
// VarUInt (LEB128) and a length-prefixed string.
export const varuint = (n: number): Buffer => {
  const out: number[] = [];
  do {
    let x = n % 128;
    n = Math.floor(n / 128);
    if (n) x |= 0x80;
    out.push(x);
  } while (n);
  return Buffer.from(out);
};

export const strBin = (s: string): Buffer => Buffer.concat([varuint(Buffer.byteLength(s)), Buffer.from(s)]);
