// The answer's names given back in the engine's bytes, format by format, against ClickHouse itself:
// chdb writes a JOIN whose output has columns of one name (random names that each format escapes its
// own way, random types and rows), and the same columns with each later one of a taken name called by a
// stage alias; renaming the second must give the first's bytes exactly. Where ClickHouse refuses two
// columns of one name with different types (352), so does the renaming of every format that carries types.
import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Session } from 'chdb';
import { renamesFormat, typedSibling, withAnswerNamesIn, withoutTypedHeader } from '../../../shared/core/clickhouse-http/renamed-format.js';
import { backquote, quoteStringLiteral } from '../../../shared/core/sql/quote.js';
import { parseSelect } from '../../../shared/core/sql/parse.js';
import { stageNamesFor } from '../../../shared/core/plan/two-stage/stage-names.js';

const dir = mkdtempSync(join(tmpdir(), 'renamed-format-'));
const session = new Session(dir);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function bytesOf(sql: string, format: string, settings: Record<string, string>): Promise<Buffer | Error> {
  const s = Object.entries(settings).map(([k, v]) => `${k} = '${v}'`);
  try {
    const r = await session.queryAsync(`${sql}${s.length ? ` SETTINGS ${s.join(', ')}` : ''} FORMAT ${format}`);
    return Buffer.from(r.bytes());
  } catch (e) {
    // chdb hands what a failed query had written to the next query of the session: a throwaway one takes it.
    await session.queryAsync('SELECT 1 FORMAT Null');
    return e as Error;
  }
}

// The timing and read counts differ between the two queries; everything else must not.
const withoutProgress = (b: Buffer) =>
  b
    .toString('latin1')
    .split('\n')
    .filter((l) => !l.startsWith('{"progress":'))
    .join('\n');

const TRICKY = ['a', 'b"c', "it's", 'tab\there', 'new\nline', 'comma,semi;', '_n3', 'ü', 'back\\slash', 'pipe | bar', 'eq=ual', ''];
const pick = (k: number) => `[${TRICKY.map((t) => quoteStringLiteral(t)).join(', ')}][(number * ${k}) % ${TRICKY.length} + 1]`;
const TYPES: Record<string, (k: number) => string> = {
  String: (k) => pick(k),
  UInt32: (k) => `toUInt32(number * ${k})`,
  'Nullable(Float64)': (k) => `if(number % 3 = ${k % 3}, NULL, number / ${k + 1})`,
  'Array(String)': (k) => `[${pick(k)}, ${pick(k + 1)}]`,
  'Map(String, UInt8)': (k) => `map(${pick(k)}, toUInt8(${k}), '_n3', 1)`,
};
// Names of other widths than lengths too: wide (CJK), combining, an emoji ClickHouse gives one column, one the Pretty
// formats cut (past 24 columns).
const NAMES = [
  'k',
  'row',
  'min',
  'status',
  'n"a,m\te ü',
  'x y',
  '_n3',
  'a.b',
  'é',
  'q`uote',
  'tab\tname',
  'a=b',
  'p|q',
  '中文',
  'e\u0301x',
  'naïve 😀',
  'Ωμέγα-долгое-имя-столбца-длиннее',
];

// Every format the interface renames or passes, as chdb lists them.
const FORMATS = (await session.queryAsync('SELECT name FROM system.formats WHERE is_output ORDER BY name FORMAT TabSeparated'))
  .text()
  .trim()
  .split('\n')
  .filter(renamesFormat);

const SETTING_CASES: Record<string, string>[] = [
  {},
  { format_csv_delimiter: ';' },
  { output_format_tsv_crlf_end_of_line: '1' },
  { output_format_csv_crlf_end_of_line: '1' },
  { output_format_json_quote_64bit_integers: '0', output_format_json_named_tuples_as_objects: '0' },
  { output_format_pretty_color: '1', output_format_pretty_row_numbers: '0' },
  { output_format_pretty_grid_charset: 'ASCII' },
  // Long names cut at another width, or never.
  { output_format_pretty_max_column_name_width_cut_to: '8', output_format_pretty_max_column_name_width_min_chars_to_cut: '1' },
  { output_format_pretty_max_column_name_width_cut_to: '0' },
  { output_format_sql_insert_max_batch_size: '2', output_format_sql_insert_table_name: 'my t' },
  { output_format_sql_insert_include_column_names: '0' },
];
const SETTINGS = fc.constantFrom(...SETTING_CASES);

