// The final stage's SQL under the answer's names, alike ones among them, run by ClickHouse itself (chdb in this
// process): the header is the names as given, each row F's row in F's order, F evaluated once.
import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Session } from 'chdb';
import {
  ENGINE_NAMES_SETTINGS,
  PER_SIDE_SETTINGS,
  engineEvaluation,
  engineNamedSql,
  namesAlikeOnEngine,
} from '../../../shared/core/plan/two-stage/engine-names.js';

const dir = mkdtempSync(join(tmpdir(), 'engine-names-'));
const session = new Session(dir);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SETTINGS = ` SETTINGS ${Object.entries(ENGINE_NAMES_SETTINGS)
  .map(([k, v]) => `${k} = ${v}`)
  .join(', ')}`;
const PER_SIDE = ` SETTINGS ${Object.entries(PER_SIDE_SETTINGS)
  .map(([k, v]) => `${k} = ${typeof v === 'string' ? `'${v}'` : v}`)
  .join(', ')}`;
const run = async (sql: string, format = 'TSVWithNames') => (await session.queryAsync(sql, { format })).text();
/** ClickHouse's TSV escaping of a name in a header. */
const tsvName = (n: string) => n.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n');

describe('engineNamedSql on ClickHouse 26', () => {
  it("answers F's rows in F's order under any names, alike ones repeated any number of times", async () => {
    // Names that may repeat, and names the wrap's own would capture (its prefix, a stage alias).
    const NAMES = ['k', 's', 'status', '_w0', '_wr', '_wf', 'a b', 'x`y', 'c\td'];
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(...NAMES), { minLength: 1, maxLength: 7 }),
        fc.integer({ min: 0, max: 40 }),
        fc.boolean(),
        fc.option(fc.integer({ min: 0, max: 10 }), { nil: undefined }),
        async (names, rows, descending, limit) => {
          // F names each column apart, as the planner's final stage does.
          const cols = names.map((_, i) => `toString(number * ${i + 1}) AS _n${i}`).join(', ');
          const f = `SELECT ${cols} FROM numbers(${rows}) ORDER BY number ${descending ? 'DESC' : 'ASC'}${limit === undefined ? '' : ` LIMIT ${limit}`}`;
          const want = (await run(f, 'TSV')).split('\n');
          const got = (await run(engineNamedSql(f, names) + SETTINGS)).split('\n');
          expect(got[0]).toBe(names.map(tsvName).join('\t'));
          expect(got.slice(1)).toEqual(want);
        },
      ),
      { numRuns: 40 },
    );
  }, 120_000);

  it("keeps F's order over many blocks read by many threads (ORDER BY with ties broken, LIMIT with an offset)", async () => {
    const blocks = ' SETTINGS max_threads = 4, max_block_size = 1000';
    for (const f of [
      'SELECT number % 1000 AS _n0, toString(number) AS _n1, toString(number % 13) AS _n2 FROM numbers_mt(50000) ORDER BY _n0, _n1 DESC',
      'SELECT number % 1000 AS _n0, toString(number) AS _n1, toString(number % 13) AS _n2 FROM numbers_mt(50000) ORDER BY _n0 DESC, _n1 LIMIT 20000, 5000',
    ]) {
      const want = await run(f + blocks, 'TSV');
      expect(await run(engineNamedSql(f, ['k', 's', 's']) + SETTINGS + blocks.replace(' SETTINGS', ','), 'TSV')).toBe(want);
    }
  });

  it('evaluates F once: a random value read by two sides is the same value', async () => {
    const f = 'SELECT number AS _n0, rand64() AS _n1, _n1 AS _n2 FROM numbers(50)';
    const lines = (await run(engineNamedSql(f, ['k', 'r', 'r']) + SETTINGS, 'TSV')).trim().split('\n');
    expect(lines).toHaveLength(50);
    for (const l of lines) {
      const [, a, b] = l.split('\t');
      expect(a).toBe(b);
    }
  });

  it('keeps an unordered F as it came (its rows, each once)', async () => {
    const f = 'SELECT toString(number % 7) AS _n0, toString(number) AS _n1 FROM numbers(1000) WHERE number % 3 = 0';
    const want = (await run(f, 'TSV')).trim().split('\n').sort();
    const got = (await run(engineNamedSql(f, ['s', 's']) + SETTINGS, 'TSV')).trim().split('\n').sort();
    expect(got).toEqual(want);
  });

  it("keeps ClickHouse's 352 for alike names of different types, in a format without types", async () => {
    const f = 'SELECT number AS _n0, toString(number) AS _n1 FROM numbers(3)';
    await expect(run(engineNamedSql(f, ['s', 's']) + SETTINGS, 'TSV')).rejects.toThrow(
      /Code: 352\. DB::Exception: Block structure mismatch in \(columns with identical name must have identical structure\) stream: different types:\ns UInt64 UInt64\(size = 0\)\ns String String\(size = 0\)/,
    );
  });

  it("runs under the JOIN settings a query may forward (join_default_strictness = '', join_use_nulls = 1)", async () => {
    const f = 'SELECT number AS _n0, toString(number) AS _n1, toString(number + 1) AS _n2 FROM numbers(3) ORDER BY number DESC';
    for (const extra of [", join_default_strictness = ''", ', join_use_nulls = 1', ", join_default_strictness = 'ANY'"])
      expect(await run(engineNamedSql(f, ['k', 's', 's']) + SETTINGS + extra, 'TSV'), extra).toBe('2\t2\t3\n1\t1\t2\n0\t0\t1\n');
  });

  it("evaluated per side, keeps F's totals and extremes, and F's rows in F's order over many blocks, ties and LIMIT", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom('k', 's', 'a b'), { minLength: 2, maxLength: 5 }),
        fc.integer({ min: 0, max: 3000 }),
        fc.integer({ min: 1, max: 40 }),
        fc.constantFrom('', 'ORDER BY _n0 DESC', 'ORDER BY _n1', 'ORDER BY _n0 LIMIT 7, 5'),
        fc.constantFrom('', ' HAVING count() > 2'),
        async (names, rows, groups, order, having) => {
          // A grouped F whose ORDER BY may leave ties: every evaluation in one thread orders them alike.
          const cols = names.map((_, i) => (i === 0 ? `toString(count()) AS _n0` : `toString(sum(number % ${i + 3})) AS _n${i}`)).join(', ');
          const f = `SELECT ${cols} FROM numbers(${rows}) GROUP BY number % ${groups} WITH TOTALS${having} ${order}`;
          const blocks = ', max_block_size = 100, extremes = 1';
          // F's own bytes under the names (the engine writes a header after the totals when there are no rows).
          const own = (await run(`${f} SETTINGS max_threads = 1${blocks}`, 'TSVWithNames')).split('\n');
          const header = own.indexOf(names.map((_, i) => `_n${i}`).join('\t'));
          own[header] = names.map(tsvName).join('\t');
          expect(await run(engineNamedSql(f, names, 'perSide') + PER_SIDE + blocks, 'TSVWithNames')).toBe(own.join('\n'));
        },
      ),
      { numRuns: 30 },
    );
  }, 120_000);

  it('is evaluated per side WITH TOTALS, but once where no totals are written or F would differ between evaluations', () => {
    const f = 'SELECT count() AS _n0, toString(sum(number)) AS _n1 FROM _stage0 GROUP BY k WITH TOTALS';
    expect(engineEvaluation('PrettyCompact', false, f)).toBe('once');
    expect(engineEvaluation('Parquet', true, f)).toBe('once');
    expect(engineEvaluation('Vertical', true, f)).toBe('perSide');
    expect(engineEvaluation(' prettyspace ', true, f)).toBe('perSide');
    // A count of the rows before LIMIT would add up every evaluation's: those formats keep the renaming.
    expect(engineEvaluation('JSON', true, f)).toBeUndefined();
    expect(engineEvaluation('XML', true, f)).toBeUndefined();
    expect(engineEvaluation('Vertical', true, f.replace('sum(number)', 'sum(rand())'))).toBeUndefined();
    expect(engineEvaluation('Vertical', true, f.replace('sum(number)', 'sum(`generateUUIDv4`())'))).toBeUndefined();
    // F's own JOIN runs under the wrap's JOIN settings, which are ClickHouse's defaults: not where the query sets its own.
    const joined = f.replace('FROM _stage0', 'FROM _stage0 AS a LEFT JOIN _stage1 AS b USING k');
    expect(engineEvaluation('Vertical', true, joined)).toBe('perSide');
    expect(engineEvaluation('Vertical', true, joined, { join_use_nulls: 1 })).toBeUndefined();
    expect(engineEvaluation('Vertical', true, joined, { join_algorithm: 'grace_hash' })).toBeUndefined();
    expect(engineEvaluation('Vertical', true, f, { join_use_nulls: 1 })).toBe('perSide');
    // A column of that name is no call.
    expect(engineEvaluation('Vertical', true, f.replace('sum(number)', 'sum(rand)'))).toBe('perSide');
    expect(engineNamedSql(f, ['k', 'k'], 'perSide')).not.toContain('MATERIALIZED');
    expect(engineNamedSql(f, ['k', 'k'])).toContain('MATERIALIZED');
  });

  it('is for ClickHouse 26 and later engines', () => {
    expect(namesAlikeOnEngine('26.7.2.1')).toBe(true);
    expect(namesAlikeOnEngine('18.16.1')).toBe(false);
    expect(namesAlikeOnEngine(undefined)).toBe(false);
  });
});
