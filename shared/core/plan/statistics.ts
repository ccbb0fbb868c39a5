// Statistics pruning: a shard whose rows of a column all lie outside what a range predicate on it
// accepts holds no matching row, so it is skipped. The ranges are each shard's min/max of the
// columns the config names (`tables.<t>.statistics`), read by the runtime; this module only decides.
// Compared: integers (exactly), Date (as its text), DateTime (its wall-clock text; with a margin where
// the zone's clock can go back). Strings, floats, other types and all-NULL columns are never pruned on.
import type { Expr, SelectQuery } from '../sql/ast.js';
import { printExpr } from '../sql/print.js';
import { isColumnOfMain, type TableNaming } from './key-ref.js';

/** One column's range on one shard, as ClickHouse's JSON writes its min() and max(); null when every value is NULL. */
export interface ColumnRange {
  type: string;
  min: string;
  max: string;
}

/** One shard's statistics of one table: its row count, the server's time zone, each column's range. */
export interface ShardTableStats {
  rows: bigint;
  timezone: string;
  columns: Record<string, ColumnRange | null>;
}

/** Per shard (index = shard), undefined where the shard's statistics could not be read. */
export interface TableStatistics {
  table: string;
  shards: (ShardTableStats | undefined)[];
}

/** The runtime's cache, as the planner asks it: the statistics of a distributed table, or undefined when none are configured. */
export type StatisticsSource = (distributedTable: string) => Promise<TableStatistics | undefined>;

/** Comparable points: bigint for integers, seconds for Date and DateTime (their text read as UTC). */
type Kind = { kind: 'int' } | { kind: 'date' } | { kind: 'datetime'; marginS: number };

const DAY_S = 86_400;
const UTC_ZONES = new Set(['UTC', 'Etc/UTC', 'GMT', 'Etc/GMT', 'UCT', 'Universal', 'Zulu', 'Etc/Universal', 'Etc/Zulu']);

function kindOf(type: string, serverZone: string): Kind | undefined {
  const t = type.replace(/^Nullable\((.*)\)$/, '$1');
  if (/^U?Int(8|16|32|64)$/.test(t)) return { kind: 'int' };
  if (t === 'Date') return { kind: 'date' };
  const dt = /^DateTime(?:\('([^']*)'\))?$/.exec(t);
  if (!dt) return undefined;
  // A wall clock that goes back (daylight saving's end) orders its texts unlike its instants, by at
  // most the step back: two days either way covers any zone's.
  return { kind: 'datetime', marginS: UTC_ZONES.has(dt[1] ?? serverZone) ? 0 : 2 * DAY_S };
}

const DATE_TEXT = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME_TEXT = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;

function textPoint(k: Kind, text: string): bigint | undefined {
  const m = (k.kind === 'date' ? DATE_TEXT : DATETIME_TEXT).exec(text);
  if (!m) return undefined;
  const n = m.slice(1).map(Number);
  const ms = Date.UTC(n[0]!, n[1]! - 1, n[2]!, n[3] ?? 0, n[4] ?? 0, n[5] ?? 0);
  // Date.UTC rolls over out-of-range fields (2024-02-31): such a text is not compared.
  const back = new Date(ms)
    .toISOString()
    .slice(0, k.kind === 'date' ? 10 : 19)
    .replace('T', ' ');
  return back === text ? BigInt(ms / 1000) : undefined;
}

/** The point a statistics value (min or max) stands for. */
function statPoint(k: Kind, v: string): bigint | undefined {
  if (k.kind === 'int') return /^-?\d+$/.test(v) ? BigInt(v) : undefined;
  return textPoint(k, v);
}

/** The point a literal of the predicate stands for, or undefined when it is not one this kind compares. */
function literalPoint(k: Kind, e: Expr): bigint | undefined {
  if (e.kind === 'function' && e.name === 'negate' && e.args.length === 1 && k.kind === 'int') {
    const inner = literalPoint(k, e.args[0]!);
    return inner === undefined ? undefined : -inner;
  }
  // toDate('...') / toDateTime('...') with no zone: the text, read as the column reads it.
  const cast = k.kind === 'date' ? 'toDate' : k.kind === 'datetime' ? 'toDateTime' : undefined;
  if (e.kind === 'function' && e.name === cast && e.args.length === 1 && !e.params) return literalPoint(k, e.args[0]!);
  if (e.kind !== 'literal') return undefined;
  if (k.kind === 'int') return e.type === 'integer' && /^-?\d+$/.test(e.value) ? BigInt(e.value) : undefined;
  return e.type === 'string' ? textPoint(k, e.value) : undefined;
}

/** What one predicate atom accepts of a column: a closed interval (either end open-ended), or a set of points. */
type Accepts = { lo?: bigint; hi?: bigint } | { points: bigint[] };

interface Atom {
  column: string;
  accepts: (k: Kind) => Accepts | undefined;
  text: () => string;
}

