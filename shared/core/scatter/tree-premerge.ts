// Pre-merging shard partials inside a sub-coordinator of the aggregation tree, so a subtree
// answers with ONE partial (one row per group) instead of one per shard: that is what relieves
// the root's fan-in (an aggregator tree, as Thanos's stacked queriers and Lambada's invocation tree).
//
// The shard partial columns (shared/core/partials: keys __k*, key-only expressions __e*, states __a*)
// are re-aggregated here by reading the shard SQL itself: a state column computed by count/sum
// (and their -If forms) is combined by summing, min/max by min/max. Anything else (sketches,
// uniqExact sets, argMin/argMax pairs, any, DDSketch maps), a LIMIT on the shard (top-k cut
// bookkeeping needs each shard's own list), HAVING, LIMIT BY, DISTINCT or WITH TOTALS makes
// premergeSpec() answer undefined, and the subtree RELAYS each shard's partial unchanged (still one
// invocation at the root per subtree; the merge itself then happens once, at the root).
// Exactness: integer sums are exact (wrapped to 64 bits as ClickHouse's sum does). Float sums are
// summed exactly (ExactFloatSum, as the flat merge does) and sent as the terms of that exact sum,
// so the root adds exactly what it would have added shard by shard: the same bits as the flat
// merge, whatever the tree shape or arrival order. Infinities and NaN travel as the strings
// "inf", "-inf" and "nan" (ClickHouse's JSON would write null, which means NULL: a shard's sum
// that overflowed must never be dropped as a NULL partial); a NULL partial (Nullable argument, no
// non-NULL value on that shard) is skipped. min/max skip the rows of shards with no row in the
// group (their companion count is 0 and their value is the engine's default, not a value), as
// the flat merge does.
import { parseSelect } from '../sql/parse.js';
import { printExpr } from '../sql/print.js';
import type { Expr, FunctionCall } from '../sql/ast.js';
import { ExactFloatSum } from '../partials/families/exact-float-sum.js';
import { parserFor, type Value } from '../partials/values.js';
import type { ColumnMeta } from '../clickhouse/port.js';
import type { FinalResult, Merger } from '../partials/types.js';
import type { TreePart } from '../protocol/tree-wire.js';

export type CombineOp = 'sum' | 'min' | 'max';

export interface PremergeSpec {
  keys: string[];
  /** count: for min/max, the column counting the rows the min/max saw (0: an empty shard's default). */
  aggs: { col: string; op: CombineOp; count?: string }[];
}

const OPS: Record<string, CombineOp> = { count: 'sum', countif: 'sum', sum: 'sum', sumif: 'sum', min: 'min', minif: 'min', max: 'max', maxif: 'max' };

/** How to re-aggregate this shard query's partial rows, or undefined when they must be relayed. */
export function premergeSpec(shardSql: string): PremergeSpec | undefined {
  let stmt: ReturnType<typeof parseSelect>;
  try {
    stmt = parseSelect(shardSql);
  } catch {
    return undefined;
  }
  if (stmt.kind !== 'select') return undefined;
  if (stmt.limit || stmt.having || stmt.limitBy || stmt.distinct || stmt.withTotals || stmt.groupByModifier) return undefined;
  const keys: string[] = [];
  const aggs: PremergeSpec['aggs'] = [];
  const states: FunctionCall[] = [];
  for (const c of stmt.columns) {
    const alias = c.alias;
    if (!alias) return undefined;
    if (/^__[ke]\d+$/.test(alias)) {
      keys.push(alias);
      continue;
    }
    if (!/^__a\d+$/.test(alias)) return undefined;
    const op = opOf(c);
    if (!op) return undefined;
    aggs.push({ col: alias, op });
    states.push(c as FunctionCall);
  }
  // min(x) comes with count() and minIf(x, c) with countIf(c) (partials/families/minmax.ts).
  for (let i = 0; i < aggs.length; i++) {
    if (aggs[i]!.op === 'sum') continue;
    const m = states[i]!;
    const cond = /If$/i.test(m.name) ? m.args[m.args.length - 1] : undefined;
    const want = cond ? `countIf(${printExpr(cond)})` : 'count()';
    const j = states.findIndex((c) => /^count(If)?$/i.test(c.name) && printExpr({ ...c, alias: undefined } as Expr) === want);
    if (j < 0) return undefined;
    aggs[i]!.count = aggs[j]!.col;
  }
  return aggs.length ? { keys, aggs } : undefined;
}

