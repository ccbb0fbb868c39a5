// The split of a row query (no aggregates). `ORDER BY ... LIMIT k` is exact: each shard returns its
// first offset + k rows by the sort key plus a tie-breaker, and the coordinator merges the sorted lists
// (top-k by a per-row score is exact: each global top-k row is in its shard's top k). The sort keys
// travel as hidden columns (__o0..) so they need no re-evaluation; ties break on the tie-breaker
// columns (SplitContext.tieBreaker, else every selected column), so merge order cannot change the
// answer. Cursor pagination (search_after): the next page's shards get "after the last row" as a WHERE
// predicate and no OFFSET, so page p costs one page per shard.
import type { Expr, SelectQuery, OrderItem } from '../sql/ast.js';
import { ScatterError } from '../errors.js';
import { canon, col, fn, int } from './ast-build.js';
import { formatForName, qualifiersOf } from '../sql/names.js';
import { walkExpr, fromTables } from '../sql/visit.js';
import type { Normalized } from './analyze.js';
import { unsupportedAt } from './analyze.js';
import { afterPredicate, decodeCursor, encodeCursor, queryShapeHash, type CursorKey } from './cursor.js';
import type { SortSpec } from './evaluator.js';
import { applyPostClauses, merge2, rowComparator, type WorkRow } from './post-process.js';
import type { FinalizeOptions, FinalResult, Merger, SplitContext, SplitQuery } from './types.js';
import { fromJson, toJson, UnmergeableValue } from './values.js';
import { orderKey } from './order-key.js';
import type { ColumnMeta } from '../clickhouse/port.js';
import { TransferBudget } from './transfer-budget.js';
import { provedSortable } from './sort-key-types.js';

function withoutLastConjunct(where: Expr | undefined): Expr | undefined {
  if (where?.kind !== 'function' || where.name !== 'and' || where.args.length < 2) return undefined;
  const rest = where.args.slice(0, -1);
  return rest.length === 1 ? rest[0] : { ...where, args: rest };
}

/**
 * The SELECT list travels as written, its aliases with it, beside clauses whose aliases are already
 * substituted: where an alias names a column that such a clause reads (`concat(sensor, 'x') AS sensor
 * ... WHERE sensor = 's-1x'`, substituted to `concat(sensor, 'x') = ...`), the shard would read that
 * column as the alias again. Refused here, so the general path (which names its columns apart) answers.
 */
function refuseRereadAlias(n: Normalized, hidden: readonly Expr[]): void {
  const aliases = new Set(
    n.columns.filter((c) => c.name !== undefined && !(c.expr.kind === 'column' && c.expr.parts[c.expr.parts.length - 1] === c.name)).map((c) => c.name!),
  );
  if (!aliases.size) return;
  const sent = [n.where, n.prewhere, n.having, ...n.orderBy.map((o) => o.expr), ...(n.limitBy?.by ?? []), ...hidden];
  for (const e of sent)
    if (e)
      walkExpr(e, (x) => {
        if (x.kind === 'column' && x.parts.length === 1 && aliases.has(x.parts[0]!))
          throw unsupportedAt(`the alias ${x.parts[0]} names a column the query reads beside it (the shards would read the alias)`, x.pos);
        return x.kind !== 'subquery' && x.kind !== 'lambda';
      });
}

