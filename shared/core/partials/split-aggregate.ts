// The split of an aggregate query (GROUP BY and/or aggregate functions). Every shard returns
// one row per group: the group keys (__k0..), per-group expressions the coordinator cannot
// evaluate (__e0..), and the partial states of the aggregates (__a0..). The merger folds rows on
// arrival into per-group states and finalizes: aggregates -> values, then SELECT expressions,
// HAVING, ORDER BY, DISTINCT, LIMIT BY, LIMIT.
//
// LIMIT push-down, only where exact or bounded:
// - 'complete': the group keys include the sharding key, so no group spans shards; the shard runs
//   HAVING, ORDER BY and LIMIT itself.
// - 'keys': ORDER BY covers exactly the group keys: each shard's first (offset + limit) keys
//   contain every global winner, with all of its rows.
// - 'topk': ORDER BY <count aggregate> DESC first: each shard sends shard_size groups, and the
//   answer carries Elasticsearch's doc_count_error_upper_bound per row and overall.
import type { Expr, SelectQuery, OrderItem } from '../sql/ast.js';
import { orderKey } from './order-key.js';
import { ScatterError } from '../errors.js';
import { canon, int } from './ast-build.js';
import { childrenOf, walkExpr } from '../sql/visit.js';
import { inTableOperand } from '../sql/in-operators.js';
import { formatForName } from '../sql/names.js';
import type { Normalized } from './analyze.js';
import { unsupportedAt } from './analyze.js';
import { canEvaluate, evaluate, type SortSpec, type Typed } from './evaluator.js';
import type { AggregateImpl, AggState, FamilyContext } from './families/family.js';
import { resolveAggregate } from './families/index.js';
import { shardSize } from './families/topk.js';
import { applyPostClauses, rowComparator, type WorkRow } from './post-process.js';
import type { ApproximateInfo, FinalizeOptions, FinalResult, Merger, SplitContext, SplitQuery } from './types.js';
import { fromJson, parserFor, toJson, totalCompare, UnmergeableValue, valueKey, type Value } from './values.js';
import type { ColumnMeta } from '../clickhouse/port.js';
import { TransferBudget } from './transfer-budget.js';

interface AggSlot {
  impl: AggregateImpl;
  key: string; // canonical text of the call
  cols: string[]; // generated partial column names
}

type PushMode = 'none' | 'complete' | 'keys' | 'topk';

/** A per-group expression the shard computes (__e<i>). */
interface Pushed {
  key: string;
  expr: Expr;
  col: string;
}

export function splitAggregate(q: SelectQuery, n: Normalized, ctx: SplitContext, fam: FamilyContext): SplitQuery {
  const keyCanon = n.groupBy.map(canon);
  const { aggs, aggColumns } = aggregateSlots(n, ctx, fam);
  const aggByKey = new Map(aggs.map((a) => [a.key, a]));
  const pushed = pushedExpressions(n, keyCanon, aggByKey);
  const { mode, topkAgg, wanted } = limitPushDown(q, n, ctx, keyCanon, aggByKey);
  const { shardQuery, shardLimit } = shardQueryOf(q, n, ctx, { pushed, aggColumns, mode, topkAgg, wanted });

  const specs: SortSpec[] = n.orderBy.map((o) => ({ direction: o.direction, nulls: o.nulls }));
  const outNames = n.columns.map((c) => c.outName);
  const describe = [
    `shards: GROUP BY ${n.groupBy.length ? n.groupBy.map((e) => formatForName(e)).join(', ') : '(none)'} returning keys and partial states`,
    ...aggs.map((a) => `  ${formatForName(a.impl.call)} -> ${a.cols.join(', ')}: ${a.impl.describe}`),
    mode === 'none'
      ? 'limit: applied on the coordinator only'
      : `limit push-down: ${mode}${shardLimit !== undefined ? ` (each shard returns at most ${shardLimit} groups)` : ''}`,
    'coordinator: merge partials on arrival, finalize, then HAVING, ORDER BY, DISTINCT, LIMIT BY, LIMIT',
  ].join('\n');

  return {
    shardQuery,
    describe,
    createMerger: () => new GroupMerger({ n, aggs, pushed, keyCanon, mode, topkAgg, shardLimit, specs, outNames, ctx, distinct: q.distinct }),
  };
}

