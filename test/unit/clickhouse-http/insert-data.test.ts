// The interface's INSERT data cut into rows: for any bytes, a row's key field decodes to exactly
// the bytes the format encodes (what ClickHouse stores), and each row is the bytes sent.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { splitInsertData } from '../../../shared/core/clickhouse-http/insert-data.js';

const latin1 = (b: Uint8Array) => Buffer.from(b).toString('latin1');
/** Any bytes, often ones that matter to the formats (quotes, separators, escapes, line ends, non-UTF-8). */
const bytes = fc
  .array(fc.oneof(fc.constantFrom(0x22, 0x2c, 0x09, 0x0a, 0x0d, 0x5c, 0x27, 0x20, 0x4e, 0xff, 0xc3, 0x80), fc.integer({ min: 0, max: 255 })), {
    maxLength: 24,
  })
  .map((a) => Uint8Array.from(a));

const csv = (b: Uint8Array) => `"${latin1(b).replace(/"/g, '""')}"`;
const TSV_OUT: Record<string, string> = { '\t': '\\t', '\n': '\\n', '\\': '\\\\', '\r': '\\r', '\0': '\\0', '\b': '\\b', '\f': '\\f' };
const tsv = (b: Uint8Array, hex: boolean) =>
  hex ? [...b].map((c) => `\\x${c.toString(16).padStart(2, '0')}`).join('') : latin1(b).replace(/[\t\n\\\r\0\b\f]/g, (c) => TSV_OUT[c]!);
/** A JSON string: quotes, backslashes and control bytes as \u escapes, every other byte raw. */
const json = (b: Uint8Array) =>
  `"${[...b].map((c) => (c < 0x20 || c === 0x22 || c === 0x5c ? `\\u${c.toString(16).padStart(4, '0')}` : String.fromCharCode(c))).join('')}"`;

describe('INSERT data rows (fast-check)', () => {
  it('the key field decodes to the encoded bytes in CSV, TabSeparated and JSONEachRow; rows stay as sent', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(bytes, bytes, fc.boolean()), { minLength: 1, maxLength: 8 }), (rows) => {
        const cases = [
          { format: 'CSV' as const, lines: rows.map(([k, v]) => `${csv(v)}, ${csv(k)} `) },
          { format: 'TabSeparated' as const, lines: rows.map(([k, v, hex]) => `${tsv(v, false)}\t${tsv(k, hex)}`) },
          { format: 'JSONEachRow' as const, lines: rows.map(([k, v]) => `{"v":${json(v)}, "k" : ${json(k)}}`) },
        ];
        for (const c of cases) {
          const out = splitInsertData(c.format, Buffer.from(`${c.lines.join('\n')}\n`, 'latin1'), ['v', 'k'], 'k', true);
          expect(
            out.map((r) => latin1(r.bytes)),
            c.format,
          ).toEqual(c.lines);
          expect(
            out.map((r) => Buffer.from(r.key as Uint8Array).toString('hex')),
            c.format,
          ).toEqual(rows.map(([k]) => Buffer.from(k).toString('hex')));
        }
      }),
    );
  });
});