interface Case {
  /** The left side's columns and the right side's (the later ones), each a name and a type. */
  left: { name: string; type: string }[];
  right: { name: string; type: string }[];
  rows: number;
  settings: Record<string, string>;
}

const column = fc.record({ name: fc.constantFrom(...NAMES), type: fc.constantFrom(...Object.keys(TYPES)) });
const caseArb = fc
  .record({
    left: fc.uniqueArray(column, { minLength: 1, maxLength: 3, selector: (c) => c.name }),
    extra: fc.uniqueArray(column, { maxLength: 2, selector: (c) => c.name }),
    // Past 50 rows Pretty writes the names in a footer too.
    rows: fc.oneof(fc.integer({ min: 0, max: 4 }), fc.constant(55)),
    settings: SETTINGS,
  })
  .map(({ left, extra, rows, settings }): Case => {
    // The right side repeats at least one left name, with the left one's type, and may add names of its own.
    const right = [left[0]!, ...extra.filter((c) => !left.some((l) => l.name === c.name))];
    return { left, right, rows, settings };
  });

const side = (cols: Case['left'], offset: number, rows: number) =>
  `(SELECT number AS _r, ${cols.map((c, i) => `${TYPES[c.type]!(offset + i + 1)} AS ${backquote(c.name)}`).join(', ')} FROM numbers(${rows}))`;

/** ClickHouse's answer with the alike names (the JOIN), and the stage's (one SELECT, later ones aliased as the planner aliases them), with the answer's names. */
function queriesOf(c: Case): { alike: string; staged: string; names: string[] } {
  const alike = `SELECT * FROM ${side(c.left, 0, c.rows)} AS x JOIN ${side(c.right, 10, c.rows)} USING _r ORDER BY _r SETTINGS joined_subquery_requires_alias = 0`;
  const stage = stageNamesFor(parseSelect(alike));
  const names = ['_r', ...c.left.map((l) => l.name), ...c.right.map((r) => r.name)];
  const items = [
    '_r',
    ...c.left.map((l, i) => `${TYPES[l.type]!(i + 1)} AS ${backquote(l.name)}`),
    ...c.right.map((r, i) => {
      const at = 1 + c.left.length + i;
      return `${TYPES[r.type]!(10 + i + 1)} AS ${backquote(names.indexOf(r.name) < at ? stage.renamed(at, r.name) : r.name)}`;
    }),
  ];
  return { alike, staged: `SELECT ${items.join(', ')} FROM (SELECT number, number AS _r FROM numbers(${c.rows})) ORDER BY _r`, names };
}