function opOf(e: Expr): CombineOp | undefined {
  if (e.kind !== 'function' || e.params || e.distinct || e.operator) return undefined;
  return OPS[e.name.toLowerCase()];
}

const INT = /^(U?)Int(8|16|32|64)$/;
const FLOAT = /^Float(32|64)$/;
const stripNullable = (t: string) => /^Nullable\((.*)\)$/.exec(t)?.[1] ?? t;

/** Which value domain a column's type combines in; undefined = not pre-mergeable. */
function domainOf(op: CombineOp, type: string): 'int' | 'float' | 'text' | undefined {
  const t = stripNullable(type);
  if (INT.test(t)) return 'int';
  if (FLOAT.test(t)) return op === 'sum' ? 'float' : undefined; // float min/max: NaN ordering is ClickHouse's business
  if (op !== 'sum' && (t === 'String' || t === 'Date' || (t.startsWith('DateTime') && !t.startsWith('DateTime64')))) return 'text';
  return undefined;
}

interface Col {
  col: string;
  op: CombineOp;
  domain: 'int' | 'float' | 'text';
  type: string;
  quoted: boolean; // (U)Int64 travel as JSON strings
  count?: string; // min/max: the companion count column
  parse: (v: unknown) => Value; // float sums: "inf"/"nan" strings and pre-merged terms too
}

interface Group {
  keyValues: unknown[];
  vals: (bigint | string | ExactFloatSum | null)[]; // per agg; null: no value yet
  /** min/max: the smallest value sent by a shard with no row in the group (the engine default). */
  empty: (bigint | string | null | undefined)[];
}

/** A float as it travels on the tree wire: finite numbers as JSON numbers, the rest as strings. */
function floatWire(x: number): number | string {
  return Number.isFinite(x) ? x : Number.isNaN(x) ? 'nan' : x > 0 ? 'inf' : '-inf';
}

/**
 * A Merger (the runtime's gather folds shard answers into it) that emits partial rows again.
 * Built with the spec from premergeSpec(); if the shards' column types are not pre-mergeable it
 * falls back to relaying (decided on the first answer, before anything is folded).
 */
export class PremergeMerger implements Merger {
  private groups = new Map<string, Group>();
  private cols?: Col[];
  private meta?: ColumnMeta[];
  private firstShard = Number.POSITIVE_INFINITY;
  private relayed: TreePart[] = [];
  private relay = false;

  constructor(private readonly spec: PremergeSpec) {}

  get mode(): 'premerged' | 'relayed' {
    return this.relay ? 'relayed' : 'premerged';
  }

  add(shard: number, rows: Record<string, unknown>[], meta: ColumnMeta[]): void {
    if (!this.cols && !this.relay) this.setup(meta);
    if (this.relay) {
      this.relayed.push({ shard, meta, rows });
      return;
    }
    this.firstShard = Math.min(this.firstShard, shard);
    const cols = this.cols!;
    const keys = this.spec.keys;
    for (const r of rows) {
      const kv = keys.map((k) => r[k] ?? null);
      const gk = JSON.stringify(kv);
      let g = this.groups.get(gk);
      if (!g) {
        g = { keyValues: kv, vals: cols.map(() => null), empty: cols.map(() => undefined) };
        this.groups.set(gk, g);
      }
      for (let i = 0; i < cols.length; i++) {
        const c = cols[i]!;
        const v = r[c.col];
        if (c.domain === 'float') {
          const x = c.parse(v);
          if (x === null) continue; // NULL partial (no non-NULL value on that shard)
          g.vals[i] ??= new ExactFloatSum();
          const acc = g.vals[i] as ExactFloatSum;
          if (Array.isArray(x)) for (const t of x) acc.add(Number(t));
          else acc.add(Number(x));
          continue;
        }
        const value = v === null || v === undefined ? null : c.domain === 'int' ? BigInt(v as string | number) : String(v);
        if (c.count !== undefined && BigInt((r[c.count] ?? 0) as string | number) === 0n) {
          // A shard with no row here: its min/max is the engine's default, kept only as the fallback.
          const e = g.empty[i];
          if (e === undefined || (value !== null && (e === null || less(value, e)))) g.empty[i] = value;
          continue;
        }
        if (value === null) continue; // NULL partial (no non-NULL value on that shard)
        const cur = g.vals[i] as bigint | string | null;
        if (cur === null) g.vals[i] = value;
        else if (c.op === 'sum') g.vals[i] = (cur as bigint) + (value as bigint);
        else if (c.op === 'min' ? less(value, cur) : less(cur, value)) g.vals[i] = value;
      }
    }
  }