/**
 * Each aggregate's family and its partial columns (__a0..). Identical partial expressions are
 * computed once per shard and read by every aggregate that needs them: avg(x) beside sum(x) shares
 * sum(x), min(x) beside max(x) shares count(x). The merger reads columns by name, so a shared column
 * is simply named by more than one slot.
 */
function aggregateSlots(n: Normalized, ctx: SplitContext, fam: FamilyContext): { aggs: AggSlot[]; aggColumns: Expr[] } {
  let next = 0;
  const colByExpr = new Map<string, string>();
  const aggColumns: Expr[] = [];
  const aggs: AggSlot[] = n.aggregates.map((call) => {
    const impl = resolveAggregate(call, fam);
    if (impl.approximate && ctx.sketches === 'refuse') {
      throw new ScatterError(
        'UNSUPPORTED',
        `${formatForName(call)}: the fast path would answer with its own sketch (${impl.approximate.method}), not ClickHouse's ${call.name}; ` +
          `the general path merges ClickHouse's own states. Set ch_scatter_approximate = 'sketches' to accept the sketch and its stated error`,
        { position: call.pos ? { line: call.pos.line, column: call.pos.column } : undefined },
      );
    }
    const cols = impl.shardExprs.map((e) => {
      const k = canon(e);
      let col = colByExpr.get(k);
      if (col === undefined) {
        col = `__a${next++}`;
        colByExpr.set(k, col);
        aggColumns.push({ ...e, alias: col });
      }
      return col;
    });
    return { impl, key: canon(call), cols };
  });
  return { aggs, aggColumns };
}

/**
 * Sub-expressions the coordinator cannot evaluate but that depend on group keys only: computed
 * per group by the shard (__e0..). If they use non-key columns the shard fails like ClickHouse.
 */
function pushedExpressions(n: Normalized, keyCanon: string[], aggByKey: ReadonlyMap<string, AggSlot>): Pushed[] {
  const isBound = (e: Expr) => keyCanon.includes(canon(e)) || aggByKey.has(canon(e));
  const pushed: Pushed[] = [];
  const prepare = (e: Expr, clause: string) => {
    if (isBound(e) || canEvaluate(e, isBound)) return;
    let hasAgg = false;
    walkExpr(e, (x) => {
      if (aggByKey.has(canon(x))) {
        hasAgg = true;
        return false;
      }
      return undefined;
    });
    if (!hasAgg) {
      const stray = strayColumn(e, keyCanon);
      if (stray) {
        throw new ScatterError('BAD_REQUEST', `column ${stray.parts.join('.')} in ${clause} is not under an aggregate function and not in GROUP BY`, {
          position: stray.pos ? { line: stray.pos.line, column: stray.pos.column } : undefined,
        });
      }
      const k = canon(e);
      if (!pushed.some((p) => p.key === k)) pushed.push({ key: k, expr: e, col: `__e${pushed.length}` });
      return;
    }
    if (e.kind === 'function' && !e.params && canEvaluate({ ...e, args: [] }, () => false)) {
      for (const a of e.args) prepare(a, clause);
      return;
    }
    if (e.kind === 'case' || e.kind === 'tuple') {
      walkExpr(e, (x) => {
        if (x === e) return undefined;
        prepare(x, clause);
        return false;
      });
      return;
    }
    const name = e.kind === 'function' ? `function ${e.name}` : e.kind;
    throw unsupportedAt(`${name} over aggregates in ${clause} cannot be computed after the merge`, e.pos);
  };
  for (const c of n.columns) prepare(c.expr, 'SELECT');
  if (n.having) prepare(n.having, 'HAVING');
  for (const o of n.orderBy) prepare(o.expr, 'ORDER BY');
  for (const b of n.limitBy?.by ?? []) prepare(b, 'LIMIT BY');
  return pushed;
}

