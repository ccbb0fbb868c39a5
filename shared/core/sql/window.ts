// Window-function syntax shared by the parser, the printer and the namer: frame bounds and how
// ClickHouse reads `EXTRACT(unit FROM x)` (as a plain function call, named after that function).
import type { FrameBound, WindowSpec } from './ast.js';

export type { FrameBound, WindowSpec };

/** EXTRACT(unit FROM x) -> the function ClickHouse calls (checked on chdb: `EXTRACT(WEEK ...)` is toISOWeek). */
export const EXTRACT_FUNCTIONS: Record<string, string> = {
  NANOSECOND: 'toNanosecond',
  MICROSECOND: 'toMicrosecond',
  MILLISECOND: 'toMillisecond',
  SECOND: 'toSecond',
  MINUTE: 'toMinute',
  HOUR: 'toHour',
  DAY: 'toDayOfMonth',
  WEEK: 'toISOWeek',
  MONTH: 'toMonth',
  QUARTER: 'toQuarter',
  YEAR: 'toYear',
};

/** The expressions of a window spec, in source order (PARTITION BY, ORDER BY, frame offsets). */
export function windowExprs(w: WindowSpec): import('./ast.js').Expr[] {
  const out = [...(w.partitionBy ?? []), ...(w.orderBy ?? []).map((o) => o.expr)];
  if (w.frame?.start.offset) out.push(w.frame.start.offset);
  if (w.frame?.end.offset) out.push(w.frame.end.offset);
  return out;
}

/** A window spec with every expression replaced by `fn(expr)`; the same object when nothing changed. */
export function mapWindow(w: WindowSpec, fn: (e: import('./ast.js').Expr) => import('./ast.js').Expr, copy = false): WindowSpec {
  let changed = copy;
  const m = (e: import('./ast.js').Expr) => {
    const r = fn(e);
    if (r !== e) changed = true;
    return r;
  };
  const out: WindowSpec = {};
  if (w.name !== undefined) out.name = w.name;
  if (w.base !== undefined) out.base = w.base;
  if (w.partitionBy) out.partitionBy = w.partitionBy.map(m);
  if (w.orderBy) out.orderBy = w.orderBy.map((o) => ({ ...o, expr: m(o.expr) }));
  if (w.frame) {
    const bound = (b: FrameBound): FrameBound => (b.offset ? { type: b.type, offset: m(b.offset) } : { type: b.type });
    out.frame = { unit: w.frame.unit, start: bound(w.frame.start), end: bound(w.frame.end) };
  }
  return changed ? out : w;
}

/**
 * `w` as ClickHouse 26 writes it after OVER, both in SQL and in result-column names (checked on
 * chdb): `w`, or `(base PARTITION BY a, b ORDER BY x ASC NULLS FIRST ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)`.
 * `expr` formats one expression (the printer's or the namer's); `named` is true for column names,
 * where ORDER BY always says ASC/DESC.
 */
export function formatWindow(w: WindowSpec, expr: (e: import('./ast.js').Expr) => string, quoteName: (n: string) => string, named: boolean): string {
  if (w.name !== undefined) return quoteName(w.name);
  const parts: string[] = [];
  if (w.base !== undefined) parts.push(quoteName(w.base));
  if (w.partitionBy?.length) parts.push('PARTITION BY ' + w.partitionBy.map(expr).join(', '));
  if (w.orderBy?.length) {
    const items = w.orderBy.map((o) => {
      let s = expr(o.expr);
      if (o.direction === 'DESC') s += ' DESC';
      else if (named) s += ' ASC';
      if (o.nulls) s += ` NULLS ${o.nulls}`;
      if (o.collate !== undefined) s += ` COLLATE '${o.collate.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
      return s;
    });
    parts.push('ORDER BY ' + items.join(', '));
  }
  if (w.frame) {
    const b = (x: FrameBound): string => (x.offset ? `${expr(x.offset)} ${x.type}` : x.type);
    parts.push(`${w.frame.unit} BETWEEN ${b(w.frame.start)} AND ${b(w.frame.end)}`);
  }
  return `(${parts.join(' ')})`;
}
