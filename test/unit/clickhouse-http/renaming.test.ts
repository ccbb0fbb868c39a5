// The pieces every renamer shares: one set of names copied alike, the refusal, and the layout helpers
// of the formats that pad names by their width.
import { describe, expect, it } from 'vitest';
import { copyAlike, lineStarts, nameForAlias, notRenamed, refuseUnlikeWidths, type Renaming } from '../../../shared/core/clickhouse-http/renaming.js';

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
  it('only names of a known width without edge spaces are padded alike: no tab, control character or lone surrogate', () => {
    expect(() => refuseUnlikeWidths(['a b', 'x!', 'é', '中文', 'e\u0301'], 'Pretty')).not.toThrow();
    for (const bad of [' a', 'a ', 'a \u0301', 'a\tb', 'a\nb', '\x1b[1m', '\ud800', '\u0301', ''])
      expect(() => refuseUnlikeWidths([bad, bad], 'Pretty'), JSON.stringify(bad)).toThrow(/Pretty lays a name out by its width/);
  });
  it("a later column's alias, or the engine's cut of it, gives the client's name as the engine writes it there", () => {
    const name = 'Ωμέγα-долгое-имя-столбца-длиннее';
    expect(nameForAlias('_n2_', 'é中x', '⋯')).toBe('é中x');
    expect(nameForAlias('_n2', 'é中x', '⋯')).toBeUndefined(); // narrower than the name
    expect(nameForAlias('_n2.........⋯...........', name, '⋯')).toBe('Ωμέγα-долгое⋯бца-длиннее');
    expect(nameForAlias('_n2.........~...........', name, '~')).toBe('Ωμέγα-долгое~бца-длиннее');
    // Cut at 26 columns, where the column's values are that wide (as chdb writes both cells).
    expect(nameForAlias('_n2..........~............', name, '~')).toBe('Ωμέγα-долгое-~лбца-длиннее');
    expect(nameForAlias('_n2.........⋯.........', name, '⋯')).toBeUndefined(); // not a cut's halves
    expect(nameForAlias('_n2.........⋯...........', 'an_identifier_the_engine_never_cuts', '⋯')).toBeUndefined();
  });
  it('line starts are byte offsets of the latin1 text', () => {
    const text = Buffer.from('ab\n─\n\nz').toString('latin1');
    expect(lineStarts(text.split('\n'))).toEqual([0, 3, 7, 8]);
  });
});
