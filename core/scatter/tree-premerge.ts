// Pre-merging shard partials inside a sub-coordinator of the aggregation tree, so a subtree
// answers with ONE partial (one row per group) instead of one per shard: that is what relieves
// the root's fan-in (an aggregator tree, as Thanos's stacked queriers and Lambada's invocation tree).
//
// The shard partial columns (core/partials: keys __k*, key-only expressions __e*, states __a*)
// are re-aggregated here by reading the shard SQL itself: a state column computed by count/sum
// (and their -If forms) is combined by summing, min/max by min/max. Anything else (sketches,
// uniqExact sets, argMin/argMax pairs, any, DDSketch maps), a LIMIT on the shard (top-k cut
// bookkeeping needs each shard's own list), HAVING, LIMIT BY, DISTINCT or WITH TOTALS makes
// premergeSpec() answer undefined, and the subtree RELAYS each shard's partial unchanged (still one
// invocation at the root per subtree; the merge itself then happens once, at the root).
// Exactness: integer sums are exact (wrapped to 64 bits as ClickHouse's sum does); float sums are
// added in shard order inside the subtree, so the result does not depend on arrival order (it can
// differ from the flat merge in the last bits, as any re-association of float addition can).
import { parseSelect } from '../sql/parse.js';
import type { Expr } from '../sql/ast.js';
import type { ColumnMeta } from '../clickhouse/port.js';
import type { FinalResult, Merger } from '../partials/types.js';
import type { TreePart } from '../protocol/tree-wire.js';

export type CombineOp = 'sum' | 'min' | 'max';

export interface PremergeSpec {
  keys: string[];
  aggs: { col: string; op: CombineOp }[];
}

const OPS: Record<string, CombineOp> = { count: 'sum', countif: 'sum', sum: 'sum', sumif: 'sum', min: 'min', minif: 'min', max: 'max', maxif: 'max' };

/** How to re-aggregate this shard query's partial rows, or undefined when they must be relayed. */
export function premergeSpec(shardSql: string): PremergeSpec | undefined {
  let stmt;
  try {
    stmt = parseSelect(shardSql);
  } catch {
    return undefined;
  }
  if (stmt.kind !== 'select') return undefined;
  if (stmt.limit || stmt.having || stmt.limitBy || stmt.distinct || stmt.withTotals || stmt.groupByModifier) return undefined;
  const keys: string[] = [];
  const aggs: PremergeSpec['aggs'] = [];
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
}

interface Group {
  keyValues: unknown[];
  vals: unknown[]; // per agg: bigint | number[] (float parts, by shard order) | string | null
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
  private floatParts = new Map<string, [number, number][][]>(); // group -> per agg -> [shard, value]

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
        g = { keyValues: kv, vals: cols.map(() => null) };
        this.groups.set(gk, g);
      }
      for (let i = 0; i < cols.length; i++) {
        const c = cols[i]!;
        const v = r[c.col];
        if (v === null || v === undefined) continue; // NULL partial (no non-NULL value on that shard)
        if (c.domain === 'int') {
          const b = BigInt(v as string | number);
          const cur = g.vals[i] as bigint | null;
          g.vals[i] = cur === null ? b : c.op === 'sum' ? cur + b : c.op === 'min' ? (b < cur ? b : cur) : b > cur ? b : cur;
        } else if (c.domain === 'float') {
          let parts = this.floatParts.get(gk);
          if (!parts) this.floatParts.set(gk, (parts = cols.map(() => [])));
          parts[i]!.push([shard, Number(v)]);
          g.vals[i] = 0; // marks "has a value"
        } else {
          const s = String(v);
          const cur = g.vals[i] as string | null;
          const less = cur === null ? true : Buffer.compare(Buffer.from(s), Buffer.from(cur)) < 0;
          if (cur === null || (c.op === 'min' ? less : !less && s !== cur)) g.vals[i] = s;
        }
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
      cols.push({ ...a, domain, type, quoted: /^U?Int64$/.test(stripNullable(type)) });
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
    for (const [gk, g] of this.groups) {
      const r: Record<string, unknown> = {};
      this.spec.keys.forEach((k, i) => (r[k] = g.keyValues[i]));
      cols.forEach((c, i) => {
        const v = g.vals[i];
        if (v === null) {
          r[c.col] = null;
          return;
        }
        if (c.domain === 'int') {
          const t = stripNullable(c.type);
          const bits = Number(INT.exec(t)![2]);
          const b = t.startsWith('U') ? BigInt.asUintN(bits, v as bigint) : BigInt.asIntN(bits, v as bigint);
          r[c.col] = c.quoted ? b.toString() : Number(b);
        } else if (c.domain === 'float') {
          const parts = this.floatParts.get(gk)![i]!;
          parts.sort((a, b) => a[0] - b[0]);
          let s = 0;
          for (const [, x] of parts) s += x;
          r[c.col] = Number.isFinite(s) ? s : null;
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
