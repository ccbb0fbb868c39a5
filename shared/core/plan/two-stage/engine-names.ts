// The final stage's SQL rewritten so that the engine itself names two different columns alike, as
// ClickHouse's JOIN of unaliased subqueries does (one alias cannot name two expressions: 179). The
// final query F, its columns renamed positionally, is evaluated into a CTE with each row's number; the
// answer is a JOIN on that number of sides that each take columns of distinct names, ordered by it, so
// every format's bytes are the engine's own under the client's names, in F's order.
import { tokenize } from '../../sql/lexer.js';
import { quoteIdent } from '../../sql/print.js';
import type { SettingValue } from '../../clickhouse/port.js';
import { isRowSensitive } from '../row-sensitive.js';

/**
 * How the wrap evaluates F: `once`, into a materialized CTE, which drops F's totals row (the engine stores it as a
 * table); or `perSide`, a plain CTE each side evaluates again in one thread, so each evaluation is the same rows in
 * the same order and a JOIN's totals row is its sides' totals rows joined: F's totals under the client's names.
 */
export type EngineEvaluation = 'once' | 'perSide';

/** The names the final stage's engine writes, and how it evaluates F for them. */
export interface EngineNaming {
  names: readonly string[];
  evaluation: EngineEvaluation;
}

/** What the wrapped SQL needs: the sides without aliases, and the CTE evaluated once (a plain CTE runs per reference). */
export const ENGINE_NAMES_SETTINGS: Readonly<Record<string, SettingValue>> = {
  joined_subquery_requires_alias: 0,
  enable_materialized_cte: 1,
};

/**
 * What the per-side wrap needs: the sides without aliases; one thread, so every evaluation of F orders its rows
 * alike; and its LEFT JOIN's columns as they are, by an algorithm that joins totals (ClickHouse's defaults for a JOIN
 * of F's own: engineEvaluation leaves the query's own settings of them to the renaming).
 */
export const PER_SIDE_SETTINGS: Readonly<Record<string, SettingValue>> = {
  joined_subquery_requires_alias: 0,
  max_threads: 1,
  join_use_nulls: 0,
  join_algorithm: 'hash',
};

/** The settings the wrap of `evaluation` runs under. */
export const engineNamingSettings = (evaluation: EngineEvaluation) => (evaluation === 'once' ? ENGINE_NAMES_SETTINGS : PER_SIDE_SETTINGS);

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

/**
 * Output formats that write `rows_before_limit_at_least` (measured on chdb 26.7 with a LIMIT): F evaluated per side
 * counts every evaluation's rows there, so WITH TOTALS these keep the renaming of their bytes (their names are JSON's
 * or XML's, given back whatever they hold).
 */
export const WRITES_ROWS_BEFORE_LIMIT: ReadonlySet<string> = new Set(
  [
    'JSON',
    'JSONColumnsWithMetadata',
    'JSONCompact',
    'JSONCompactEachRowWithProgress',
    'JSONCompactStrings',
    'JSONCompactStringsEachRowWithProgress',
    'JSONEachRowWithProgress',
    'JSONStrings',
    'JSONStringsEachRowWithProgress',
    'XML',
  ].map((f) => f.toLowerCase()),
);

/**
 * How the wrap answers F in `format` exactly, or undefined where it cannot: without totals, or in a format that
 * writes none, F once; WITH TOTALS, F per side, unless the format counts the rows before LIMIT, F calls a function
 * whose value differs between evaluations (a random draw, the block's row number...), or F joins under the
 * query's own join_use_nulls or join_algorithm (the wrap's JOIN settings would be its too).
 */
export function engineEvaluation(
  format: string,
  withTotals: boolean,
  finalSql: string,
  settings: Readonly<Record<string, SettingValue>> = {},
): EngineEvaluation | undefined {
  const f = format.trim().toLowerCase();
  if (!withTotals || WRITES_NO_TOTALS.has(f)) return 'once';
  if (WRITES_ROWS_BEFORE_LIMIT.has(f)) return undefined;
  const tokens = tokenize(finalSql);
  const name = (i: number) => tokens[i]!.type === 'ident' || tokens[i]!.type === 'qident';
  if (tokens.some((t, i) => name(i) && tokens[i + 1]?.text === '(' && isRowSensitive(t.text))) return undefined;
  const joins = tokens.some((t) => t.type === 'ident' && t.upper === 'JOIN');
  const own = Object.keys(settings).some((k) => k === 'join_use_nulls' || k === 'join_algorithm');
  return joins && own ? undefined : 'perSide';
}

/** `finalSql`, whose columns are answered under `names` (alike names allowed), as the engine's own columns. */
export function engineNamedSql(finalSql: string, names: readonly string[], evaluation: EngineEvaluation = 'once'): string {
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
  // Strictness written out: join_default_strictness = '' (a forwarded setting) refuses a JOIN without it. Per side,
  // a LEFT JOIN (every side has the same numbers, so it is the INNER one): an INNER JOIN whose right side has no rows
  // skips its left side, totals row and all (measured on chdb 26.7).
  const kind = evaluation === 'once' ? 'ALL INNER JOIN' : 'ALL LEFT JOIN';
  const from = [first!, ...rest.map((side) => `${kind} ${side} USING ${row}`)].join(' ');
  const numbered = `SELECT rowNumberInAllBlocks() AS ${row}, * FROM (${finalSql}) AS ${quoteIdent(`${p}t`)}(${inner.join(', ')})`;
  return `WITH ${cte} AS ${evaluation === 'once' ? 'MATERIALIZED ' : ''}(${numbered}) SELECT * EXCEPT (${row}) FROM ${from} ORDER BY ${row}`;
}

/** A prefix that neither F's identifiers nor the answer's names start, so the wrap's names capture none of them. */
function freePrefix(finalSql: string, names: readonly string[]): string {
  const idents = new Set(names);
  for (const t of tokenize(finalSql)) if (t.type === 'ident' || t.type === 'qident') idents.add(t.text);
  let p = '_w';
  while ([...idents].some((n) => n.startsWith(p) && /^([rft]|\d+)$/.test(n.slice(p.length)))) p += '_';
  return p;
}
