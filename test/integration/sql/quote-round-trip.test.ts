// The one string quoter and the one identifier quoter (shared/core/sql/quote.ts) against ClickHouse (chdb):
// whatever JS string goes in, ClickHouse stores exactly the bytes Node sends for it (its UTF-8
// encoding: a lone surrogate, which no UTF-8 can carry, is U+FFFD on the wire as everywhere in
// Node), and our own lexer reads the quoted text back to the same JS string. Non-UTF-8 bytes cannot
// be in a JS string; they reach SQL text only as `\xHH` escapes, where ClickHouse keeps the raw
// bytes and our lexer takes exactly the UTF-8 ones and refuses the rest with a position.
// fast-check seed: FC_SEED, printed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { backquote, quoteStringLiteral } from '../../../shared/core/sql/quote.js';
import { tokenize } from '../../../shared/core/sql/lexer.js';
import { stringBytes } from '../../../shared/core/surrogate-escape.js';
import { openEngine, type SqlTestEngine } from './chdb-session.js';

const SEED = Number(process.env.FC_SEED ?? Math.floor(Math.random() * 2 ** 31));
console.log(`quote-round-trip: FC_SEED=${SEED}`);

let engine: SqlTestEngine;
beforeAll(() => {
  engine = openEngine('quote');
});
afterAll(() => engine?.close());

/** Every UTF-16 code unit, lone surrogates included. */
const anyUnits = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 30 });
const anyString = fc.oneof(
  anyUnits,
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.string({ unit: fc.constantFrom("'", '`', '"', '\\', '\n', '\r', '\0', 'x', '“', '’', '\x7f', '\x1b'), maxLength: 12 }),
);

const FIXED = [
  '',
  "'",
  "''",
  '\\',
  "\\'",
  '\\\\x41',
  '`',
  '"',
  '\n',
  '\r\n',
  '\0',
  'a\0b',
  '\x01\x08\x0c\x1f\x7f',
  '\t',
  '“name”',
  '‘s’',
  '😀',
  '\uD800',
  '\uDC00x',
  'a\uD83Db',
  '$$',
  '-- not a comment',
  '/* not a comment */',
  '{p:String}',
];

/** ClickHouse's reading of a string literal, as hex of its bytes. */
const storedHex = (literal: string): string => String(engine.json(`SELECT hex(${literal}) AS h FORMAT JSON`).data[0]!.h);

function checkString(s: string): void {
  for (const lit of [quoteStringLiteral(s), quoteStringLiteral(s, { rawControls: true })]) {
    // Lone U+DC80..U+DCFF stand for the bytes 80..FF (surrogate escapes, shared/core/surrogate-escape.ts).
    expect(storedHex(lit), JSON.stringify(s)).toBe(Buffer.from(stringBytes(s)).toString('hex').toUpperCase());
    const toks = tokenize(lit);
    expect(toks.map((t) => t.type)).toEqual(['string', 'eof']);
    expect(toks[0]!.text).toBe(s);
  }
}

function checkIdent(s: string): void {
  const q = backquote(s);
  // The name ClickHouse gives the column is the identifier's bytes (JSON-decoded here).
  const meta = engine.json(`SELECT 1 AS ${q} FORMAT JSON`).meta;
  expect(
    meta.map((m) => m.name),
    JSON.stringify(s),
  ).toEqual([Buffer.from(s, 'utf8').toString('utf8')]);
  const toks = tokenize(`SELECT ${q}`);
  expect(toks[1]).toMatchObject({ type: 'qident', text: s });
  expect(toks[2]!.type).toBe('eof');
}

describe('quoteStringLiteral: ClickHouse stores exactly the bytes of the string; our lexer reads it back', () => {
  it('hand-picked strings (quotes, backslashes, NUL, control characters, lone surrogates)', () => {
    for (const s of FIXED) checkString(s);
  });
  it('any string (property)', () => {
    fc.assert(
      fc.property(anyString, (s) => checkString(s)),
      { seed: SEED, numRuns: 300 },
    );
  });
  it('is one line whatever the string holds', () => {
    fc.assert(
      fc.property(anyString, (s) => !/[\n\r\0]/.test(quoteStringLiteral(s))),
      { seed: SEED, numRuns: 300 },
    );
  });
});

describe('backquote: ClickHouse names the column by the identifier; our lexer reads it back', () => {
  it('hand-picked names', () => {
    for (const s of FIXED) if (s !== '') checkIdent(s);
  });
  it('any non-empty name (property)', () => {
    fc.assert(
      fc.property(
        anyString.filter((s) => s.length > 0),
        (s) => checkIdent(s),
      ),
      { seed: SEED, numRuns: 300 },
    );
  });
});

describe('non-UTF-8 bytes: only as \\xHH escapes in SQL text', () => {
  it('ClickHouse keeps any bytes; our lexer keeps them too (invalid UTF-8 as surrogate escapes) and prints them back', () => {
    const bytes = fc.oneof(
      fc.uint8Array({ maxLength: 12 }),
      fc.string({ unit: 'binary', maxLength: 6 }).map((s) => new Uint8Array(Buffer.from(s, 'utf8'))),
    );
    fc.assert(
      fc.property(bytes, (b) => {
        const literal = `'${[...b].map((x) => `\\x${x.toString(16).padStart(2, '0')}`).join('')}'`;
        const hex = Buffer.from(b).toString('hex').toUpperCase();
        expect(storedHex(literal)).toBe(hex);
        const toks = tokenize(`SELECT ${literal}`);
        const text = toks[1]!.text;
        expect(Buffer.from(stringBytes(text)).toString('hex').toUpperCase(), `lexer read ${hex}`).toBe(hex);
        let utf8: string | undefined;
        try {
          utf8 = new TextDecoder('utf-8', { fatal: true }).decode(b);
        } catch {
          utf8 = undefined;
        }
        if (utf8 !== undefined) expect(text).toBe(utf8);
        expect(storedHex(quoteStringLiteral(text)), `printed back ${hex}`).toBe(hex);
      }),
      { seed: SEED, numRuns: 300 },
    );
  });
});
