// Small text-level helpers both adapters share: quoting, the SETTINGS clause, and making
// shipped external tables (`_data_<hash>`) readable by substituting their name in the SQL.
// They work on SQL text (not the AST) because the adapters receive SQL text from the port; the
// text is read with the SQL front end's lexer (shared/core/sql/lexer.ts), never a second one.
import { tokenize } from '../sql/lexer.js';
import { backquote, quoteStringLiteral } from '../sql/quote.js';
import type { ColumnMeta, ExternalTable, SettingValue, StageTable } from './port.js';

const SETTING_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** One setting value as SQL: numbers bare, booleans 1/0, strings quoted. */
export function settingLiteral(v: SettingValue): string {
  if (typeof v === 'boolean') return v ? '1' : '0';
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new TypeError(`setting value ${v} is not a finite number`);
    return String(v);
  }
  return quoteStringLiteral(v);
}

/**
 * ` SETTINGS a=1, b='x'` for appending to a SETTINGS-free statement. Names are checked, since
 * they are spliced into SQL; an empty record gives ''. Starts with a newline so a trailing
 * `-- comment` in the SQL cannot swallow the clause.
 */
export function settingsClause(settings: Record<string, SettingValue> | undefined): string {
  const entries = Object.entries(settings ?? {});
  if (entries.length === 0) return '';
  const parts = entries.map(([k, v]) => {
    if (!SETTING_NAME.test(k)) throw new TypeError(`invalid setting name ${JSON.stringify(k)}`);
    return `${k} = ${settingLiteral(v)}`;
  });
  return `\nSETTINGS ${parts.join(', ')}`;
}

/** Drop trailing whitespace and semicolons, so a clause can be appended. */
export function trimStatement(sql: string): string {
  return sql.replace(/[\s;]+$/u, '');
}

/**
 * `name Type, name2 Type2` for structure arguments. Plain names stay bare: 18.16 reads an
 * external table's `_structure` literally, so a backquoted name would become part of the name.
 */
export function structureOf(t: ExternalTable): string {
  return t.columns.map((c) => `${SETTING_NAME.test(c.name) ? c.name : backquote(c.name)} ${c.type}`).join(', ');
}

/** An external table's data as JSONEachRow lines: its pre-encoded text, else its rows encoded. */
export function externalJsonEachRow(t: ExternalTable): string {
  return t.jsonEachRow ?? shippedJsonEachRow(t.rows);
}

// JSON.stringify writes a lone surrogate as `\udcXX` (after an even run of backslashes: not itself escaped).
const ESCAPED_BYTE = /(?<!\\)((?:\\\\)*)\\u(dc[89a-f][0-9a-f])/g;

/**
 * Shipped rows as JSONEachRow text whose surrogate-escaped bytes (strings that are not UTF-8) stay
 * the characters they are, not JSON's `\udcXX`: the adapters write each as its byte, which
 * ClickHouse's JSON reader copies as it is, so the engine reads the bytes the value came with.
 */
export function shippedJsonEachRow(rows: Record<string, unknown>[]): string {
  const text = toJsonEachRow(rows);
  return text.includes('\\udc') ? text.replace(ESCAPED_BYTE, (_m, run: string, hex: string) => run + String.fromCharCode(Number.parseInt(hex, 16))) : text;
}

/** True when an external table carries no row. */
export function externalIsEmpty(t: ExternalTable): boolean {
  if (t.data) return t.data.base64 === '';
  return t.jsonEachRow !== undefined ? t.jsonEachRow.trim() === '' : t.rows.length === 0;
}

