// Reading a ClickHouse JSON body without losing a value (docs/architecture.md#the-value-model).
//
// Two things JSON.parse alone gets wrong:
// - Numbers it cannot hold: ClickHouse writes Decimals unquoted (18.16 has no
//   output_format_json_quote_decimals), so `1234567890123456789.0123456789` would become a double.
//   Every number token whose double does not print back as the same text is kept as a string of
//   that text (`quoteInexactNumbers`); the typed readers (shared/core/partials/values.ts) parse it exactly.
//   A number that stays a number therefore always prints back to ClickHouse's own digits.
// - Strings that are not UTF-8: a server that writes raw bytes (18.16) would have them decoded to
//   U+FFFD, and two group keys that differ only in those bytes would merge into one. Such a body is
//   decoded with every byte of an invalid sequence kept as a lone surrogate U+DC80..U+DCFF
//   (the surrogate escape of shared/core/surrogate-escape.ts), which survives JSON (the shard ->
//   coordinator hop) and maps back to the same bytes.
import { isUtf8 } from 'node:buffer';
import { decodeEscaped } from '../surrogate-escape.js';

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