export function splitRows(q: SelectQuery, n: Normalized, ctx: SplitContext): SplitQuery {
  const specs: SortSpec[] = n.orderBy.map((o) => ({ direction: o.direction, nulls: o.nulls }));
  // Tie-breaker expressions: configured unique key columns, else the selected columns.
  // A constant column breaks no tie, and a bare integer in ORDER BY would be read as a position.
  const selected = n.columns.map((c) => c.expr).filter((e) => e.kind !== 'literal');
  // An item the plan cannot prove sortable (a JSON path's Dynamic, a shipped JOIN's Dynamic column, a call keeping
  // either's type) may be a sort key ClickHouse refuses (44): left out, one node answers it.
  const quals = qualifiersOf(q);
  // An aliased table is still reached by its own name (`db.t.c` beside `AS b`).
  for (const t of fromTables(q)) if (t.kind === 'table') for (const name of [t.table, `${t.database ?? 'default'}.${t.table}`]) quals.add(name);
  const sortable = selected.filter((e) => provedSortable(e, quals, ctx.unsortable));
  const tieExprs: Expr[] = ctx.tieBreaker?.length ? ctx.tieBreaker.map((c) => col(c)) : n.hasAsterisk ? [] : sortable;
  // Sort keys, tie-breakers and LIMIT BY keys travel once per distinct expression: one already
  // selected is read from its SELECT column (by position: the shard names it), one repeated among
  // them is sent once under its first hidden name. `SELECT ts ... ORDER BY ts` no longer ships ts
  // twice (or three times with the tie-breaker), which halves row payloads near the ~6 MB limit.
  const selectedAt = new Map<string, number>();
  if (!n.hasAsterisk)
    n.columns.forEach((c, i) => {
      if (!selectedAt.has(canon(c.expr))) selectedAt.set(canon(c.expr), i);
    });
  const hiddenSent = new Map<string, string>();
  const hiddenExprs: Expr[] = [];
  const place = (e: Expr, alias: string): Src => {
    const k = canon(e);
    const at = selectedAt.get(k);
    if (at !== undefined) return at;
    const sent = hiddenSent.get(k);
    if (sent !== undefined) return sent;
    hiddenSent.set(k, alias);
    hiddenExprs.push({ ...e, alias });
    return alias;
  };
  const sortCols = n.orderBy.map((o, i) => place(o.expr, `__o${i}`));
  const tieCols = tieExprs.map((e, i) => place(e, `__t${i}`));
  const byCols = (n.limitBy?.by ?? []).map((e, i) => place(e, `__b${i}`));
  refuseRereadAlias(n, hiddenExprs);
  const ordered = n.orderBy.length > 0;
  // A cursor needs the tie-breaker to tell every two rows apart: not with a selected column left out of it.
  const pageable = ordered && n.limit !== undefined && !n.limitBy && tieExprs.length > 0 && (!!ctx.tieBreaker?.length || sortable.length === selected.length);
  // The next page asks for the query as written: query-then-fetch's bound (its WHERE's last conjunct) is no part of its shape.
  const shape = queryShapeHash(canon({ ...q, limit: undefined, where: ctx.queryThenFetchBound ? withoutLastConjunct(q.where) : q.where } as unknown as Expr));

  let where = n.where;
  let after: { keys: CursorKey[]; dup: number } | undefined;
  if (ctx.cursor) {
    if (!pageable) throw new ScatterError('BAD_REQUEST', 'a cursor needs ORDER BY ... LIMIT n over explicit columns (no LIMIT BY)');
    after = decodeCursor(ctx.cursor, shape, n.orderBy.length + tieExprs.length, ctx.cursorKey);
    // Rows equal to the last row come back too (inclusive): identical rows may straddle pages.
    const pred = afterPredicate(
      [...n.orderBy.map((o) => o.expr), ...tieExprs],
      [...specs, ...tieExprs.map(() => ({ direction: 'ASC' as const }))],
      after.keys,
      true,
    );
    where = where ? fn('and', [where, pred]) : pred;
  }
  const offset = after ? after.dup : n.offset;
  const wanted = n.limit === undefined ? undefined : offset + n.limit + (pageable ? 1 : 0);

  const shardQuery: SelectQuery = {
    kind: 'select',
    distinct: q.distinct,
    columns: [...q.columns, ...hiddenExprs],
    withTotals: false,
  };
  if (q.distinct && (n.orderBy.length || tieExprs.length)) {
    // Hidden columns would change what DISTINCT compares; only exact when they are selected anyway.
    const selected = new Set(n.columns.map((c) => canon(c.expr)));
    if (![...n.orderBy.map((o) => o.expr), ...tieExprs].every((e) => selected.has(canon(e)))) {
      throw unsupportedAt('SELECT DISTINCT with ORDER BY an unselected expression', q.pos);
    }
  }
  // The SELECT list is sent as written, so WITH scalars it may use travel along.
  if (q.with?.length) shardQuery.with = q.with;
  if (q.from) shardQuery.from = q.from;
  if (n.prewhere) shardQuery.prewhere = n.prewhere;
  if (where) shardQuery.where = where;
  // HAVING without aggregates or GROUP BY filters rows, as in ClickHouse: each shard filters its own.
  if (n.having) shardQuery.having = n.having;
  if (ordered) {
    shardQuery.orderBy = [
      ...n.orderBy.map((o): OrderItem => (o.nulls ? { expr: o.expr, direction: o.direction, nulls: o.nulls } : { expr: o.expr, direction: o.direction })),
      ...tieExprs.map((e): OrderItem => ({ expr: e, direction: 'ASC' })),
    ];
  }
  if (n.limitBy) shardQuery.limitBy = { limit: int(n.limitBy.offset + n.limitBy.limit), by: n.limitBy.by };
  if (wanted !== undefined) shardQuery.limit = { limit: int(wanted) };

  const hidden = new Set(hiddenSent.values());
  return {
    shardQuery,
    describe: [
      ordered
        ? `shards: rows sorted by ${n.orderBy.map((o) => `${formatForName(o.expr)} ${o.direction}`).join(', ')} then the tie-breaker, at most ${wanted ?? 'all'} each`
        : `shards: rows, at most ${wanted ?? 'all'} each`,
      'coordinator: k-way merge of the sorted lists, then DISTINCT, LIMIT BY, OFFSET, LIMIT' + (pageable ? '; cursor from the last row' : ''),
    ].join('\n'),
    createMerger: () => new RowMerger(n, specs, sortCols, tieCols, byCols, hidden, ctx, { pageable, shape, offset, distinct: q.distinct, ordered, after }),
  };
}