/** Rows as JSONEachRow text; BigInt becomes a string (ClickHouse JSON conventions). */
export function toJsonEachRow(rows: Record<string, unknown>[]): string {
  // Rows that came over JSON hold no BigInt: plain JSON.stringify (a replacer function is called for
  // every value, several times the cost). A row with a BigInt (built in-process) throws and takes the
  // slow path.
  return rows
    .map((r) => {
      try {
        return JSON.stringify(r);
      } catch {
        return JSON.stringify(r, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
      }
    })
    .join('\n');
}

// Keywords that may follow a table expression; anything else identifier-like after the
// table name is an implicit alias.
const FOLLOW_KEYWORDS = new Set(
  (
    'WHERE ON USING GROUP ORDER LIMIT HAVING PREWHERE SETTINGS FORMAT UNION JOIN INNER LEFT RIGHT FULL CROSS ' +
    'ANY ALL GLOBAL ARRAY FINAL SAMPLE WINDOW QUALIFY INTERSECT EXCEPT LOCAL ASOF SEMI ANTI PASTE OUTER OFFSET AS'
  ).split(' '),
);

// Table-name tokens for substituteTables: identifiers (bare or quoted), punctuation, and
// everything else. Read with the SQL front end's lexer, the one lexer of the code base: it reads
// quotes, escapes, comments and the Unicode quotes as ClickHouse does.
interface TextToken {
  kind: 'ident' | 'quoted' | 'punct' | 'other';
  text: string; // identifier name (unquoted) or the punctuation
  start: number;
  end: number;
}

function textTokens(sql: string): TextToken[] {
  return tokenize(sql)
    .filter((t) => t.type !== 'eof')
    .map((t) => ({
      kind: t.type === 'ident' ? 'ident' : t.type === 'qident' ? 'quoted' : t.type === 'op' ? 'punct' : 'other',
      text: t.text,
      start: t.start,
      end: t.end,
    }));
}

/**
 * Replace every table reference to one of `external` (shipped external tables, or a stage table)
 * by `replacement(table)` (a parenthesised subquery). In FROM/JOIN position without an alias, `AS <name>` is added so qualified column
 * references (`_data_x.c`) keep resolving. Names qualified by a database (`db._data_x`) and
 * occurrences inside strings or comments are left alone.
 */
export function substituteTables<T extends { name: string }>(sql: string, external: readonly T[] | undefined, replacement: (t: T) => string): string {
  if (!external || external.length === 0) return sql;
  const byName = new Map(external.map((t) => [t.name, t]));
  let toks: TextToken[];
  try {
    toks = textTokens(sql);
  } catch {
    return sql; // text ClickHouse cannot parse either: let it report the error itself
  }
  let out = '';
  let last = 0;
  for (let k = 0; k < toks.length; k++) {
    const t = toks[k]!;
    if (t.kind !== 'ident' && t.kind !== 'quoted') continue;
    const ext = byName.get(t.text);
    if (!ext) continue;
    const prev = toks[k - 1];
    const next = toks[k + 1];
    if (prev?.kind === 'punct' && prev.text === '.') continue; // db.name: not ours
    if (next?.kind === 'punct' && next.text === '.') continue; // name.column: a qualifier, keep it
    if (next?.kind === 'punct' && next.text === '(') continue; // a function call, not a table
    const afterFromOrJoin = prev?.kind === 'ident' && /^(FROM|JOIN)$/i.test(prev.text);
    const hasAlias =
      next !== undefined && (next.kind === 'quoted' || (next.kind === 'ident' && (!FOLLOW_KEYWORDS.has(next.text.toUpperCase()) || /^AS$/i.test(next.text))));
    let rep = replacement(ext);
    if (afterFromOrJoin && !hasAlias) rep += ` AS ${backquote(ext.name)}`;
    out += sql.slice(last, t.start) + rep;
    last = t.end;
  }
  return out + sql.slice(last);
}

/**
 * The settings among `names` that the SQL text assigns in a SETTINGS clause, at any level
 * (a subquery's clause applies to that subquery; ClickHouse keeps the FIRST clause's value when
 * a statement has two, so one the adapter appends cannot win over one in the text). A query-level
 * SETTINGS clause also overrides settings passed as HTTP parameters, so the shard refuses SQL
 * that sets any setting it enforces.
 *
 * Every spelling ClickHouse reads as that setting's name counts: bare, `backquoted`, "double
 * quoted", “Unicode quoted”, with escapes (`max_execution_\x74ime`), comments between the tokens
 * and any letter case (ClickHouse refuses other cases as unknown settings today; refusing them
 * here costs nothing). Matching is deliberately wide: any such name after a SETTINGS keyword,
 * whatever follows it. Throws the lexer's SYNTAX_ERROR for text the lexer cannot read (e.g.
 * `$$heredoc$$` strings): a guard must refuse what it cannot read, never guess.
 */
export function assignedSettings(sql: string, names: readonly string[] | ((name: string) => boolean)): string[] {
  const byLower = typeof names === 'function' ? undefined : new Map(names.map((n) => [n.toLowerCase(), n]));
  const found = new Set<string>();
  let inSettings = false;
  for (const t of tokenize(sql)) {
    if (t.type === 'ident' && t.upper === 'SETTINGS') {
      inSettings = true;
      continue;
    }
    if (!inSettings || (t.type !== 'ident' && t.type !== 'qident')) continue;
    const name = byLower ? byLower.get(t.text.toLowerCase()) : (names as (name: string) => boolean)(t.text) ? t.text : undefined;
    if (name !== undefined) found.add(name);
  }
  return [...found];
}

/** Every name that follows a FORMAT keyword in the text (wide, as assignedSettings: a guard, not a parser). */
export function formatsNamed(sql: string): string[] {
  const out: string[] = [];
  let afterFormat = false;
  for (const t of tokenize(sql)) {
    if (afterFormat && (t.type === 'ident' || t.type === 'qident')) out.push(t.text);
    afterFormat = t.type === 'ident' && t.upper === 'FORMAT';
  }
  return out;
}

/** A stage table's name: an identifier, spliced into DDL unquoted. */
export const STAGE_TABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/**
 * `CREATE TEMPORARY TABLE name (cols)` for a StageTable. The name is checked (it is spliced into
 * SQL, and a temporary table has no database); column names are backquoted, types are the
 * shards' own type text, which the parser of the engine then checks.
 */
export function temporaryTableDdl(t: StageTable): string {
  if (!STAGE_TABLE_NAME.test(t.name)) throw new TypeError(`invalid stage table name ${JSON.stringify(t.name)}`);
  if (t.columns.length === 0) throw new TypeError(`stage table ${t.name} has no columns`);
  // Type text comes from the shards' own headers; still, nothing that could end the statement.
  for (const c of t.columns)
    if (/[;`]/.test(c.type) || [...c.type].some((ch) => ch.charCodeAt(0) < 0x20))
      throw new TypeError(`stage table ${t.name}: unexpected type text ${JSON.stringify(c.type)}`);
  return `CREATE TEMPORARY TABLE ${t.name} (${t.columns.map((c) => `${backquote(c.name)} ${c.type}`).join(', ')})`;
}

/**
 * The setting a server needs to create a LowCardinality column (18.16 refuses without it; later
 * servers accept it as obsolete), for a stage table of these columns.
 */
export function lowCardinalityOf(columns: readonly ColumnMeta[]): Record<string, string> {
  return columns.some((c) => c.type.includes('LowCardinality')) ? { allow_experimental_low_cardinality_type: '1' } : {};
}

/** The format name if it is a plain identifier (it is spliced after FORMAT), else a TypeError. */
export function checkedFormat(format: string): string {
  if (!/^[A-Za-z][A-Za-z0-9]{0,63}$/.test(format)) throw new TypeError(`invalid output format name ${JSON.stringify(format)}`);
  return format;
}
