// SETTINGS clauses inside subqueries (`x IN (SELECT ... SETTINGS read_overflow_mode = 'break')`)
// travel to the shards in the shard SQL itself, so they pass the same rules as the outer clause
// and the request's `settings`: the allowlist, checked values, no runtime-owned settings (a
// truncating overflow mode there: truncating-modes.ts). ch-scatter's own knobs (skipping,
// transfer limits) apply to the whole query only.
import type { SelectStatement, SettingItem } from '../sql/ast.js';
import type { QueryDefaults } from '../config/schema.js';
import { forEachSettingsClause } from '../sql/visit.js';
import { errorAt } from './position.js';
import { resolveSettings } from './settings.js';
import { PLANNER_KNOBS } from './setting-fate.js';

export { PLANNER_KNOBS } from './setting-fate.js';

/** Throws (as resolveSettings does, with the position) at the first bad SETTINGS item in any subquery. */
export function checkNestedSettings(stmt: SelectStatement, defaults: QueryDefaults): void {
  forEachSettingsClause(stmt, (settings, nested) => {
    if (nested) checkClause(settings, defaults);
  });
}

function checkClause(settings: SettingItem[], defaults: QueryDefaults): void {
  for (const s of settings) {
    if (PLANNER_KNOBS.has(s.name))
      throw errorAt('UNSUPPORTED', `setting ${s.name} applies to the whole query: set it on the outer query or in "settings", not in a subquery`, s.value);
  }
  resolveSettings(undefined, settings, defaults, {});
}
