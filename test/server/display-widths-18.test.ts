// The widths the Pretty layouts give names on Debian's clickhouse-server 18.16: random names laid out
// in a Pretty header take the columns displayWidth() says (the runs are chdb's; 18.16 agrees), and
// 18.16 cuts no long name; the stage alias of a later column of a taken name, renamed in 18.16's
// Pretty and Vertical bytes, gives 18.16's own bytes of the two columns under one name.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nameOf } from '../support/code-points.js';
import { displayWidth } from '../../shared/core/clickhouse/display-width.js';
import { withAnswerNamesIn } from '../../shared/core/clickhouse-http/renamed-format.js';
import { stageNamesFor } from '../../shared/core/plan/two-stage/stage-names.js';
import { parseSelect } from '../../shared/core/sql/parse.js';
import { backquote } from '../../shared/core/sql/quote.js';
import { chHttp, useChServers } from '../support/ch-servers.js';

const servers = useChServers({ n: 1, portBase: 21800 });

const NAME = nameOf(40);

describe('display widths on 18.16', () => {
  it("property: a name's cell in a Pretty header is the name, as wide as displayWidth says", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(NAME, { minLength: 1, maxLength: 6 }), async (names) => {
        const unique = [...new Set(names)];
        const sql = `SELECT ${unique.map((n, i) => `${i} AS ${backquote(n)}`).join(', ')} FORMAT PrettyCompactNoEscapes`;
        const top = (await chHttp(servers.current.urls[0]!, sql)).split('\n')[0]!;
        const cells = top.trim().slice(2, -2).split('─┬─');
        expect(cells.length).toBe(unique.length);
        unique.forEach((n, i) => {
          expect(cells[i]!.startsWith(n), `${JSON.stringify(n)} in ${top}`).toBe(true);
          expect(displayWidth(cells[i]!.replace(/─+$/, ''))).toBe(displayWidth(n));
        });
      }),
      { numRuns: 100 },
    );
  }, 120_000);

  it("property: a later column's alias renamed in 18.16's padded formats is 18.16's own bytes of one name twice", async () => {
    const FORMATS = ['Pretty', 'PrettyCompact', 'PrettySpace', 'PrettyNoEscapes', 'PrettyCompactMonoBlock', 'PrettySpaceNoEscapes', 'Vertical'];
    // Refused: a name with an edge space (it reads as the padding) or a character of the grid.
    const drawable = NAME.filter((n) => [...n].reverse().find((c) => displayWidth(c)) !== ' ' && !/[\u2500-\u257f]/.test(n));
    await fc.assert(
      fc.asyncProperty(drawable, fc.constantFrom("'x'", "'a much wider value than the name'", 'number'), async (name, value) => {
        const q = (alias: string) => `SELECT ${value} AS ${backquote(name)}, ${value} AS ${backquote(alias)}, 7 AS k FROM system.numbers LIMIT 3`;
        const alias = stageNamesFor(parseSelect(q(name))).renamed(1, name);
        for (const format of FORMATS) {
          const want = await chHttp(servers.current.urls[0]!, `${q(name)} FORMAT ${format}`);
          const staged = Buffer.from(await chHttp(servers.current.urls[0]!, `${q(alias)} FORMAT ${format}`));
          expect(withAnswerNamesIn(staged, format, [name, name, 'k'], {}).toString('utf8'), format).toBe(want);
        }
      }),
      { numRuns: 40 },
    );
  }, 120_000);
});
