// Pretty's ASCII grid (output_format_pretty_grid_charset = 'ASCII'): PrettyCompact's names are in its `+-name-+`
// borders; Pretty's header is a `| name |` line like its rows, found by the table's order of lines.
import { describe, expect, it } from 'vitest';
import { withAnswerNamesIn } from '../../../shared/core/clickhouse-http/renamed-format.js';

const NAMES = ['k', 'k', 'c'];

describe("Pretty's ASCII grid", () => {
  it('PrettyCompact: the names in the top and bottom borders', () => {
    const staged = '   +-k-+-a-+-c-+\n1. | x | x | 1 |\n   +---+---+---+\n\nTotals:\n   +-k-+-a-+-c-+\n1. |   |   | 1 |\n   +---+---+---+\n';
    expect(withAnswerNamesIn(Buffer.from(staged), 'PrettyCompact', NAMES).toString('utf8')).toBe(staged.replaceAll('-a-', '-k-'));
  });
  it("Pretty: each table's header and its footer, not a row that reads like them", () => {
    const table = (rows: string[], footer: boolean) => {
      const border = '    +---+---+---+\n';
      const body = rows.map((r, i) => `${String(i + 1).padStart(2)}. | ${r} |\n`).join(border);
      return `${border}    | k | a | c |\n${border}${body}${border}${footer ? `    | k | a | c |\n${border}` : ''}`;
    };
    const many = Array.from({ length: 50 }, () => 'x | x | 1');
    const staged = `${table(['k | a | c', 'x |   | 1'], false)}${table(many, true)}\nTotals:\n${table(['  |   | 2'], false)}`;
    const out = withAnswerNamesIn(Buffer.from(staged), 'Pretty', NAMES).toString('utf8');
    expect(out).toBe(staged.replaceAll('    | k | a | c |', '    | k | k | c |'));
  });
  it('refuses a name holding a character of the grid, and bytes not in its layout', () => {
    const staged = '   +-k-+-a-+-c-+\n1. | x | x | 1 |\n   +---+---+---+\n';
    expect(() => withAnswerNamesIn(Buffer.from(staged), 'PrettyCompact', ['k+', 'k+', 'c'])).toThrow(/a character of the grid/);
    expect(() => withAnswerNamesIn(Buffer.from('   +---+\n1. | x |\n'), 'Pretty', NAMES)).toThrow(/two different columns both named k/);
    // Without row numbers the footer reads like a row: refused.
    const unnumbered = `+---+---+---+\n| k | a | c |\n+---+---+---+\n| x | x | 1 |\n+---+---+---+\n| k | a | c |\n+---+---+---+\n`;
    expect(() => withAnswerNamesIn(Buffer.from(unnumbered), 'Pretty', NAMES)).toThrow(/two different columns both named k/);
  });
});
