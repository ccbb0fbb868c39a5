// The final stage's answer for the JSON API. The engine writes ClickHouse's JSON format (64-bit
// integers quoted, inf/nan as strings: the fast path's conventions), and the coordinator lifts
// what the API answers from it: meta, data, and `totals` (WITH TOTALS) and `extremes` where
// ClickHouse's JSON puts them, beside `data`.
import type { ColumnMeta, SettingValue } from '../../clickhouse/port.js';
import { ScatterError } from '../../errors.js';

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

export function parseFinalJson(bytes: Buffer): FinalJson {
  let doc: {
    meta?: ColumnMeta[];
    data?: Record<string, unknown>[];
    totals?: Record<string, unknown>;
    extremes?: { min: Record<string, unknown>; max: Record<string, unknown> };
    rows_before_limit_at_least?: number;
  };
  try {
    doc = JSON.parse(bytes.toString('utf8'));
  } catch (e) {
    throw new ScatterError('SHARD_ERROR', `the final stage's answer is not ClickHouse JSON: ${(e as Error).message}`);
  }
  if (!Array.isArray(doc.meta) || !Array.isArray(doc.data)) throw new ScatterError('SHARD_ERROR', "the final stage's answer has no meta/data");
  const out: FinalJson = { meta: doc.meta.map((m) => ({ name: m.name, type: m.type })), data: doc.data };
  if (doc.totals) out.totals = doc.totals;
  if (doc.extremes) out.extremes = doc.extremes;
  if (typeof doc.rows_before_limit_at_least === 'number') out.rowsBeforeLimitAtLeast = doc.rows_before_limit_at_least;
  return out;
}