/** Each format's renaming of the stage's bytes of `c` against ClickHouse's bytes of the alike columns (or the refusal expected). */
async function renamesAsClickHouse(c: Case, formats: readonly string[] = FORMATS): Promise<void> {
  const { alike, staged, names } = queriesOf(c);
  for (const format of formats) {
    const settings: Record<string, string> = { ...c.settings, output_format_write_statistics: '0' };
    const want = await bytesOf(alike.replace(/ SETTINGS (.*)$/, ''), format, { ...settings, joined_subquery_requires_alias: '0' });
    if (want instanceof Error) continue; // refused by ClickHouse in this format for this shape (Npy's one column...)
    const got = await bytesOf(staged, format, settings);
    if (got instanceof Error) throw got;
    // The Raw formats write names raw: a tab or line break in one leaves the header ambiguous, and it is refused.
    if (/(Raw|LineAsString)WithNames/.test(format) && names.some((n) => /[\t\n]/.test(n))) {
      expect(() => withAnswerNamesIn(got, format, names, settings)).toThrow(/writes names raw/);
      continue;
    }
    // Pretty and Vertical lay a name out by its width, which a tab's position or a control character changes.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are the point
    if (/^(Pretty(Compact|Space)?(NoEscapes)?(MonoBlock)?|Vertical)$/.test(format) && names.some((n) => /[\x00-\x1f]/.test(n))) {
      expect(() => withAnswerNamesIn(got, format, names, settings)).toThrow(/lays a name out/);
      continue;
    }
    // The ASCII grid draws its cells with characters a name may hold: such a name is refused where a grid is drawn
    // (no rows: ClickHouse writes nothing, and so does the renaming).
    const ascii = settings.output_format_pretty_grid_charset === 'ASCII' && want.length > 0 && !want.toString('utf8').startsWith('Row 1:');
    if (ascii && /^Pretty(Compact)?(NoEscapes)?(MonoBlock)?$/.test(format) && names.some((n) => /[|+]|^-|-$/.test(n))) {
      expect(() => withAnswerNamesIn(got, format, names, settings)).toThrow(/a character of the grid/);
      continue;
    }
    // SQLInsert writes a name's backquote unescaped: such a name is refused.
    if (format === 'SQLInsert' && settings.output_format_sql_insert_include_column_names !== '0' && names.some((n) => n.includes('`'))) {
      expect(() => withAnswerNamesIn(got, format, names, settings)).toThrow(/unquoted or unescaped/);
      continue;
    }
    // chdb's BSONEachRow writes a later row's nested document (an Array, a Map) with a wrong length where two columns of one name
    // come from a JOIN (the same rows from one SELECT get the right one): its bytes are not a reference there.
    if (format === 'BSONEachRow' && [...c.left, ...c.right].some((x) => /^(Array|Map)/.test(x.type)) && c.rows > 1) continue;
    const renamed = withAnswerNamesIn(got, format, names, settings);
    expect(withoutProgress(renamed), `${format}: ${alike}`).toBe(withoutProgress(want));
  }
}

