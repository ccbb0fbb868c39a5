// The pieces every renamer shares: one set of names copied alike, the refusal, and the layout helpers
// of the formats that pad names by their width.
import { describe, expect, it } from 'vitest';
import { copyAlike, lineStarts, notRenamed, refuseUnlikeWidths, type Renaming } from '../../../shared/core/clickhouse-http/renaming.js';

describe('renaming', () => {
  it('each later column of a name already taken gets the first one’s bytes; a count other than one a column is refused', () => {
    const bytes = Buffer.from('a\tb_1\tc');
    const into: Renaming['replace'] = [];
    copyAlike(
      bytes,
      [
        { start: 0, end: 1 },
        { start: 2, end: 5 },
        { start: 6, end: 7 },
      ],
      ['x', 'x', 'y'],
      into,
    );
    expect(into).toEqual([{ at: { start: 2, end: 5 }, bytes: Buffer.from('a') }]);
    expect(() => copyAlike(bytes, [{ start: 0, end: 1 }], ['x', 'x'], [])).toThrow(/two different columns both named x/);
  });
  it('the refusal names the repeated name and the format', () => {
    expect(notRenamed(['a', 'b', 'a'], 'Markdown').message).toMatch(/both named a are not supported in output format Markdown/);
  });
  it('only printable ASCII names without edge spaces are padded by their length', () => {
    expect(() => refuseUnlikeWidths(['a b', 'x!'], 'Pretty')).not.toThrow();
    for (const bad of [' a', 'a ', 'é', 'a\tb', '']) expect(() => refuseUnlikeWidths([bad, bad], 'Pretty')).toThrow(/Pretty lays a name out by its width/);
  });
  it('line starts are byte offsets of the latin1 text', () => {
    const text = Buffer.from('ab\n─\n\nz').toString('latin1');
    expect(lineStarts(text.split('\n'))).toEqual([0, 3, 7, 8]);
  });
});