/**
 * The shards' names, except where the plan knows ClickHouse's name for the query as written and a shard
 * would say another: a column read through the local table (`sensor_events.status` for `dist.status`), a
 * shipped GLOBAL set or a JOIN's qualifier the plan gave (the `nameAs` of the column or of one inside it).
 */
function namedAsWritten(meta: ColumnMeta[], n: Normalized): ColumnMeta[] {
  if (n.hasAsterisk) return meta;
  return meta.map((m, i) => {
    const c = n.columns[i];
    if (!c || c.written.alias !== undefined || c.outName === m.name) return m;
    let named = false;
    walkExpr(c.written, (x) => {
      if ((x.kind === 'column' || x.kind === 'function') && x.nameAs !== undefined) named = true;
    });
    return named ? { ...m, name: c.outName } : m;
  });
}

type Row = WorkRow & { raw: Record<string, unknown>; shard: number; pos: number };
/** Where a sort / tie / LIMIT BY value is in a shard row: a hidden column's name, or the index of the selected column. */
type Src = string | number;

class RowMerger implements Merger {
  /** Rows merged so far, in final order (when ordered); truncated to what the page can use. */
  private acc: Row[] = [];
  /** Without ORDER BY: each shard's rows, concatenated in shard order at finalize. */
  private byShard = new Map<number, Row[]>();
  private meta: ColumnMeta[] | undefined;
  /** max_rows_to_transfer over the rows every shard sent ('throw' or 'break'). */
  private budget: TransferBudget;
  private cmp: (a: Row, b: Row) => number;
  /** How many merged rows can matter: offset + limit + 1 (the +1 tells whether more follow). */
  private keep: number;
  private cursorKey: Buffer | undefined;
  constructor(
    private n: Normalized,
    private specs: SortSpec[],
    private sortSrc: Src[],
    private tieSrc: Src[],
    private bySrc: Src[],
    private hidden: Set<string>,
    ctx: SplitContext,
    private o: { pageable: boolean; shape: string; offset: number; distinct: boolean; ordered: boolean; after?: { keys: CursorKey[]; dup: number } },
  ) {
    this.budget = new TransferBudget(ctx.maxRowsToTransfer, ctx.transferOverflowMode ?? 'throw', 'rows');
    this.cursorKey = ctx.cursorKey;
    const base = rowComparator(specs);
    // Last resort for rows equal on every compared value: shard, then position, so the merge is
    // deterministic whatever the arrival order.
    this.cmp = (a, b) => base(a, b) || a.shard - b.shard || a.pos - b.pos;
    this.keep = n.limit !== undefined && !o.distinct && !n.limitBy ? o.offset + n.limit + 1 : Infinity;
  }

  /** Column names in the shard answers, resolved from the first meta (selected columns by position). */
  private sortCols: string[] = [];
  private tieCols: string[] = [];
  private byCols: string[] = [];
  private resolve(meta: ColumnMeta[]): void {
    const name = (s: Src) => (typeof s === 'string' ? s : (meta[s]?.name ?? `__missing${s}`));
    this.sortCols = this.sortSrc.map(name);
    this.tieCols = this.tieSrc.map(name);
    this.byCols = this.bySrc.map(name);
  }

