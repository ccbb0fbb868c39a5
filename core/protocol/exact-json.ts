// Reading a ClickHouse JSON body without losing a value (docs/architecture.md#the-value-model).
//
// Two things JSON.parse alone gets wrong:
// - Numbers it cannot hold: ClickHouse writes Decimals unquoted (18.16 has no
//   output_format_json_quote_decimals), so `1234567890123456789.0123456789` would become a double.
//   Every number token whose double does not print back as the same text is kept as a string of
//   that text (`quoteInexactNumbers`); the typed readers (core/partials/values.ts) parse it exactly.
//   A number that stays a number therefore always prints back to ClickHouse's own digits.
// - Strings that are not UTF-8: a server that writes raw bytes (18.16) would have them decoded to
//   U+FFFD, and two group keys that differ only in those bytes would merge into one. Such a body is
//   decoded with every byte of an invalid sequence kept as a lone surrogate U+DC80..U+DCFF
//   ("surrogate escape", as Python's), which survives JSON (the shard -> coordinator hop) and maps
//   back to the same bytes (`stringBytes`, used to order strings and to quote them into SQL).
//   Valid UTF-8 never decodes to a lone surrogate, so the mapping is one to one.
import { isUtf8 } from 'node:buffer';

const NUMBER_OR_STRING = /"(?:[^"\\]|\\.)*"|-?\d[\d.eE+-]*/g;

/**
 * JSON text with every number token that a double cannot spell back exactly turned into a string
 * of its digits. Measured on 1 MB bodies (docs/architecture.md#the-value-model): about as long again
 * as JSON.parse itself, so readers only call it when a column type needs it (`needsExactNumbers`).
 */
export function quoteInexactNumbers(text: string): string {
  return text.replace(NUMBER_OR_STRING, (m) => {
    if (m.charCodeAt(0) === 34) return m;
    return String(Number(m)) === m ? m : `"${m}"`;
  });
}

/**
 * A -0 value in the body: JSON.parse reads it, but JSON.stringify writes it back as 0, so on the
 * hop from the shard function to the coordinator (a JSON payload) it would become +0, a different
 * group key. Such a body goes through quoteInexactNumbers too, which keeps it as the text "-0".
 */
const NEGATIVE_ZERO = /[:[,]\s*-0(?![\d.eE])/;
export function hasNegativeZero(text: string): boolean {
  return NEGATIVE_ZERO.test(text);
}

/** Column types whose JSON numbers may not survive a double: Decimals, at any depth. */
export function needsExactNumbers(types: readonly string[]): boolean {
  return types.some((t) => t.includes('Decimal'));
}

/** The text of a ClickHouse JSON body, invalid UTF-8 kept byte for byte as surrogate escapes. */
export function decodeBody(body: Uint8Array): { text: string; escaped: boolean } {
  const buf = Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (isUtf8(buf)) return { text: buf.toString('utf8'), escaped: false };
  // JSON's own syntax is ASCII, so a byte-per-character reading parses the same; each string
  // value is then re-decoded from its bytes (escapeStringsDeep).
  return { text: buf.toString('latin1'), escaped: true };
}

/** A string read byte-per-character (latin1) back to text, invalid UTF-8 as surrogate escapes. */
export function fromLatin1Bytes(s: string): string {
  // eslint-style fast path: pure ASCII needs nothing.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the range is the point
  if (!/[^\x00-\x7f]/.test(s)) return s;
  const bytes: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c <= 0xff) bytes.push(c);
    else for (const b of Buffer.from(s[i]!, 'utf8')) bytes.push(b); // a \uXXXX escape ClickHouse wrote
  }
  return decodeEscaped(Uint8Array.from(bytes));
}

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

/** Every string inside a parsed value re-decoded from latin1 bytes (see decodeBody). */
export function escapeStringsDeep(v: unknown): unknown {
  if (typeof v === 'string') return fromLatin1Bytes(v);
  if (Array.isArray(v)) return v.map(escapeStringsDeep);
  if (v !== null && typeof v === 'object') {
    const o: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) o[fromLatin1Bytes(k)] = escapeStringsDeep(x);
    return o;
  }
  return v;
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
