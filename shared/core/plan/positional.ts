// Positional arguments, settled once before either path plans: ClickHouse 26 reads an integer
// literal in GROUP BY / ORDER BY / LIMIT BY as a position in the SELECT list
// (enable_positional_arguments = 1, the default) or as a constant (= 0). Both paths then send the
// engines keys that mean the same on every engine and setting: a position becomes the column it
// names, and a constant key (a literal, or an alias of one: `42 AS z ... GROUP BY z`) becomes
// CAST(42, 'UInt8'), which no engine reads as a position and 18.16 reads alike; a NULL key becomes
// CAST(NULL, 'Nullable(UInt8)'), a type a stage table can hold.
import type { Expr, Literal, SelectQuery, SelectStatement } from '../sql/ast.js';
import type { SettingValue } from '../clickhouse/port.js';
import { cloneAst } from '../sql/ast.js';
import { boolSetting } from '../clickhouse/setting-truth.js';
import { errorAt } from './position.js';
import { settingValueOf } from './settings.js';

const SETTING = 'enable_positional_arguments';

const isUnsignedInt = (e: Expr): e is Literal => e.kind === 'literal' && e.type === 'integer' && /^\d+$/.test(e.value);

/** The smallest unsigned type ClickHouse gives the literal. */
function literalType(value: string): string {
  const n = BigInt(value);
  return n < 256n ? 'UInt8' : n < 65536n ? 'UInt16' : n < 4294967296n ? 'UInt32' : n < 1n << 64n ? 'UInt64' : n < 1n << 128n ? 'UInt128' : 'UInt256';
}

function constantKey(lit: Literal): Expr {
  const { alias: _alias, ...bare } = lit;
  return { kind: 'cast', expr: bare, type: literalType(lit.value), syntax: 'comma', ...(lit.pos ? { pos: lit.pos } : {}) };
}

/** Whether positions are on: the SETTINGS clause wins over the request's settings (undefined: ClickHouse 26's default, on). */
export function positionalArgumentsOn(stmt: SelectStatement, request: Record<string, SettingValue> | undefined): boolean {
  const clause = stmt.kind === 'union' ? (stmt.settings ?? stmt.selects[stmt.selects.length - 1]!.settings) : stmt.settings;
  const item = clause?.find((s) => s.name === SETTING);
  const v = item ? settingValueOf(item.value, SETTING) : request?.[SETTING];
  // A value ClickHouse refuses is refused by the planner's settings check; until then positions stay on.
  return v === undefined || boolSetting(v) !== false;
}

function settleSelect(q: SelectQuery, positional: boolean): SelectQuery {
  const hasAsterisk = q.columns.some((c) => c.kind === 'asterisk');
  const literalAliases = new Map<string, Literal>();
  for (const w of q.with ?? []) if (!w.cte && isUnsignedInt(w.expr)) literalAliases.set(w.name, w.expr);
  for (const c of q.columns) if (c.alias !== undefined && isUnsignedInt(c)) literalAliases.set(c.alias, c);
  const settle = (e: Expr): Expr => {
    // A NULL key has type Nullable(Nothing), which no table can hold (the general path's stage table would refuse it, 370).
    if (e.kind === 'literal' && e.type === 'null' && e.alias === undefined)
      return { kind: 'cast', expr: e, type: 'Nullable(UInt8)', syntax: 'comma', ...(e.pos ? { pos: e.pos } : {}) };
    if (isUnsignedInt(e) && e.alias === undefined) {
      if (!positional) return constantKey(e);
      if (hasAsterisk) return e;
      const n = Number(e.value);
      const col = q.columns[n - 1];
      if (n < 1 || !col) {
        throw errorAt('BAD_REQUEST', `Positional argument number ${e.value} is out of bounds. Expected in range [1, ${q.columns.length}]`, e, {
          clickhouse: { code: 36, name: 'BAD_ARGUMENTS' },
        });
      }
      // A constant column is a constant key; another, by its alias (alias expansion resolves it) or a copy.
      if (isUnsignedInt(col)) return constantKey(col);
      if (col.alias !== undefined) return { kind: 'column', parts: [col.alias], selectItem: true, ...(e.pos ? { pos: e.pos } : {}) };
      return cloneAst(col);
    }
    if (e.kind === 'column' && e.parts.length === 1 && e.alias === undefined) {
      const lit = literalAliases.get(e.parts[0]!);
      if (lit) return constantKey({ kind: 'literal', type: 'integer', value: lit.value, ...(e.pos ? { pos: e.pos } : {}) });
    }
    return e;
  };
  const out: SelectQuery = { ...q };
  if (q.groupBy) out.groupBy = q.groupBy.map(settle);
  if (q.groupingSets) out.groupingSets = q.groupingSets.map((g) => g.map(settle));
  if (q.orderBy) out.orderBy = q.orderBy.map((o) => ({ ...o, expr: settle(o.expr) }));
  if (q.limitBy) out.limitBy = { ...q.limitBy, by: q.limitBy.by.map(settle) };
  return out;
}

/** The statement with every position resolved and every constant key pinned (see the header). */
export function settlePositions(stmt: SelectStatement, request: Record<string, SettingValue> | undefined): SelectStatement {
  const on = positionalArgumentsOn(stmt, request);
  if (stmt.kind === 'select') return settleSelect(stmt, on);
  return { ...stmt, selects: stmt.selects.map((q) => settleSelect(q, on)) };
}