  add(shard: number, sent: Record<string, unknown>[], meta: ColumnMeta[]): void {
    if (!this.meta && meta.length) {
      this.meta = meta;
      this.resolve(meta);
    }
    const fit = this.budget.take(sent.length);
    // Each shard's list is sorted, so under 'break' its first rows are the ones worth keeping.
    const rows = fit === sent.length ? sent : sent.slice(0, fit);
    const types = new Map(meta.map((m) => [m.name, m.type]));
    const outCols = meta.filter((m) => !this.hidden.has(m.name));
    const list: Row[] = this.parsed(rows, outCols, (r, pos) => ({
      raw: r,
      shard,
      pos,
      out: outCols.map((m) => fromJson(r[m.name], m.type)),
      // Sort and tie values in ClickHouse's order (order-key.ts), as the shards sorted them.
      sort: this.sortCols.map((c) => orderKey(fromJson(r[c], types.get(c) ?? 'String'), types.get(c) ?? 'String')),
      by: this.byCols.map((c) => fromJson(r[c], types.get(c) ?? 'String')),
      tie: this.tieCols.map((c) => orderKey(fromJson(r[c], types.get(c) ?? 'String'), types.get(c) ?? 'String')),
    }));
    // Merge on arrival: one linear merge of the shard's sorted list into the running result,
    // truncated to the rows the page can still use (bounded memory for ORDER BY ... LIMIT).
    if (this.o.ordered) {
      list.sort(this.cmp);
      this.acc = merge2(this.acc, list, this.cmp, this.keep);
    } else {
      this.byShard.set(shard, list);
    }
  }

  /** Each row parsed; a value the merge has no value for is refused naming the answer's columns, as ClickHouse names them. */
  private parsed(rows: Record<string, unknown>[], outCols: ColumnMeta[], row: (r: Record<string, unknown>, pos: number) => Row): Row[] {
    try {
      return rows.map(row);
    } catch (e) {
      if (e instanceof UnmergeableValue && !e.answer) throw new UnmergeableValue(e.type, namedAsWritten(outCols, this.n));
      throw e;
    }
  }

  finalize(opts: FinalizeOptions = {}): FinalResult {
    const meta = namedAsWritten(
      (this.meta ?? this.n.columns.map((c) => ({ name: c.outName, type: 'String' }))).filter((m) => !this.hidden.has(m.name)),
      this.n,
    );
    let all = this.o.ordered ? this.acc : [...this.byShard.entries()].sort((a, b) => a[0] - b[0]).flatMap((e) => e[1]);
    const keyCols = [...this.sortCols, ...this.tieCols];
    const keyText = (r: Row) => JSON.stringify(keyCols.map((c) => r.raw[c] ?? null));
    let offset = this.o.offset;
    const after = this.o.after;
    const afterText = after ? JSON.stringify(after.keys.map((k) => k.json)) : undefined;
    if (after) {
      // The shards returned rows equal to the cursor's row too: drop the ones earlier pages returned.
      let skip = 0;
      while (skip < after.dup && skip < all.length && keyText(all[skip]!) === afterText) skip++;
      all = all.slice(skip);
      offset = 0;
    }
    const page = applyPostClauses(all, { sort: this.specs, distinct: this.o.distinct, limitBy: this.n.limitBy, limit: this.n.limit, offset });
    // Each value printed from its parsed form, not the shard's JSON: one spelling for every answer
    // (Decimals and non-finite floats as text, invalid UTF-8 as U+FFFD; values.ts toJson).
    const data = page.rows.map((r) => {
      const o: Record<string, unknown> = {};
      const out = (r as WorkRow).out;
      meta.forEach((m, i) => {
        o[m.name] = toJson(out[i]!, m.type, opts.exactStrings);
      });
      return o;
    });
    const res: FinalResult = { meta, data };
    const truncated = this.budget.notes();
    if (truncated.length) res.truncated = truncated;
    // A truncated page may lack rows that sort before its last one: no cursor past them.
    if (this.o.pageable && page.more && page.rows.length && !truncated.length) {
      const last = page.rows[page.rows.length - 1] as WorkRow & { raw: Record<string, unknown> };
      const types = new Map((this.meta ?? []).map((m) => [m.name, m.type]));
      const keys: CursorKey[] = keyCols.map((c) => ({ json: last.raw[c] ?? null, type: types.get(c) ?? 'String' }));
      // How many returned rows (this page and, when it is all one value, earlier ones) equal the last.
      const lastText = keyText(last as Row);
      let dup = 0;
      for (let i = page.rows.length - 1; i >= 0 && keyText(page.rows[i] as Row) === lastText; i--) dup++;
      if (dup === page.rows.length && after && afterText === lastText) dup += after.dup;
      res.cursor = encodeCursor(this.o.shape, keys, dup, this.cursorKey);
    }
    return res;
  }
}
