// Bytes that are not UTF-8, carried in JavaScript strings ("surrogate escape", as Python's): every
// byte of an invalid sequence becomes a lone surrogate U+DC80..U+DCFF, which survives JSON (the
// shard -> coordinator hop) and maps back to the same bytes (`stringBytes`, used to order strings
// and to quote them into SQL). Valid UTF-8 never decodes to a lone surrogate, so the mapping is one
// to one. Below every other part of the core: the SQL lexer reads string literals with it.

/** UTF-8 bytes to text; every byte of an invalid sequence becomes U+DC80 + (byte - 0x80). */
export function decodeEscaped(b: Uint8Array): string {
  let out = '';
  let i = 0;
  while (i < b.length) {
    const c = b[i]!;
    const n = seqLength(b, i);
    if (n === 0) {
      out += String.fromCharCode(0xdc00 + c);
      i++;
      continue;
    }
    if (n === 1) out += String.fromCharCode(c);
    else out += Buffer.from(b.subarray(i, i + n)).toString('utf8');
    i += n;
  }
  return out;
}

/** Length of the valid UTF-8 sequence at b[i], or 0 when it is not one (RFC 3629 table). */
function seqLength(b: Uint8Array, i: number): number {
  const c = b[i]!;
  if (c < 0x80) return 1;
  const cont = (k: number, lo = 0x80, hi = 0xbf) => i + k < b.length && b[i + k]! >= lo && b[i + k]! <= hi;
  if (c >= 0xc2 && c <= 0xdf) return cont(1) ? 2 : 0;
  if (c === 0xe0) return cont(1, 0xa0) && cont(2) ? 3 : 0;
  if ((c >= 0xe1 && c <= 0xec) || c === 0xee || c === 0xef) return cont(1) && cont(2) ? 3 : 0;
  if (c === 0xed) return cont(1, 0x80, 0x9f) && cont(2) ? 3 : 0;
  if (c === 0xf0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (c >= 0xf1 && c <= 0xf3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (c === 0xf4) return cont(1, 0x80, 0x8f) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}

const ESCAPED = /[\uDC80-\uDCFF]/;
/** Whether `s` carries surrogate-escaped bytes (not valid UTF-8 at the source). */
export function hasEscapedBytes(s: string): boolean {
  return ESCAPED.test(s);
}

/** The bytes a string stands for: UTF-8, with surrogate escapes mapped back to their bytes. */
export function stringBytes(s: string): Uint8Array {
  if (!ESCAPED.test(s)) return Buffer.from(s, 'utf8');
  const out: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const prevHigh = i > 0 && s.charCodeAt(i - 1) >= 0xd800 && s.charCodeAt(i - 1) <= 0xdbff;
    if (c >= 0xdc80 && c <= 0xdcff && !prevHigh) {
      out.push(c - 0xdc00);
      continue;
    }
    const cp = s.codePointAt(i)!;
    const ch = String.fromCodePoint(cp);
    for (const b of Buffer.from(ch, 'utf8')) out.push(b);
    if (cp > 0xffff) i++;
  }
  return Uint8Array.from(out);
}

/**
 * What the JSON API answers for a string with bytes that are not UTF-8: each maximal run of them
 * as one U+FFFD, as current ClickHouse's JSON output does (its WriteBufferValidUTF8; 18.16 wrote
 * the raw bytes, which is not valid JSON text).
 */
export function displayString(s: string): string {
  if (!ESCAPED.test(s)) return s;
  let out = '';
  let inRun = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const prevHigh = i > 0 && s.charCodeAt(i - 1) >= 0xd800 && s.charCodeAt(i - 1) <= 0xdbff;
    if (c >= 0xdc80 && c <= 0xdcff && !prevHigh) {
      if (!inRun) out += '\uFFFD';
      inRun = true;
      continue;
    }
    inRun = false;
    out += s[i];
  }
  return out;
}