const FLIP: Record<string, string> = { greater: 'less', less: 'greater', greaterOrEquals: 'lessOrEquals', lessOrEquals: 'greaterOrEquals', equals: 'equals' };

function describe(e: Expr): string {
  const text = printExpr({ ...e, alias: undefined } as Expr);
  return text.length > 120 ? text.slice(0, 110) + ' ...' : text;
}

/** The atoms of AND-ed conditions on the configured columns (anything else narrows nothing). */
function atomsOf(e: Expr, columnOf: (e: Expr) => string | undefined, out: Atom[]): void {
  if (e.kind !== 'function' || e.over) return;
  if (e.name === 'and') {
    for (const a of e.args) atomsOf(a, columnOf, out);
    return;
  }
  const [l, r] = e.args;
  if (e.args.length !== 2 || !l || !r) return;
  if (e.name === 'in') {
    const col = columnOf(l);
    const items = r.kind === 'tuple' ? r.items : r.kind === 'function' && r.name === 'tuple' && !r.params ? r.args : [r];
    if (!col) return;
    out.push({
      column: col,
      accepts: (k) => {
        const points: bigint[] = [];
        for (const i of items) {
          // NULL in the set matches no row: it leaves the other points to decide.
          if (i.kind === 'literal' && i.type === 'null') continue;
          const p = literalPoint(k, i);
          if (p === undefined) return undefined;
          points.push(p);
        }
        return { points };
      },
      text: () => describe(e),
    });
    return;
  }
  const op = FLIP[e.name];
  if (!op) return;
  const [name, lit, opName] = columnOf(l) ? [columnOf(l), r, e.name] : columnOf(r) ? [columnOf(r), l, op] : [undefined, undefined, undefined];
  if (!name || !lit) return;
  out.push({
    column: name,
    accepts: (k) => {
      const p = literalPoint(k, lit);
      if (p === undefined) return undefined;
      switch (opName) {
        case 'equals':
          return { points: [p] };
        case 'greater':
          return { lo: p + 1n };
        case 'greaterOrEquals':
          return { lo: p };
        case 'less':
          return { hi: p - 1n };
        default:
          return { hi: p };
      }
    },
    text: () => describe(e),
  });
}

/** Can a value in [min - margin, max + margin] be accepted? */
function mayMatch(a: Accepts, min: bigint, max: bigint): boolean {
  if ('points' in a) return a.points.some((p) => p >= min && p <= max);
  return (a.lo === undefined || a.lo <= max) && (a.hi === undefined || a.hi >= min);
}

export interface StatisticsSkip {
  /** Shards (0-based) whose statistics show no matching row, with the reason /explain gives. */
  skipped: Map<number, string>;
}

/**
 * Which shards statistics rule out for `filters` (WHERE, PREWHERE) over the main table. A shard is
 * ruled out only when its statistics are known and one AND-ed atom on a compared column accepts
 * nothing in its range; a shard with no rows is ruled out by any such atom.
 */
export function statisticsSkipping(stats: TableStatistics, columns: readonly string[], naming: TableNaming, filters: (Expr | undefined)[]): StatisticsSkip {
  const configured = new Set(columns);
  const columnOf = (e: Expr): string | undefined => {
    if (e.kind !== 'column') return undefined;
    const name = e.parts[e.parts.length - 1]!;
    return configured.has(name) && isColumnOfMain(e, name, naming) ? name : undefined;
  };
  const atoms: Atom[] = [];
  for (const f of filters) if (f) atomsOf(f, columnOf, atoms);
  const skipped = new Map<number, string>();
  if (atoms.length === 0) return { skipped };
  stats.shards.forEach((s, shard) => {
    if (!s) return;
    for (const atom of atoms) {
      const range = s.columns[atom.column];
      if (s.rows === 0n) {
        skipped.set(shard, `statistics: the shard holds no row of ${stats.table} (so none where ${atom.text()})`);
        return;
      }
      if (!range) continue;
      const k = kindOf(range.type, s.timezone);
      if (!k) continue;
      const accepts = atom.accepts(k);
      const min = statPoint(k, range.min);
      const max = statPoint(k, range.max);
      if (!accepts || min === undefined || max === undefined) continue;
      const margin = BigInt(k.kind === 'datetime' ? k.marginS : 0);
      if (!mayMatch(accepts, min - margin, max + margin)) {
        skipped.set(shard, `statistics: ${atom.column} lies in [${range.min}, ${range.max}] on this shard, where ${atom.text()} matches no row`);
        return;
      }
    }
  });
  return { skipped };
}

/** Statistics prune only where a column name means the main table's column: no JOIN, ARRAY JOIN, or alias of that name. */
export function statisticsApply(q: SelectQuery, shadowed: (column: string) => boolean, columns: readonly string[]): string[] {
  if (q.from?.joins.length || q.from?.arrayJoin) return [];
  return columns.filter((c) => !shadowed(c));
}