/** The LIMIT push-down decision (the modes are in the header). */
function limitPushDown(
  q: SelectQuery,
  n: Normalized,
  ctx: SplitContext,
  keyCanon: string[],
  aggByKey: ReadonlyMap<string, AggSlot>,
): { mode: PushMode; topkAgg?: AggSlot; wanted?: number } {
  const wanted = n.limit === undefined ? undefined : n.offset + n.limit;
  if (wanted === undefined || q.distinct || n.limitBy) return { mode: 'none', wanted };
  const complete = ctx.shardingKeyColumn !== undefined && n.groupBy.some((g) => g.kind === 'column' && g.parts[g.parts.length - 1] === ctx.shardingKeyColumn);
  const orderCanon = n.orderBy.map((o) => canon(o.expr));
  if (complete && n.orderBy.length > 0) return { mode: 'complete', wanted };
  if (
    !n.having &&
    n.orderBy.length > 0 &&
    keyCanon.length > 0 &&
    orderCanon.every((c) => keyCanon.includes(c)) &&
    keyCanon.every((c) => orderCanon.includes(c))
  ) {
    return { mode: 'keys', wanted };
  }
  if (!n.having && n.orderBy.length > 0 && n.orderBy[0]!.direction === 'DESC' && keyCanon.length > 0) {
    const a = aggByKey.get(orderCanon[0]!);
    if (a?.impl.countLike && a.impl.orderExpr) {
      if (ctx.topCount === 'refuse') {
        throw unsupportedAt(
          `ORDER BY ${formatForName(a.impl.call)} DESC LIMIT over groups that span shards is approximate on the fast path (shard_size); ` +
            `the general path answers it exactly. Set ch_scatter_top_count = 'shard_size' to accept the approximation and its error bound`,
          n.orderBy[0]!.expr.pos,
        );
      }
      if (ctx.topCount !== 'every_group') return { mode: 'topk', topkAgg: a, wanted };
    }
  }
  return { mode: 'none', wanted };
}

/** The shards' query: keys, pushed expressions and partial columns, with the pushed-down ORDER BY and LIMIT. */
function shardQueryOf(
  q: SelectQuery,
  n: Normalized,
  ctx: SplitContext,
  s: { pushed: Pushed[]; aggColumns: Expr[]; mode: PushMode; topkAgg?: AggSlot; wanted?: number },
): { shardQuery: SelectQuery; shardLimit?: number } {
  const shardColumns: Expr[] = [
    ...n.groupBy.map((g, i) => ({ ...g, alias: `__k${i}` })),
    ...s.pushed.map((p) => ({ ...p.expr, alias: p.col })),
    ...s.aggColumns,
  ];
  const shardQuery: SelectQuery = {
    kind: 'select',
    distinct: false,
    columns: shardColumns,
    withTotals: false,
  };
  if (q.from) shardQuery.from = q.from;
  if (n.prewhere) shardQuery.prewhere = n.prewhere;
  if (n.where) shardQuery.where = n.where;
  if (n.groupBy.length) shardQuery.groupBy = n.groupBy;
  const stripPos = (o: { expr: Expr; direction: 'ASC' | 'DESC'; nulls?: 'FIRST' | 'LAST' }): OrderItem => {
    const it: OrderItem = { expr: o.expr, direction: o.direction };
    if (o.nulls) it.nulls = o.nulls;
    return it;
  };
  let shardLimit: number | undefined;
  // Ties at a shard's LIMIT cut-off must not be settled by the shard's read order (ClickHouse
  // sorts ties in no fixed order): the group keys follow the user's ORDER BY as tie-breakers, in
  // the same order the coordinator breaks ties (GroupMerger.finalize), so the same data always
  // sends the same groups.
  const ordered = new Set(n.orderBy.map((o) => canon(o.expr)));
  const keyTies: OrderItem[] = n.groupBy.filter((g) => !ordered.has(canon(g))).map((g) => ({ expr: g, direction: 'ASC' as const }));
  if (s.mode === 'complete') {
    if (n.having) shardQuery.having = n.having;
    shardQuery.orderBy = [...n.orderBy.map(stripPos), ...keyTies];
    shardLimit = s.wanted;
  } else if (s.mode === 'keys') {
    shardQuery.orderBy = n.orderBy.map(stripPos);
    shardLimit = s.wanted;
  } else if (s.mode === 'topk') {
    shardLimit = shardSize(s.wanted!, ctx);
    shardQuery.orderBy = [{ expr: s.topkAgg!.impl.orderExpr!, direction: 'DESC' }, ...keyTies];
  }
  if (shardLimit !== undefined) shardQuery.limit = { limit: int(shardLimit) };
  return { shardQuery, shardLimit };
}

