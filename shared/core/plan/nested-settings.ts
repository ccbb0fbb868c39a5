// SETTINGS clauses inside subqueries (`x IN (SELECT ... SETTINGS read_overflow_mode = 'break')`)
// travel to the shards in the shard SQL itself, so they pass the same rules as the outer clause
// and the request's `settings`: the allowlist, checked values, no runtime-owned or truncating
// settings. ch-scatter's own knobs (skipping, transfer limits) apply to the whole query only.
import type { SelectQuery, SelectStatement, SettingItem, TableExpr } from '../sql/ast.js';
import type { QueryDefaults } from '../config/schema.js';
import { walkExpr, exprsOfSelect } from '../sql/visit.js';
import { errorAt } from './position.js';
import { resolveSettings } from './settings.js';

/** ch-scatter's planner knobs among ClickHouse's setting names: read by the planner (settings.ts), never forwarded. */
export const PLANNER_KNOBS: ReadonlySet<string> = new Set([
  'optimize_skip_unused_shards',
  'optimize_skip_unused_shards_rewrite_in',
  'force_optimize_skip_unused_shards',
  'prefer_global_in_and_join',
  'distributed_product_mode',
  'max_rows_to_transfer',
  'max_bytes_to_transfer',
  'transfer_overflow_mode',
]);

/** Throws (as resolveSettings does, with the position) at the first bad SETTINGS item in any subquery. */
export function checkNestedSettings(stmt: SelectStatement, defaults: QueryDefaults): void {
  const selects = stmt.kind === 'union' ? stmt.selects : [stmt];
  for (const q of selects) visitSelect(q, defaults, true);
}

function checkClause(settings: SettingItem[] | undefined, defaults: QueryDefaults): void {
  if (!settings?.length) return;
  for (const s of settings) {
    if (PLANNER_KNOBS.has(s.name))
      throw errorAt('UNSUPPORTED', `setting ${s.name} applies to the whole query: set it on the outer query or in "settings", not in a subquery`, s.value);
  }
  resolveSettings(undefined, settings, defaults, {});
}

function visitSelect(q: SelectQuery, defaults: QueryDefaults, top: boolean): void {
  if (!top) checkClause(q.settings, defaults);
  const tables: TableExpr[] = q.from ? [q.from.table, ...q.from.joins.map((j) => j.table)] : [];
  for (const t of tables) if (t.kind === 'subqueryTable') checkStatement(t.query, defaults);
  for (const { expr } of exprsOfSelect(q)) {
    walkExpr(expr, (e) => {
      if (e.kind === 'subquery') checkStatement(e.query, defaults);
      return undefined;
    });
  }
}

function checkStatement(stmt: SelectStatement, defaults: QueryDefaults): void {
  if (stmt.kind === 'union') {
    checkClause(stmt.settings, defaults);
    for (const q of stmt.selects) visitSelect(q, defaults, false);
  } else visitSelect(stmt, defaults, false);
}
