// ClickHouse refuses a JOIN with a subquery or table function that has no alias, on either side and at
// any depth (206 ALIAS_REQUIRED), unless joined_subquery_requires_alias = 0 (its default is 1); the two
// sides of a PASTE JOIN are not checked (measured on chdb 26.7). Checked once on the statement as written: the rewrite that ships a GLOBAL JOIN's rows names a table in the
// subquery's place, so no engine would refuse it after.
import type { SettingValue } from '../clickhouse/port.js';
import { boolSetting } from '../clickhouse/setting-truth.js';
import type { SelectQuery, SelectStatement } from '../sql/ast.js';
import { exprsOfSelect, walkExpr, fromTables } from '../sql/visit.js';
import { errorAt } from './position.js';
import { settingValueOf } from './settings.js';

const SETTING = 'joined_subquery_requires_alias';

/** joined_subquery_requires_alias as the statement and the request set it (its default is 1). */
export function aliasRequired(stmt: SelectStatement, request: Record<string, SettingValue> | undefined): boolean {
  const clause = stmt.kind === 'union' ? (stmt.settings ?? stmt.selects[stmt.selects.length - 1]!.settings) : stmt.settings;
  const item = clause?.filter((s) => s.name === SETTING).pop();
  const v = item ? settingValueOf(item.value, SETTING) : request?.[SETTING];
  // A value ClickHouse refuses is the settings check's to report.
  return v === undefined || boolSetting(v) !== false;
}

function check(q: SelectQuery): void {
  if (q.from?.joins.length) {
    // ClickHouse checks the tables of each join but a PASTE JOIN (its left side past the first join is a join).
    const joins = q.from.joins;
    const checked = [...(joins[0]!.type === 'PASTE' ? [] : [q.from.table]), ...joins.filter((j) => j.type !== 'PASTE').map((j) => j.table)];
    for (const t of checked) {
      if ((t.alias !== undefined && !(t.kind === 'subqueryTable' && t.planAlias)) || t.kind === 'table') continue;
      const what = t.kind === 'subqueryTable' ? 'subquery' : `table function ${t.name}()`;
      throw errorAt('QUERY_ERROR', `JOIN: no alias for the ${what} (set ${SETTING} = 0 to disable restriction)`, t, {
        clickhouse: { code: 206, name: 'ALIAS_REQUIRED' },
      });
    }
  }
}

function eachSelect(stmt: SelectStatement, fn: (q: SelectQuery) => void): void {
  for (const q of stmt.kind === 'union' ? stmt.selects : [stmt]) {
    fn(q);
    for (const t of fromTables(q)) if (t.kind === 'subqueryTable') eachSelect(t.query, fn);
    for (const { expr } of exprsOfSelect(q))
      walkExpr(expr, (x) => {
        if (x.kind !== 'subquery') return;
        eachSelect(x.query, fn);
        return false;
      });
  }
}

/** Throws ClickHouse's 206 for the first JOIN table that needs an alias and has none. */
export function refuseUnaliasedJoinTables(stmt: SelectStatement, request: Record<string, SettingValue> | undefined): void {
  if (aliasRequired(stmt, request)) eachSelect(stmt, check);
}