/** The first column reference in `e` that is not inside a group key expression (lambda parameters aside). */
function strayColumn(e: Expr, keyCanon: string[], params: ReadonlySet<string> = new Set()): (Expr & { kind: 'column' }) | undefined {
  if (keyCanon.includes(canon(e))) return undefined;
  if (e.kind === 'column') return e.parts.length === 1 && params.has(e.parts[0]!) ? undefined : e;
  // A lambda's parameters are not columns inside its body.
  const inner = e.kind === 'lambda' ? new Set([...params, ...e.params]) : params;
  // `k IN t`: t names a table (a shipped GLOBAL set included), which every shard holds.
  const setTable = inTableOperand(e);
  for (const child of childrenOf(e)) {
    if (child === setTable) continue;
    const s = strayColumn(child, keyCanon, inner);
    if (s) return s;
  }
  return undefined;
}

interface Group {
  keys: Value[];
  pushed: (Value | undefined)[];
  states: AggState[];
  shards: Set<number>;
}

interface MergerSetup {
  n: Normalized;
  aggs: AggSlot[];
  pushed: Pushed[];
  keyCanon: string[];
  mode: PushMode;
  topkAgg?: AggSlot;
  shardLimit?: number;
  specs: SortSpec[];
  outNames: string[];
  ctx: SplitContext;
  distinct: boolean;
}

class GroupMerger implements Merger {
  private groups = new Map<string, Group>();
  private types = new Map<string, string>();
  private typeShard = new Map<string, number>();
  /** max_rows_to_transfer over the groups every shard sent ('throw' or 'break'). */
  private budget: TransferBudget;
  /** top-k: per shard that cut its list, the smallest count it sent. */
  private cut = new Map<number, bigint>();
  constructor(private s: MergerSetup) {
    this.budget = new TransferBudget(s.ctx.maxRowsToTransfer, s.ctx.transferOverflowMode ?? 'throw', 'groups');
  }

  private newGroup(keys: Value[]): Group {
    return { keys, pushed: this.s.pushed.map(() => undefined), states: this.s.aggs.map((a) => a.impl.newState()), shards: new Set() };
  }

  add(shard: number, sent: Record<string, unknown>[], meta: ColumnMeta[]): void {
    // This answer is parsed by its own column types; the result's types are those of the
    // lowest-numbered shard that answered (shards of one table agree; if they ever do not, the
    // arrival order still must not choose).
    const here = new Map<string, string>();
    for (const m of meta) {
      here.set(m.name, m.type);
      const s = this.typeShard.get(m.name);
      if (s === undefined || shard < s) {
        this.types.set(m.name, m.type);
        this.typeShard.set(m.name, shard);
      }
    }
    const fit = this.budget.take(sent.length);
    const rows = fit === sent.length ? sent : sent.slice(0, fit);
    const typeOf = (c: string) => here.get(c) ?? this.types.get(c) ?? 'String';
    const { aggs } = this.s;
    // Resolve column types and parsers once per shard answer, not per row.
    const keyCols = this.s.keyCanon.map((_k, i) => `__k${i}`);
    const keyParse = keyCols.map((c) => parserFor(typeOf(c)));
    const pushParse = this.s.pushed.map((p) => parserFor(typeOf(p.col)));
    const aggTypes = aggs.map((a) => a.cols.map(typeOf));
    const aggParse = aggTypes.map((ts) => ts.map(parserFor));
    const single = keyCols.length === 1;
    try {
      for (const r of rows) {
        const keys = keyCols.map((c, i) => keyParse[i]!(r[c]));
        const gk = single ? valueKey(keys[0]!) : keys.map(valueKey).join('\u0000');
        let g = this.groups.get(gk);
        if (!g) {
          g = this.newGroup(keys);
          this.groups.set(gk, g);
        }
        if (this.s.mode === 'topk') g.shards.add(shard); // only top-k error bounds need it
        for (let i = 0; i < this.s.pushed.length; i++) {
          if (g.pushed[i] === undefined) g.pushed[i] = pushParse[i]!(r[this.s.pushed[i]!.col]);
        }
        for (let i = 0; i < aggs.length; i++) {
          const cols = aggs[i]!.cols;
          const parse = aggParse[i]!;
          const vals = new Array<Value>(cols.length);
          for (let j = 0; j < cols.length; j++) vals[j] = parse[j]!(r[cols[j]!]);
          g.states[i]!.add(vals, aggTypes[i]!, shard);
        }
      }
    } catch (e) {
      // A value the merge has no value for: refused naming the answer's columns as they would be typed, so the general
      // path can carry the objects as states at once (it checks its own answer's types and asks again where they differ).
      if (e instanceof UnmergeableValue && !e.answer) throw new UnmergeableValue(e.type, this.emptyAnswerMeta());
      throw e;
    }
    if (this.s.mode === 'topk' && this.s.shardLimit !== undefined && sent.length >= this.s.shardLimit && sent.length > 0) {
      const c = this.s.topkAgg!.cols[0]!;
      const last = fromJson(sent[sent.length - 1]![c], typeOf(c));
      this.cut.set(shard, BigInt((last ?? 0n) as bigint));
    }
  }

