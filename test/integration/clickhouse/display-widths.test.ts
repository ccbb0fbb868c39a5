// The widths the Pretty and Vertical layouts give text, against ClickHouse itself (chdb): every code
// point's width as the committed runs hold it is chdb's visibleWidth() of it, and random names laid out
// in a Pretty header take the columns displayWidth() says.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nameOf } from '../../support/code-points.js';
import { query } from 'chdb';
import { codePointWidth, cutName, displayWidth } from '../../../shared/core/clickhouse/display-width.js';
import { WIDTHS_SQL } from '../../../scripts/gen-display-widths.mjs';
import { backquote } from '../../../shared/core/sql/quote.js';

const NAME = nameOf(12);

describe('display widths', () => {
  it("every code point's width is chdb's visibleWidth of it (scripts/gen-display-widths.mjs writes the runs)", () => {
    const widths = query(WIDTHS_SQL, 'TSV').trim().split('\n').map(Number);
    expect(widths.length).toBe(0x110000);
    const differ = widths.flatMap((w, cp) => (w === codePointWidth(cp) ? [] : [cp.toString(16)]));
    expect(differ).toEqual([]);
  });

  it("property: a name's cell in a Pretty header is as wide as displayWidth says, and a long one is cut as cutName cuts it", () => {
    fc.assert(
      fc.property(fc.array(NAME, { minLength: 1, maxLength: 6 }), (names) => {
        const unique = [...new Set(names)];
        const sql = `SELECT ${unique.map((n, i) => `${i} AS ${backquote(n)}`).join(', ')} FORMAT PrettyCompactNoEscapes`;
        const top = query(sql, 'PrettyCompactNoEscapes').split('\n')[0]!;
        // ┌─name─┬─name─┐: each cell is its name between one ─ each side, padded with ─ to the column's width.
        const cells = top.trim().slice(2, -2).split('─┬─');
        expect(cells.length).toBe(unique.length);
        unique.forEach((n, i) => {
          const width = displayWidth(n)!;
          const shown = width > 28 ? cutName(n, 24, '⋯') : n;
          expect(cells[i]!.startsWith(shown), `${JSON.stringify(n)} in ${top}`).toBe(true);
          expect(displayWidth(cells[i]!.replace(/─+$/, ''))).toBe(width > 28 ? 24 : width);
        });
      }),
      { numRuns: 100 },
    );
  });
});
