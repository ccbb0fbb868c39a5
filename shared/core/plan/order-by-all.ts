// `ORDER BY ALL`: every SELECT column in order, each with the clause's direction and NULLS, as
// ClickHouse's analyzer spells it out under enable_order_by_all (on by default). A SELECT column named
// `all` makes it ambiguous: ClickHouse's 183. With the setting off, ALL is the column `all`. Spelled
// out before either path plans (expand-columns.ts, after any `*` is), so every engine, 18.16 included,
// gets the plain ORDER BY.
import type { SettingValue } from '../clickhouse/port.js';
import { boolSetting } from '../clickhouse/setting-truth.js';
import type { Expr, OrderItem, SelectQuery, SelectStatement } from '../sql/ast.js';
import { cloneAst } from '../sql/ast.js';
import { outputNames } from '../sql/names.js';
import { errorAt } from './position.js';
import { askedSetting } from './settings.js';

export const ORDER_BY_ALL_SETTING = 'enable_order_by_all';

/** Whether ORDER BY ALL means every column (the SETTINGS clause over the request's settings; ClickHouse's default: on). */
export function orderByAllOn(stmt: SelectStatement, request: Record<string, SettingValue> | undefined): boolean {
  const { raw } = askedSetting(ORDER_BY_ALL_SETTING, request, stmt);
  // A value ClickHouse refuses is the settings check's to refuse; until then the default holds.
  return raw === undefined || boolSetting(raw) !== false;
}

/** `q` with its ORDER BY ALL written out over `q.columns` (which hold no `*`), or as the column `all` when the setting is off. */
export function spellOrderByAll(q: SelectQuery, on: boolean): SelectQuery {
  if (!q.orderByAll) return q;
  const { orderByAll, ...rest } = q;
  const { pos, ...modifiers } = orderByAll;
  const item = (expr: Expr): OrderItem => ({ expr, ...modifiers });
  if (!on) return { ...rest, orderBy: [item({ kind: 'column', parts: ['all'], ...(pos ? { pos } : {}) })] };
  if (outputNames(q).some((n) => n.toLowerCase() === 'all'))
    throw errorAt(
      'QUERY_ERROR',
      "Cannot use ORDER BY ALL to sort a column with name 'all', please disable setting `enable_order_by_all` and try again",
      orderByAll,
      { clickhouse: { code: 183, name: 'UNEXPECTED_EXPRESSION' } },
    );
  // An aliased column by its alias, as the item itself (the same node wherever ClickHouse resolves it), another as a copy.
  const keys = q.columns.map((c): Expr => {
    if (c.alias !== undefined) return { kind: 'column', parts: [c.alias], selectItem: true, ...(c.pos ? { pos: c.pos } : {}) };
    return cloneAst(c);
  });
  return { ...rest, orderBy: keys.map(item) };
}