  /** Each group's expressions evaluated over its keys and states, typed by the shards' answers so far. */
  private evaluator() {
    const { aggs, pushed, keyCanon } = this.s;
    const typeOf = (c: string) => this.types.get(c);
    // Where each bound expression's value lives (resolved once, not per group).
    const slot = new Map<string, { kind: 'key' | 'pushed' | 'agg'; i: number }>();
    for (const [i, k] of keyCanon.entries()) slot.set(k, { kind: 'key', i });
    for (const [i, p] of pushed.entries()) slot.set(p.key, { kind: 'pushed', i });
    for (const [i, a] of aggs.entries()) slot.set(a.key, { kind: 'agg', i });
    const keyTypes = keyCanon.map((_k, i) => typeOf(`__k${i}`) ?? 'String');
    const pushedTypes = pushed.map((p) => typeOf(p.col) ?? 'String');
    const aggTypes = aggs.map((a) => {
      const ts = a.cols.map((c) => typeOf(c));
      return ts.every((t) => t !== undefined) ? (ts as string[]) : undefined;
    });
    const evalGroup = (g: Group) => {
      const finals: (Typed | undefined)[] = new Array(aggs.length);
      const lookup = (e: Expr): Typed | undefined => {
        const s = slot.get(canon(e));
        if (!s) return undefined;
        if (s.kind === 'key') return { v: g.keys[s.i] ?? null, t: keyTypes[s.i]! };
        if (s.kind === 'pushed') return { v: g.pushed[s.i] ?? null, t: pushedTypes[s.i]! };
        let f = finals[s.i];
        if (!f) {
          const r = g.states[s.i]!.finalize(aggTypes[s.i]);
          f = finals[s.i] = { v: r.value, t: r.type };
        }
        return f;
      };
      return (e: Expr) => evaluate(e, lookup);
    };
    return { evalGroup, keyTypes };
  }

  /** The answer's columns as an empty group types them (the types of the shards' answers so far; String where none). */
  private emptyAnswerMeta(): ColumnMeta[] {
    const { n, keyCanon } = this.s;
    let types: string[];
    try {
      const ev = this.evaluator().evalGroup(this.newGroup(keyCanon.map(() => null)));
      types = n.columns.map((c) => ev(c.expr).t);
    } catch {
      types = n.columns.map(() => 'String');
    }
    return this.s.outNames.map((name, i) => ({ name, type: types[i]! }));
  }

