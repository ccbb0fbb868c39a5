// PrettySpace's names given back: each header line (the block's, the footer's past 50 rows, each unsquashed
// block's, the totals' and extremes') read name by name, values untouched; bytes not in its layout are refused.
import { describe, expect, it } from 'vitest';
import { withAnswerNamesIn } from '../../../shared/core/clickhouse-http/renamed-format.js';

const NAMES = ['a b', 'a b', 'c'];
const rows = (n: number) => Array.from({ length: n }, (_, i) => `${String(i + 1).padStart(2)}.  x     x     1 \n`).join('');
// As chdb writes two String columns and a number, the second String called `_n1`, a name with a space.
const head = (second: string) => `     a b   ${second}   c\n`;

describe('PrettySpace renamer', () => {
  it('renames every header: the footer, a further block, totals and extremes', () => {
    const staged = [
      head('_n1'),
      '\n',
      rows(2),
      head('_n1'),
      '\n',
      rows(50),
      '\n',
      head('_n1'),
      '\n',
      '\nTotals:\n',
      head('_n1'),
      '\n',
      ' 1.              2 \n',
      '\nExtremes:\n',
      head('_n1'),
      '\n',
      rows(1),
    ].join('');
    const out = withAnswerNamesIn(Buffer.from(staged), 'PrettySpaceMonoBlock', NAMES).toString('utf8');
    expect(out).toBe(staged.replaceAll('_n1', 'a b'));
  });
  it('leaves a last row spelled like the header a row', () => {
    const staged = `${head('_n1')}\n${rows(1)}     a b   _n1   c \n\nTotals:\n${head('_n1')}\n 1.              2 \n`;
    const out = withAnswerNamesIn(Buffer.from(staged), 'PrettySpace', NAMES).toString('utf8');
    expect(out).toBe(`${head('a b')}\n${rows(1)}     a b   _n1   c \n\nTotals:\n${head('a b')}\n 1.              2 \n`);
  });
  it('refuses bytes not in its layout', () => {
    for (const bad of [
      `${head('_n1')}${rows(1)}`, // no empty line under the header
      `${head('_n12')}\n${rows(1)}`, // an alias of another width
      `     a b   b-c   c\n\n${rows(1)}`, // not an alias
      `${head('_n1')}\n${rows(1)}\nsomething\n`, // a line after the rows that is no part of the layout
    ])
      expect(() => withAnswerNamesIn(Buffer.from(bad), 'PrettySpace', NAMES), bad).toThrow(/two different columns both named a b/);
  });
});
