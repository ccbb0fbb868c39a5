// The one reader of a setting's truth value, with ClickHouse's rule for Bool settings (SettingFieldBool,
// checked on chdb): the strings 'true' / 'false' in any case and '0' / '1', the numbers 0 and 1 (1.0
// too), the literals true / false. Anything else ClickHouse refuses: a string with 467 (`''`, 'on',
// ' 1', '2'), a number with 70 (2, -1, 1.5). A UInt64 setting read as a flag
// (force_optimize_skip_unused_shards) is on when it is not 0.
import type { SettingValue } from './port.js';

/** A Bool setting's value as ClickHouse reads it; undefined where ClickHouse refuses it (see boolSettingRefusal). */
export function boolSetting(v: SettingValue): boolean | undefined {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v === 0 ? false : v === 1 ? true : undefined;
  if (v === '0') return false;
  if (v === '1') return true;
  const s = v.toLowerCase();
  return s === 'false' ? false : s === 'true' ? true : undefined;
}

/** A UInt64 setting read as a flag: on when it is a non-zero integer; undefined where ClickHouse refuses the value. */
export function uintSettingFlag(v: SettingValue): boolean | undefined {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return Number.isInteger(v) && v >= 0 ? v !== 0 : undefined;
  return /^\d{1,20}$/.test(v) ? /[1-9]/.test(v) : undefined;
}

/** ClickHouse's refusal of a value a Bool setting cannot hold: its code, name and text. */
export function boolSettingRefusal(v: SettingValue): { code: number; name: string; message: string } {
  if (typeof v === 'string') return { code: 467, name: 'CANNOT_PARSE_BOOL', message: `Cannot parse bool from string '${v}'` };
  return { code: 70, name: 'CANNOT_CONVERT_TYPE', message: `Field value ${String(v)} is out of range of bool type` };
}