describe("the answer's names in each output format's bytes", () => {
  it("property: renaming the stage's bytes gives ClickHouse's bytes of the alike columns, in every format", async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, (c) => renamesAsClickHouse(c)),
      { numRuns: 25 },
    );
  }, 300_000);

  it('names wider or narrower than their length, and long ones the Pretty formats cut, in the formats that pad names', async () => {
    const long = 'Ωμέγα-долгое-имя-столбца-длиннее';
    const padded = FORMATS.filter((f) => /^(Pretty(Compact|Space)?(NoEscapes)?(MonoBlock)?|Vertical)$/.test(f));
    const cases: Omit<Case, 'settings'>[] = [
      {
        left: [
          { name: long, type: 'String' },
          { name: 'k', type: 'UInt32' },
        ],
        right: [{ name: long, type: 'String' }],
        rows: 3,
      },
      // Values as wide as 26 columns: the cut widens to them, differently on each side.
      { left: [{ name: long, type: 'String' }], right: [{ name: long, type: 'Array(String)' }], rows: 55 },
      {
        left: [{ name: '中文', type: 'Array(String)' }],
        right: [
          { name: '中文', type: 'Array(String)' },
          { name: 'e\u0301x', type: 'UInt32' },
        ],
        rows: 2,
      },
      { left: [{ name: 'naïve 😀', type: 'UInt32' }], right: [{ name: 'naïve 😀', type: 'String' }], rows: 1 },
    ];
    for (const c of cases) for (const settings of SETTING_CASES) await renamesAsClickHouse({ ...c, settings }, padded);
  }, 120_000);

  it("two columns of one name and different types: ClickHouse's 352 wherever the bytes carry the types", async () => {
    const alike = `SELECT * FROM (SELECT number AS _r, toString(number) AS s FROM numbers(2)) AS x JOIN (SELECT number AS _r, number AS s FROM numbers(2)) USING _r`;
    expect(await bytesOf(alike, 'TabSeparated', { joined_subquery_requires_alias: '0' })).toBeInstanceOf(Error);
    const staged = 'SELECT number AS _r, toString(number) AS s, number AS _n2 FROM numbers(2)';
    for (const format of [
      'JSON',
      'JSONCompact',
      'JSONEachRowWithProgress',
      'TSVWithNamesAndTypes',
      'CSVWithNamesAndTypes',
      'RowBinaryWithNamesAndTypes',
      'Native',
      'XML',
      'ODBCDriver2',
    ]) {
      const got = (await bytesOf(staged, format, {})) as Buffer;
      expect(() => withAnswerNamesIn(got, format, ['_r', 's', 's']), format).toThrow(/identical structure/);
    }
  });

  it('a format without types, asked with a header of names and types: its bytes once the header is cut, or 352', async () => {
    const staged = (t: string, rows: number) =>
      `SELECT number AS _r, toString(number) AS s, ${t} AS _n2 FROM numbers(${rows}) GROUP BY _r, s WITH TOTALS ORDER BY _r`;
    const TSV_SETTINGS: Record<string, string>[] = [{}, { output_format_tsv_crlf_end_of_line: '1' }, { format_tsv_null_representation: 'nil' }];
    const CSV_SETTINGS: Record<string, string>[] = [
      {},
      { output_format_csv_crlf_end_of_line: '1' },
      { format_csv_delimiter: ';' },
      { format_csv_null_representation: 'nil' },
    ];
    for (const [format, all] of [
      ['TabSeparated', TSV_SETTINGS],
      ['TSV', TSV_SETTINGS],
      ['TSVRaw', TSV_SETTINGS],
      ['Raw', TSV_SETTINGS],
      ['CSV', CSV_SETTINGS],
      ['LineAsString', [{}]],
    ] as const)
      for (const settings of all)
        for (const rows of [0, 3]) {
          const sibling = typedSibling(format, ['_r', 's', 's'])!;
          const want = (await bytesOf(staged('toString(max(number) + 1)', rows), format, settings)) as Buffer;
          const got = (await bytesOf(staged('toString(max(number) + 1)', rows), sibling, settings)) as Buffer;
          expect(withoutTypedHeader(got, sibling, ['_r', 's', 's'], settings).equals(want), `${format} ${JSON.stringify(settings)} ${rows}`).toBe(true);
          const typed = (await bytesOf(staged('max(number) + 1', rows), sibling, settings)) as Buffer;
          expect(() => withoutTypedHeader(typed, sibling, ['_r', 's', 's'], settings)).toThrow(/identical structure/);
        }
    // A raw name with a tab or line break would make the header ambiguous: no sibling, the format's own bytes.
    expect(typedSibling('TSVRaw', ['a\tb', 'a\tb'])).toBeUndefined();
    expect(typedSibling('TabSeparated', ['a\tb', 'a\tb'])).toBe('TabSeparatedWithNamesAndTypes');
    expect(typedSibling('CSV', ['a\tb', 'a\tb'])).toBe('CSVWithNamesAndTypes');
    expect(typedSibling('LineAsString', ['a\tb', 'a\tb'])).toBeUndefined();
    expect(typedSibling('CSVWithNames', ['s', 's'])).toBeUndefined();
    // An engine without CSV's and LineAsString's typed siblings (18.16) is asked the format itself.
    expect([typedSibling('CSV', ['s', 's'], false), typedSibling('LineAsString', ['s', 's'], false)]).toEqual([undefined, undefined]);
    expect(typedSibling('TSV', ['s', 's'], false)).toBe('TabSeparatedWithNamesAndTypes');
  });

  it('bytes not laid out as the format writes them are refused, never renamed by guess', async () => {
    const staged = (await bytesOf('SELECT 1 AS k, 2 AS _n1', 'TSVWithNames', {})) as Buffer;
    expect(() => withAnswerNamesIn(staged, 'JSONEachRow', ['k', 'k'])).toThrow(/two different columns both named k/);
    expect(() => withAnswerNamesIn(staged.subarray(0, 3), 'TSVWithNames', ['k', 'k'])).toThrow(/two different columns both named k/);
    const native = (await bytesOf('SELECT 1 AS k, 2 AS _n1', 'Native', {})) as Buffer;
    expect(() => withAnswerNamesIn(native.subarray(0, native.length - 1), 'Native', ['k', 'k'])).toThrow(/two different columns both named k/);
    expect(() => withAnswerNamesIn(staged, 'PrettySpace', ['k', 'k'])).toThrow(/two different columns both named k/);
    expect(() => withAnswerNamesIn(staged, 'Vertical', ['k', 'k'])).toThrow(/two different columns both named k/);
    expect(() => withAnswerNamesIn(staged, 'PrettyCompact', ['k', 'k'])).toThrow(/two different columns both named k/);
  });
});
