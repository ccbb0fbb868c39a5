// The final stage's SQL rewritten so that the engine itself names two different columns alike, as
// ClickHouse's JOIN of unaliased subqueries does (one alias cannot name two expressions: 179). The
// final query F, its columns renamed positionally, is evaluated once into a materialized CTE with each
// row's number; the answer is a JOIN on that number of sides that each take columns of distinct names,
// ordered by it, so every format's bytes are the engine's own under the client's names, in F's order.
import { tokenize } from '../../sql/lexer.js';
import { quoteIdent } from '../../sql/print.js';
import type { SettingValue } from '../../clickhouse/port.js';

/** What the wrapped SQL needs: the sides without aliases, and the CTE evaluated once (a plain CTE runs per reference). */
export const ENGINE_NAMES_SETTINGS: Readonly<Record<string, SettingValue>> = {
  joined_subquery_requires_alias: 0,
  enable_materialized_cte: 1,
};

/** Whether an engine of this version() runs the wrapped SQL (checked on ClickHouse 26.7, chdb). */
export function namesAlikeOnEngine(version: string | undefined): boolean {
  const major = Number(/^(\d+)\./.exec(version ?? '')?.[1]);
  return major >= 26;
}

/**
 * Output formats that write no totals row (measured on chdb 26.7, alike-names-formats-chdb.test.ts: a WITH TOTALS answer's bytes are the same without
 * it): the wrap, which reads F as a subquery and so drops its totals, leaves their bytes as they are.
 */
export const WRITES_NO_TOTALS: ReadonlySet<string> = new Set(
  [
    'Arrow',
    'ArrowStream',
    'Avro',
    'BSONEachRow',
    'Buffers',
    'CustomSeparated',
    'CustomSeparatedWithNames',
    'CustomSeparatedWithNamesAndTypes',
    'Hash',
    'JSONColumns',
    'JSONCompactColumns',
    'JSONCompactEachRow',
    'JSONCompactEachRowWithNames',
    'JSONCompactEachRowWithNamesAndTypes',
    'JSONCompactStringsEachRow',
    'JSONCompactStringsEachRowWithNames',
    'JSONCompactStringsEachRowWithNamesAndTypes',
    'JSONEachRow',
    'JSONL',
    'JSONLines',
    'JSONObjectEachRow',
    'JSONStringsEachRow',
    'MD',
    'Markdown',
    'MsgPack',
    'MySQLWire',
    'NDJSON',
    'Native',
    'Null',
    'ORC',
    'Parquet',
    'PostgreSQLWire',
    'PrettyJSONEachRow',
    'PrettyJSONLines',
    'PrettyNDJSON',
    'RawBLOB',
    'RowBinary',
    'RowBinaryWithNames',
    'RowBinaryWithNamesAndTypes',
    'SQLInsert',
    'TSKV',
    'Values',
  ].map((f) => f.toLowerCase()),
);

/** Whether the wrap keeps an answer in `format` exact: always, but WITH TOTALS only where the format writes no totals. */
export function engineNamesKeep(format: string, withTotals: boolean): boolean {
  return !withTotals || WRITES_NO_TOTALS.has(format.trim().toLowerCase());
}

/** `finalSql`, whose columns are answered under `names` (alike names allowed), as the engine's own columns. */
export function engineNamedSql(finalSql: string, names: readonly string[]): string {
  const p = freePrefix(finalSql, names);
  const row = quoteIdent(`${p}r`);
  const cte = quoteIdent(`${p}f`);
  const inner = names.map((_, i) => quoteIdent(`${p}${i}`));
  // Each side takes the columns up to the next name it already has: the sides' concatenation is F's column order.
  const sides: string[][] = [];
  let taken = new Set<string>();
  names.forEach((name, i) => {
    if (sides.length === 0 || taken.has(name)) {
      sides.push([]);
      taken = new Set();
    }
    taken.add(name);
    sides[sides.length - 1]!.push(`${inner[i]} AS ${quoteIdent(name)}`);
  });
  const [first, ...rest] = sides.map((s) => `(SELECT ${row}, ${s.join(', ')} FROM ${cte})`);
  // Strictness written out: join_default_strictness = '' (a forwarded setting) refuses a JOIN without it.
  const from = [first!, ...rest.map((side) => `ALL INNER JOIN ${side} USING ${row}`)].join(' ');
  return (
    `WITH ${cte} AS MATERIALIZED (SELECT rowNumberInAllBlocks() AS ${row}, * FROM (${finalSql}) AS ${quoteIdent(`${p}t`)}(${inner.join(', ')})) ` +
    `SELECT * EXCEPT (${row}) FROM ${from} ORDER BY ${row}`
  );
}

/** A prefix that neither F's identifiers nor the answer's names start, so the wrap's names capture none of them. */
function freePrefix(finalSql: string, names: readonly string[]): string {
  const idents = new Set(names);
  for (const t of tokenize(finalSql)) if (t.type === 'ident' || t.type === 'qident') idents.add(t.text);
  let p = '_w';
  while ([...idents].some((n) => n.startsWith(p) && /^([rft]|\d+)$/.test(n.slice(p.length)))) p += '_';
  return p;
}
