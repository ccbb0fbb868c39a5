// The final stage's answer for the JSON API. The engine writes ClickHouse's JSON format (64-bit
// integers quoted, inf/nan as strings: the fast path's conventions), and the coordinator lifts
// what the API answers from it: meta, data, and `totals` (WITH TOTALS) and `extremes` where
// ClickHouse's JSON puts them, beside `data`.
import type { ColumnMeta, SettingValue } from '../../clickhouse/port.js';
import { ScatterError } from '../../errors.js';
import { hasNegativeZero, needsExactNumbers, quoteInexactNumbers } from '../../protocol/exact-json.js';
import { answerRowText } from '../../protocol/answer-json.js';
import { columnStructure } from '../../clickhouse/column-structure.js';

/** The format and settings of a final stage whose answer becomes the API's JSON. */
export const JSON_FINAL_FORMAT = 'JSON';
export const JSON_FINAL_SETTINGS: Readonly<Record<string, SettingValue>> = {
  output_format_json_quote_64bit_integers: 1,
  output_format_json_quote_denormals: 1,
};

export interface FinalJson {
  meta: ColumnMeta[];
  data: Record<string, unknown>[];
  totals?: Record<string, unknown>;
  extremes?: { min: Record<string, unknown>; max: Record<string, unknown> };
  rowsBeforeLimitAtLeast?: number;
}

interface JsonDoc {
  meta?: ColumnMeta[];
  data?: Record<string, unknown>[];
  totals?: Record<string, unknown>;
  extremes?: { min: Record<string, unknown>; max: Record<string, unknown> };
  rows_before_limit_at_least?: number;
}

export function parseFinalJson(bytes: Buffer): FinalJson {
  let text = bytes.toString('utf8');
  // The answer's value spellings are the fast path's (docs/api.md): Decimal digits and -0 as text.
  // The meta comes first in the document, so its types decide before anything is parsed.
  const metaEnd = text.indexOf('"data"');
  const exact = needsExactNumbers([text.slice(0, metaEnd < 0 ? text.length : metaEnd)]) || hasNegativeZero(text);
  if (exact) text = quoteInexactNumbers(text);
  let doc: JsonDoc;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    const repaired = totalsFirst(text);
    if (!repaired) throw new ScatterError('SHARD_ERROR', `the final stage's answer is not ClickHouse JSON: ${(e as Error).message}`);
    doc = repaired;
  }
  if (!Array.isArray(doc.meta) || !Array.isArray(doc.data)) throw new ScatterError('SHARD_ERROR', "the final stage's answer has no meta/data");
  const meta = doc.meta.map((m) => ({ name: m.name, type: m.type }));
  const spell = exact ? decimalsAsText(meta) : (r: Record<string, unknown>) => r;
  const out: FinalJson = { meta, data: doc.data.map(spell) };
  if (doc.totals) out.totals = spell(doc.totals);
  if (doc.extremes) out.extremes = { min: spell(doc.extremes.min), max: spell(doc.extremes.max) };
  if (typeof doc.rows_before_limit_at_least === 'number') out.rowsBeforeLimitAtLeast = doc.rows_before_limit_at_least;
  return out;
}

/**
 * One JSONEachRow line the engine wrote with JSON_FINAL_SETTINGS, in the spellings parseFinalJson
 * gives `data` (Decimal digits and -0 as text): the streamed JSON answer's rows, a line at a time.
 */
export function rowLineSpeller(meta: ColumnMeta[]): (line: string) => string {
  const decimals = needsExactNumbers(meta.map((m) => m.type));
  const spell = decimalsAsText(meta);
  const text = answerRowText(meta);
  return (line) => (decimals || hasNegativeZero(line) ? text(spell(JSON.parse(quoteInexactNumbers(line)))) : line);
}

/**
 * A row with every Decimal column's value as its text. After quoteInexactNumbers a Decimal is a
 * string already unless its double prints back as the same digits, so String() of it is exact.
 */
function decimalsAsText(meta: ColumnMeta[]): (row: Record<string, unknown>) => Record<string, unknown> {
  const names = meta.filter((m) => /^(Nullable\()?Decimal/.test(m.type)).map((m) => m.name);
  if (names.length === 0) return (r) => r;
  return (row) => {
    const out = { ...row };
    for (const n of names) if (typeof out[n] === 'number') out[n] = String(out[n]);
    return out;
  };
}

/**
 * chdb (ClickHouse 26.7) writes a WITH TOTALS answer that has no rows out of order: the end of the
 * data array and the totals object first, then the document with an empty, comma-broken data array
 * (`], "totals": {...}{ "meta": [...], "data": [ , "rows": 0, ...}`). Read that one shape back;
 * anything else stays an error.
 */
function totalsFirst(text: string): JsonDoc | undefined {
  const m = /^\s*\],\s*"totals":\s*/.exec(text);
  if (!m) return undefined;
  const end = objectEnd(text, m[0].length);
  if (end === undefined) return undefined;
  try {
    const totals = JSON.parse(text.slice(m[0].length, end)) as Record<string, unknown>;
    const rest = text.slice(end).replace(/("data":\s*\[)\s*,/, '$1],');
    const doc = JSON.parse(rest) as JsonDoc;
    if (!Array.isArray(doc.data) || doc.data.length !== 0) return undefined;
    return { ...doc, totals };
  } catch {
    return undefined;
  }
}

/** The index just after the JSON object starting at `start` (strings and escapes respected). */
function objectEnd(text: string, start: number): number | undefined {
  if (text[start] !== '{') return undefined;
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i + 1;
  }
  return undefined;
}

/**
 * The answer under the client's column names where the final stage gave a later column of a taken name
 * its own alias. A row keeps one key per name, holding the last column's value, as JSON.parse reads
 * ClickHouse's JSON of such an answer. ClickHouse refuses two columns of one name whose types differ (352).
 */
export function withAnswerNames(json: FinalJson, names: string[]): FinalJson {
  refuseAlikeTypes(
    json.meta.map((m, i) => names[i] ?? m.name),
    json.meta.map((m) => m.type),
  );
  const meta = json.meta.map((m, i) => ({ ...m, name: names[i] ?? m.name }));
  const rename = (row: Record<string, unknown>): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    json.meta.forEach((m, i) => {
      out[names[i] ?? m.name] = row[m.name];
    });
    return out;
  };
  const out: FinalJson = { ...json, meta, data: json.data.map(rename) };
  if (json.totals) out.totals = rename(json.totals);
  if (json.extremes) out.extremes = { min: rename(json.extremes.min), max: rename(json.extremes.max) };
  return out;
}

/** ClickHouse refuses two columns of one name whose types differ (352), in every format, naming each with its column's structure. */
export function refuseAlikeTypes(names: string[], types: string[]): void {
  names.forEach((name, i) => {
    const first = types[names.indexOf(name)]!;
    const column = (type: string) => {
      const structure = columnStructure(type);
      return structure ? `${name} ${type} ${structure}` : `${name} ${type}`;
    };
    if (first !== types[i])
      throw new ScatterError(
        'QUERY_ERROR',
        `Block structure mismatch in (columns with identical name must have identical structure) stream: different types:\n${column(first)}\n${column(types[i]!)}`,
        {
          details: { clickhouse: { code: 352, name: 'AMBIGUOUS_COLUMN_NAME' } },
        },
      );
  });
}