  finalize(opts: FinalizeOptions = {}): FinalResult {
    const { n, keyCanon, specs } = this.s;
    if (keyCanon.length === 0 && this.groups.size === 0) this.groups.set('[]', this.newGroup([]));
    const work: (WorkRow & { types: string[]; group: Group })[] = [];
    const { evalGroup, keyTypes } = this.evaluator();
    for (const g of this.groups.values()) {
      const ev = evalGroup(g);
      if (n.having) {
        const h = ev(n.having);
        if (h.v === null || h.v === 0n || h.v === 0 || h.v === false) continue;
      }
      const outs = n.columns.map((c) => ev(c.expr));
      work.push({
        out: outs.map((o) => o.v),
        types: outs.map((o) => o.t),
        // In ClickHouse's order (order-key.ts: Enum by number, IPs by bytes).
        sort: n.orderBy.map((o) => {
          const r = ev(o.expr);
          return orderKey(r.v, r.t);
        }),
        by: (n.limitBy?.by ?? []).map((b) => ev(b).v),
        // Ties on ORDER BY (or no ORDER BY) break on the group keys ascending, as the shards
        // break them: the Map of groups is in arrival order, which must never pick the rows.
        tie: g.keys.map((k, i) => orderKey(k, keyTypes[i]!)),
        group: g,
      });
    }
    // No ORDER BY: any order is ClickHouse's answer, but ours must not depend on arrival order.
    // Last resort for keys equal in ClickHouse's order yet distinct groups: the total order.
    const bySort = rowComparator(specs);
    if (keyCanon.length) work.sort((a, b) => bySort(a, b) || totalCompare(a.group.keys, b.group.keys));
    const page = applyPostClauses(work, {
      sort: specs,
      distinct: this.s.distinct,
      limitBy: n.limitBy ? { limit: n.limitBy.limit, offset: n.limitBy.offset } : undefined,
      limit: n.limit,
      offset: n.offset,
    }).rows as typeof work;

    // Column types: from the first row, else from evaluating an empty group.
    const meta = page.length ? this.s.outNames.map((name, i) => ({ name, type: page[0]!.types[i]! })) : this.emptyAnswerMeta();
    const data = page.map((r) => {
      const o: Record<string, unknown> = {};
      meta.forEach((m, i) => {
        o[m.name] = toJson(r.out[i]!, r.types[i] ?? m.type, opts.exactStrings);
      });
      return o;
    });
    const approximate = this.approximations(page.map((r) => r.group));
    const res: FinalResult = { meta, data };
    if (approximate) res.approximate = approximate;
    const truncated = this.truncation();
    if (truncated.length) res.truncated = truncated;
    return res;
  }

  /** What transfer_overflow_mode = 'break' dropped: shard groups, and values of bounded states. */
  private truncation(): string[] {
    const bounded = this.s.aggs.flatMap((a, i) => (a.impl.boundedByTransfer ? [i] : []));
    if (bounded.length && this.s.ctx.transferOverflowMode === 'break') {
      for (const g of this.groups.values()) {
        for (const i of bounded) {
          const why = g.states[i]!.truncated?.();
          if (why) this.budget.note(why);
        }
      }
    }
    return this.budget.notes();
  }

  private approximations(groups: Group[]): Record<string, ApproximateInfo> | undefined {
    const out: Record<string, ApproximateInfo> = {};
    const { n, aggs, outNames } = this.s;
    n.columns.forEach((c, ci) => {
      const used: AggSlot[] = [];
      walkExpr(c.expr, (x) => {
        const a = this.s.aggs.find((s) => s.key === canon(x));
        if (a) {
          used.push(a);
          return false;
        }
        return undefined;
      });
      for (const a of used) {
        if (!a.impl.approximate) continue;
        const info: ApproximateInfo = { ...a.impl.approximate };
        if (info.method === 'topk-shard-size') {
          const ai = aggs.indexOf(a);
          const per = groups.map((g) => g.states[ai]!.errorBound?.() ?? 0n);
          // biome-ignore lint/complexity/useMathMinMax: bigints, which Math.max does not take
          const overall = per.reduce((m, x) => (x > m ? x : m), 0n);
          if (overall === 0n) continue; // no shard cut its list: exact
          info.errorUpperBound = overall.toString();
          info.perRowErrorUpperBound = per.map(String);
        }
        out[outNames[ci]!] = info;
        break;
      }
    });
    // GROUP BY ... ORDER BY count() DESC LIMIT n with shard_size push-down.
    if (this.s.mode === 'topk' && this.cut.size > 0 && this.s.topkAgg) {
      let overall = 0n;
      for (const v of this.cut.values()) overall += v;
      const per = groups.map((g) => {
        let e = 0n;
        for (const [shard, v] of this.cut) if (!g.shards.has(shard)) e += v;
        return e;
      });
      const ci = n.columns.findIndex((c) => canon(c.expr) === this.s.topkAgg!.key);
      const name = ci >= 0 ? outNames[ci]! : formatForName(this.s.topkAgg.impl.call);
      out[name] = { method: 'topk-shard-size', errorUpperBound: overall.toString(), perRowErrorUpperBound: per.map(String) };
    }
    return Object.keys(out).length ? out : undefined;
  }
}
