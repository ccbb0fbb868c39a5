// Hash parity against a real engine: for thousands of generated values of every supported key
// type, our placement's hash must equal xxHash64(CAST(value AS <type>)) computed by chdb
// (ClickHouse 26.x). One chdb Session per test process, in a fresh temp dir.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Session } from 'chdb';
import { createPlacement, type KeyValue } from '../../../shared/core/sharding/index.js';

const N = 1500;
let dir: string;
let session: Session;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'h1-hash-parity-'));
  session = new Session(dir);
});
afterAll(() => {
  session?.close?.();
  rmSync(dir, { recursive: true, force: true });
});

// Control bytes go in as \xHH: chdb takes the query as a C string, so a raw NUL would cut it.
const sqlString = (s: string) =>
  `'${s
    .replace(/\\/g, '\\\\')
    .replace(/'/g, "\\'")
    // biome-ignore lint/suspicious/noControlCharactersInRegex: matches control characters on purpose, to escape them
    .replace(/[\x00-\x1f]/g, (c) => '\\x' + c.charCodeAt(0).toString(16).padStart(2, '0'))}'`;

/** chdb's xxHash64(CAST(text AS type)) for each text, in order. */
function chHashes(texts: string[], type: string): bigint[] {
  const tuples = texts.map((t, i) => `(${i}, ${sqlString(t)})`).join(',');
  const sql = `SELECT t.1 AS i, toString(xxHash64(CAST(t.2 AS ${type}))) AS h FROM (SELECT arrayJoin([${tuples}]) AS t) ORDER BY i
    SETTINGS session_timezone = 'UTC'`;
  const out = session.query(sql, 'JSONEachRow') as string;
  const rows = out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { i: number; h: string });
  expect(rows.length).toBe(texts.length);
  return rows.map((r) => BigInt(r.h));
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
function dateText(days: number): string {
  const d = new Date(days * 86_400_000);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}
function dateTimeText(secs: number): string {
  const d = new Date(secs * 1000);
  return `${dateText(Math.floor(secs / 86_400))} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

/** A generated case: the text chdb casts, and the KeyValue we hand our placement. */
interface Case {
  text: string;
  ours: KeyValue;
}

function intCases(bits: number, signed: boolean): fc.Arbitrary<Case> {
  const b = BigInt(bits);
  const [min, max] = signed ? [-(1n << (b - 1n)), (1n << (b - 1n)) - 1n] : [0n, (1n << b) - 1n];
  // Hand the value to our side as a bigint, a decimal string, or (when safe) a JSON number.
  return fc.tuple(fc.bigInt({ min, max }), fc.integer({ min: 0, max: 2 })).map(([n, form]) => ({
    text: String(n),
    ours: form === 0 ? n : form === 1 || n > BigInt(Number.MAX_SAFE_INTEGER) || n < BigInt(Number.MIN_SAFE_INTEGER) ? String(n) : Number(n),
  }));
}

const text = fc.string({ unit: 'grapheme', maxLength: 40 });
const cases: Record<string, fc.Arbitrary<Case>> = {
  String: fc
    .oneof(text, fc.string({ unit: 'binary-ascii', maxLength: 20 }), fc.constantFrom('', "it's", 'a\\b', '\u0000x', 'κλειδί', '🦀🦀'))
    .map((s) => ({ text: s, ours: s })),
  'FixedString(8)': fc.string({ unit: 'grapheme-ascii', maxLength: 8 }).map((s) => ({ text: s, ours: s })),
  'FixedString(1)': fc.string({ unit: 'grapheme-ascii', maxLength: 1 }).map((s) => ({ text: s, ours: s })),
  UInt8: intCases(8, false),
  UInt16: intCases(16, false),
  UInt32: intCases(32, false),
  UInt64: intCases(64, false),
  Int8: intCases(8, true),
  Int16: intCases(16, true),
  Int32: intCases(32, true),
  Int64: intCases(64, true),
  Date: fc.tuple(fc.integer({ min: 0, max: 65535 }), fc.boolean()).map(([d, asNumber]) => ({ text: dateText(d), ours: asNumber ? d : dateText(d) })),
  DateTime: fc
    .tuple(fc.integer({ min: 0, max: 4294967295 }), fc.boolean())
    .map(([s, asNumber]) => ({ text: dateTimeText(s), ours: asNumber ? s : dateTimeText(s) })),
  UUID: fc.uuid().map((u) => ({ text: u, ours: u.toUpperCase() })),
};

describe('xxHash64 parity with chdb', () => {
  for (const [type, arb] of Object.entries(cases)) {
    it(`${type}: ${N} generated values`, async () => {
      const sample = fc.sample(arb, { numRuns: N });
      const p = await createPlacement([{ weight: 1 }], { column: 'k', type, function: 'xxHash64' });
      const expected = chHashes(
        sample.map((c) => c.text),
        type,
      );
      const mismatches = sample.map((c, i) => ({ c, ours: p.hash(c.ours), theirs: expected[i]! })).filter((m) => m.ours !== m.theirs);
      expect(mismatches.slice(0, 5)).toEqual([]);
    });
  }

  it("DateTime('Asia/Kolkata'): text is wall-clock time in the zone", async () => {
    const type = "DateTime('Asia/Kolkata')";
    // Stay clear of the first hours after the epoch, which Kolkata time would put before 1970.
    const sample = fc.sample(fc.integer({ min: 86_400, max: 4_000_000_000 }), { numRuns: 500 }).map(dateTimeText);
    const p = await createPlacement([{ weight: 1 }], { column: 'k', type, function: 'xxHash64' });
    const expected = chHashes(sample, type);
    expect(sample.map((t) => p.hash(t))).toEqual(expected);
  });
});