  private setup(meta: ColumnMeta[]): void {
    const typeOf = new Map(meta.map((m) => [m.name, m.type]));
    const cols: Col[] = [];
    for (const a of this.spec.aggs) {
      const type = typeOf.get(a.col);
      const domain = type === undefined ? undefined : domainOf(a.op, type);
      if (!type || !domain) {
        this.relay = true;
        return;
      }
      cols.push({ ...a, domain, type, quoted: /^U?Int64$/.test(stripNullable(type)), parse: parserFor(type) });
    }
    if (this.spec.keys.some((k) => !typeOf.has(k))) {
      this.relay = true;
      return;
    }
    this.cols = cols;
    this.meta = meta;
  }

  /** The subtree's answer: one pre-merged part, or every shard's part unchanged. */
  parts(): TreePart[] {
    if (this.relay) return this.relayed;
    if (!this.cols || !this.meta) return []; // no shard answered
    const cols = this.cols;
    const rows: Record<string, unknown>[] = [];
    for (const g of this.groups.values()) {
      const r: Record<string, unknown> = {};
      for (const [i, k] of this.spec.keys.entries()) r[k] = g.keyValues[i];
      cols.forEach((c, i) => {
        const v = g.vals[i] ?? g.empty[i] ?? null;
        if (v === null) {
          r[c.col] = null;
          return;
        }
        if (v instanceof ExactFloatSum) {
          const terms = v.terms().map(floatWire);
          r[c.col] = terms.length === 1 ? terms[0] : terms;
        } else if (c.domain === 'int') {
          const t = stripNullable(c.type);
          const bits = Number(INT.exec(t)![2]);
          const b = t.startsWith('U') ? BigInt.asUintN(bits, v as bigint) : BigInt.asIntN(bits, v as bigint);
          r[c.col] = c.quoted ? b.toString() : Number(b);
        } else r[c.col] = v;
      });
      rows.push(r);
    }
    return [{ shard: this.firstShard, meta: this.meta, rows }];
  }

  /** A sub-coordinator never finalizes: the root does. */
  finalize(): FinalResult {
    throw new Error('a sub-coordinator merger emits partials (parts()), it does not finalize');
  }
}

/** Integers by value, strings by UTF-8 bytes (ClickHouse's order for String, Date and DateTime text). */
function less(a: bigint | string, b: bigint | string): boolean {
  return typeof a === 'bigint' ? a < (b as bigint) : Buffer.compare(Buffer.from(a), Buffer.from(b as string)) < 0;
}

/** Relays every shard's partial unchanged (queries whose partials cannot be pre-merged). */
export class RelayMerger implements Merger {
  readonly mode = 'relayed' as const;
  private list: TreePart[] = [];
  add(shard: number, rows: Record<string, unknown>[], meta: ColumnMeta[]): void {
    this.list.push({ shard, meta, rows });
  }
  parts(): TreePart[] {
    return this.list;
  }
  finalize(): FinalResult {
    throw new Error('a sub-coordinator merger relays partials (parts()), it does not finalize');
  }
}
