// The shard wire's base64 check: every buffer's base64 passes, anything Buffer.from would silently
// skip or pad differently fails (checked against the definition: the alphabet, length a multiple of 4,
// padding only at the end, and the unused bits of the last group zero).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { base64Schema, isCanonicalBase64 } from '../../../core/protocol/base64-schema.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

describe('canonical base64', () => {
  it('accepts the base64 of any bytes', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 300 }), (b) => isCanonicalBase64(Buffer.from(b).toString('base64'))));
  });

  it('refuses a character outside the alphabet anywhere, which Buffer.from would skip', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 60 }), fc.nat(), fc.constantFrom('!', ' ', '\n', '-', '_', 'é'), (b, at, bad) => {
        // ('=' is not among them: replacing the last data character by '=' can spell other bytes'
        // canonical base64, 'AAA=' -> 'AA=='; '=' inside the data is checked below.)
        const s = Buffer.from(b).toString('base64');
        const i = at % s.length;
        return !isCanonicalBase64(s.slice(0, i) + bad + s.slice(i + 1));
      }),
    );
  });

  it('refuses missing padding and non-zero unused bits', () => {
    expect(isCanonicalBase64('QQ==')).toBe(true);
    expect(isCanonicalBase64('QQ')).toBe(false);
    expect(isCanonicalBase64('QR==')).toBe(false); // decodes to 'A' too, but is not how it is written
    expect(isCanonicalBase64('Q=Q=')).toBe(false); // '=' inside the data
    expect(isCanonicalBase64('QUJD=QUJD')).toBe(false);
    expect(isCanonicalBase64('')).toBe(true);
    expect(isCanonicalBase64(`${ALPHABET}`)).toBe(true);
  });

  it('is the schema the shard wire uses: a failure names base64', () => {
    const r = base64Schema.safeParse('QQ=!');
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.message).toBe('base64');
  });
});
