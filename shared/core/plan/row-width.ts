// Query-then-fetch's `auto` choice: the bytes a row query's rows carry beyond their sort keys, which is
// what two rounds save on every shard but the ones the final page comes from. Fixed-width types count
// their width; String-like columns their mean length as a shard measured it (string-widths.ts); an
// expression counts the columns it reads (length(body) counts as body), a prefix of a literal length
// (substring(body, 1, 10), left(body, 10)) at most that length. An estimate, never a promise: it only
// picks how many rounds, and both answer the same rows.
import type { TableColumn } from '../clickhouse/describe-columns.js';
import { canon } from '../partials/ast-build.js';
import type { Normalized } from '../partials/analyze.js';
import type { Expr } from '../sql/ast.js';
import { walkExpr } from '../sql/visit.js';

/** What the estimate reads: the table's columns and the measured mean length of its String-like ones. */
export interface TableWidths {
  columns: TableColumn[];
  measured: ReadonlyMap<string, number>;
}

export type RowWidth = { bytes: number } | { unknown: string };

const strip = (t: string, wrapper: string): string | undefined =>
  t.startsWith(`${wrapper}(`) && t.endsWith(')') ? t.slice(wrapper.length + 1, -1) : undefined;

/** String, FixedString excepted: the types whose width is measured rather than known. */
export function isStringLike(type: string): boolean {
  const inner = strip(type, 'LowCardinality') ?? type;
  return (strip(inner, 'Nullable') ?? inner) === 'String';
}

/** The bytes of one value of a fixed-width type (as stored), or undefined for any other type. */
export function fixedWidth(type: string): number | undefined {
  const nullable = strip(type, 'Nullable');
  if (nullable !== undefined) {
    const w = fixedWidth(nullable);
    return w === undefined ? undefined : w + 1;
  }
  const lc = strip(type, 'LowCardinality');
  if (lc !== undefined) return fixedWidth(lc);
  const int = /^U?Int(8|16|32|64|128|256)$/.exec(type);
  if (int) return Number(int[1]) / 8;
  const fixed = /^FixedString\((\d+)\)$/.exec(type);
  if (fixed) return Number(fixed[1]);
  if (/^Enum8\(/.test(type)) return 1;
  if (/^Enum16\(/.test(type)) return 2;
  if (/^DateTime64\(/.test(type)) return 8;
  if (/^DateTime(\(.*\))?$/.test(type)) return 4;
  const dec = /^Decimal(32|64|128|256)\(/.exec(type);
  if (dec) return Number(dec[1]) / 8;
  const decP = /^Decimal\((\d+)/.exec(type);
  if (decP) {
    const p = Number(decP[1]);
    return p <= 9 ? 4 : p <= 18 ? 8 : p <= 38 ? 16 : 32;
  }
  const named: Record<string, number> = { Bool: 1, Float32: 4, Float64: 8, BFloat16: 2, Date: 2, Date32: 4, UUID: 16, IPv4: 4, IPv6: 16 };
  return named[type];
}

/** Functions that keep at most a literal number of characters of a string: the argument holding it. */
const PREFIXES: Record<string, { lengthArg: number; bytesPerChar: number }> = {
  substring: { lengthArg: 2, bytesPerChar: 1 },
  substr: { lengthArg: 2, bytesPerChar: 1 },
  mid: { lengthArg: 2, bytesPerChar: 1 },
  substringutf8: { lengthArg: 2, bytesPerChar: 4 },
  left: { lengthArg: 1, bytesPerChar: 1 },
  right: { lengthArg: 1, bytesPerChar: 1 },
  leftutf8: { lengthArg: 1, bytesPerChar: 4 },
  rightutf8: { lengthArg: 1, bytesPerChar: 4 },
};

class NoWidth extends Error {}

/** The estimated bytes per row of the selected columns that are not sort keys, or why there is none. */
export function estimateRowBytes(n: Normalized, table: TableWidths): RowWidth {
  const byName = new Map(table.columns.map((c) => [c.name, c]));
  const widthOf = (name: string): number => {
    const c = byName.get(name)!;
    const w = isStringLike(c.type) ? table.measured.get(name) : fixedWidth(c.type);
    if (w === undefined) throw new NoWidth(`no width known for ${name} (${c.type})`);
    return w;
  };
  // Each column an expression reads, as often as it reads it; a prefix of a literal length at most that.
  const widthIn = (expr: Expr): number => {
    let bytes = 0;
    walkExpr(expr, (e: Expr) => {
      const prefix = e.kind === 'function' && !e.over ? PREFIXES[e.name.toLowerCase()] : undefined;
      const length = prefix && e.kind === 'function' ? e.args[prefix.lengthArg] : undefined;
      if (prefix && e.kind === 'function' && e.args[0] && length?.kind === 'literal' && length.type === 'integer') {
        bytes += Math.min(Number(length.value) * prefix.bytesPerChar, widthIn(e.args[0]));
        return false;
      }
      // Another name (a lambda's parameter, a WITH constant) is no column of the table.
      if (e.kind === 'column' && byName.has(e.parts[e.parts.length - 1]!)) bytes += widthOf(e.parts[e.parts.length - 1]!);
      return undefined;
    });
    return bytes;
  };
  const keys = new Set(n.orderBy.map((o) => canon(o.expr)));
  try {
    let bytes = n.hasAsterisk ? table.columns.reduce((sum, c) => sum + widthOf(c.name), 0) : 0;
    for (const c of n.columns) if (!keys.has(canon(c.expr))) bytes += widthIn(c.expr);
    return { bytes: Math.round(bytes) };
  } catch (e) {
    if (e instanceof NoWidth) return { unknown: e.message };
    throw e;
  }
}
