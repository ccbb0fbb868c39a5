// ClickHouse's `*_overflow_mode` settings whose non-'throw' values truncate: 'break' (and
// group_by's 'any') stops reading, grouping, sorting or building the set at the limit and answers
// with what it has, and no engine's answer says whether it stopped. What such an answer is labelled
// with (the JSON API's `truncated`) is built here, for every path and interface.
import type { SettingValue } from './port.js';

/** Per setting: the values that truncate, and the limits the setting governs. */
export const TRUNCATING_MODES: ReadonlyMap<string, { values: readonly string[]; limits: readonly string[] }> = new Map([
  ['read_overflow_mode', { values: ['break'], limits: ['max_rows_to_read', 'max_bytes_to_read'] }],
  ['group_by_overflow_mode', { values: ['break', 'any'], limits: ['max_rows_to_group_by'] }],
  ['sort_overflow_mode', { values: ['break'], limits: ['max_rows_to_sort', 'max_bytes_to_sort'] }],
  ['set_overflow_mode', { values: ['break'], limits: ['max_rows_in_set', 'max_bytes_in_set'] }],
  ['join_overflow_mode', { values: ['break'], limits: ['max_rows_in_join', 'max_bytes_in_join'] }],
  ['distinct_overflow_mode', { values: ['break'], limits: ['max_rows_in_distinct', 'max_bytes_in_distinct'] }],
]);

/** A truncating mode in effect: the setting, its value, and the limits asked for with it (absent: the servers' own). */
export interface TruncatingMode {
  setting: string;
  mode: string;
  limits: Record<string, SettingValue>;
}

/** The truncating modes among `settings` (names as ClickHouse spells them, values checked already). */
export function truncatingModes(settings: Readonly<Record<string, SettingValue>> | undefined): TruncatingMode[] {
  const out: TruncatingMode[] = [];
  for (const [setting, spec] of TRUNCATING_MODES) {
    const v = settings?.[setting];
    const mode = v === undefined ? '' : String(v).trim().toLowerCase();
    if (!spec.values.includes(mode)) continue;
    const limits: Record<string, SettingValue> = {};
    for (const l of spec.limits) if (settings?.[l] !== undefined) limits[l] = settings[l]!;
    out.push({ setting, mode, limits });
  }
  return out;
}

/** What the answer says of a truncating mode: where it applies and that the answer may lack rows. */
export function truncationNote(m: TruncatingMode): string {
  const limits = Object.entries(m.limits).map(([k, v]) => `${k} = ${String(v)}`);
  const at = limits.length ? limits.join(', ') : `the servers' own ${TRUNCATING_MODES.get(m.setting)!.limits.join(' / ')}`;
  const what =
    m.setting === 'group_by_overflow_mode' && m.mode === 'any'
      ? 'stop creating groups there and aggregate the remaining rows into the groups they have'
      : 'stop there and answer with what they have';
  return (
    `${m.setting} = '${m.mode}' at ${at}: each shard and the final stage ${what}, as ClickHouse's Distributed table does; ` +
    'the answer may lack rows (or groups, or rows of a group) and no engine says whether a limit was reached'
  );
}
