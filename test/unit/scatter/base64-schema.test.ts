// The shard wire's base64 check: every buffer's base64 passes, anything Buffer.from would silently
// skip, or cut at an early '=', fails; what passes decodes without loss. Node's decoder is the
// reference: the check, which does not decode, agrees with comparing the decoded length.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { base64Bytes, base64Schema, isCanonicalBase64 } from '../../../shared/core/protocol/base64-schema.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

describe('canonical base64', () => {
  it('accepts the base64 of any bytes', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 300 }), (b) => isCanonicalBase64(Buffer.from(b).toString('base64'))));
  });

  it('refuses a character outside the alphabet anywhere, which Buffer.from would skip', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 60 }), fc.nat(), fc.constantFrom('!', ' ', '\n', '.', '*', 'é'), (b, at, bad) => {
        // ('=' is not among them: replacing the last data character by '=' can spell other bytes'
        // canonical base64, 'AAA=' -> 'AA=='; '=' inside the data is checked below.)
        const s = Buffer.from(b).toString('base64');
        const i = at % s.length;
        return !isCanonicalBase64(s.slice(0, i) + bad + s.slice(i + 1));
      }),
    );
  });

  it('refuses missing padding and an early =; lets through what decodes without loss', () => {
    expect(isCanonicalBase64('QQ==')).toBe(true);
    expect(isCanonicalBase64('QQ')).toBe(false);
    expect(isCanonicalBase64('QR==')).toBe(true); // unused bits set: still exactly 'A'
    expect(Buffer.from('QR==', 'base64').toString()).toBe('A');
    expect(isCanonicalBase64('-_-_')).toBe(true); // the URL-safe alphabet: decoded, not skipped
    expect(Buffer.from('-_-_', 'base64').equals(Buffer.from('+/+/', 'base64'))).toBe(true);
    expect(isCanonicalBase64('Q=Q=')).toBe(false); // '=' inside the data
    expect(isCanonicalBase64('QQ==QQ==')).toBe(false);
    expect(isCanonicalBase64('====')).toBe(false);
    expect(isCanonicalBase64('QUJD=QUJD')).toBe(false);
    expect(isCanonicalBase64('')).toBe(true);
    expect(isCanonicalBase64(`${ALPHABET}`)).toBe(true);
  });

  it('property: whatever passes decodes to exactly as many bytes as its length says, and base64Bytes gives them', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'ABCDab01+/-_=.! '.split('')), maxLength: 24 }), (s) => {
        if (!isCanonicalBase64(s)) return;
        const pad = s.endsWith('==') ? 2 : s.endsWith('=') ? 1 : 0;
        const bytes = base64Bytes(s);
        expect(bytes.length).toBe((s.length / 4) * 3 - pad);
        expect(bytes.equals(Buffer.from(s, 'base64'))).toBe(true);
      }),
    );
  });

  it('property: agrees with decoding and comparing the length (what Buffer.from skips or cuts, it refuses)', () => {
    const decodesWhole = (t: string) =>
      t.length % 4 === 0 && Buffer.from(t, 'base64').length === (t.length / 4) * 3 - (t.endsWith('==') ? 2 : t.endsWith('=') ? 1 : 0);
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'ABCDab01+/-_=.! \n\u00e9'.split('')), maxLength: 24 }), (s) => {
        expect(isCanonicalBase64(s)).toBe(decodesWhole(s));
      }),
    );
  });

  it('keeps nothing between a check and a decoding: each text decodes to its own bytes', () => {
    const text = Buffer.from('stage rows').toString('base64');
    expect(isCanonicalBase64(text)).toBe(true);
    expect(isCanonicalBase64(Buffer.from('other').toString('base64'))).toBe(true);
    expect(base64Bytes(text).toString()).toBe('stage rows');
    expect(base64Bytes(text).toString()).toBe('stage rows');
  });

  it('is the schema the shard wire uses: a failure names base64', () => {
    const r = base64Schema.safeParse('QQ=!');
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.message).toBe('base64');
  });
});
