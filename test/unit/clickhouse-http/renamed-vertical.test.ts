// Vertical's names given back: each section's `name:` of a later column of a taken name gets the earlier
// one's bytes (the alias is as wide), values untouched; bytes not in its layout are refused.
import { describe, expect, it } from 'vitest';
import { withAnswerNamesIn } from '../../../shared/core/clickhouse-http/renamed-format.js';

const NAMES = ['sensor', 'sensor', 'c'];
// As chdb writes `SELECT s AS sensor, s AS _n1___, count() AS c ... WITH TOTALS SETTINGS extremes = 1`, a value with a line break.
const STAGED = [
  'Row 1:\n──────\nsensor: s-0\n_n1___: s-0\nc:      1\n',
  '\nRow 2:\n──────\nsensor: s\n1\n_n1___: s\n1\nc:      1\n',
  '\n\nTotals:\n───────\nsensor: \n_n1___: \nc:      2\n',
  '\nMin:\n────\nsensor: s-0\n_n1___: s-0\nc:      1\n',
  '\nMax:\n────\nsensor: s\n1\n_n1___: s\n1\nc:      1\n',
].join('');

describe('Vertical renamer', () => {
  it("gives each section's later name the earlier one's bytes", () => {
    const out = withAnswerNamesIn(Buffer.from(STAGED), 'Vertical', NAMES).toString('utf8');
    expect(out).toBe(STAGED.replaceAll('_n1___', 'sensor'));
  });
  it("reads Pretty's fallback to Vertical: totals and extremes as further rows under a label", () => {
    const staged = 'Row 1:\n──────\nsensor: a\n_n1___: a\nc:      1\n\nTotals:\nRow 2:\n──────\nsensor: \n_n1___: \nc:      1\n';
    expect(withAnswerNamesIn(Buffer.from(staged), 'PrettyCompact', NAMES).toString('utf8')).toBe(staged.replaceAll('_n1___', 'sensor'));
  });
  it('refuses bytes not in its layout, and a value line that reads as a name', () => {
    for (const bad of [
      'Row 1:\n─────\nsensor: a\n_n1___: a\nc:      1\n', // a rule of the wrong width
      'Row 1:\n──────\nsensor: a\nc:      1\n', // a column missing
      'Row 2:\n──────\nsensor: a\n_n1___: a\nc:      1\n', // not the first row
      'Row 1:\n──────\nsensor: a\n_n1___: a\nc:      1\n\nRow 2:\n──────\nsensor: a\n_n2___: a\nc:      1\n', // two aliases of one column
      'Row 1:\n──────\nsensor: a\nzzzzzz: b\n_n1___: a\nc:      1\n', // a value's line spelled like a column's
      'Row 1:\n──────\nsensor: a\n_n1___: a\nc:      1\nRow 2:\n', // a title inside the last value
    ])
      expect(() => withAnswerNamesIn(Buffer.from(bad), 'Vertical', NAMES), bad).toThrow(/two different columns both named sensor/);
    expect(() => withAnswerNamesIn(Buffer.from(STAGED), 'Vertical', ['a\tb', 'a\tb', 'c'])).toThrow(/lays a name out by its width/);
  });
});
