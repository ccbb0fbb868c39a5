// A SELECT without aggregates, cut where ClickHouse's Distributed engine cuts it: the shards compute
// the rows (`expr AS _c<i>`), with ORDER BY and LIMIT (limit + offset), LIMIT BY and DISTINCT pushed
// down when no window function needs every row; the final stage re-sorts and applies window
// functions, DISTINCT, LIMIT BY, LIMIT/OFFSET. `SELECT *` alone travels as whole rows.
// Input: a query whose aliases are expanded (aliases.ts); `names` are its output column names.
import type { Expr, SelectQuery } from '../../sql/ast.js';
import { printExpr } from '../../sql/print.js';
import { equalExpr, mapExpr } from '../../sql/visit.js';
import { errorAt } from '../position.js';
import { col, finalExprs, finalSteps, hasColumn, hasFinalOnly, hasWindow, leafBase, mapFinal, unfilled, type CutSelect } from './cut-common.js';
import type { StageNames } from './stage-names.js';

/** limit + offset as one integer literal, when both are integer literals. */
function pushedLimit(q: SelectQuery): Expr | undefined {
  const l = q.limit;
  if (!l) return undefined;
  const int = (e: Expr | undefined): bigint | undefined =>
    e === undefined ? 0n : e.kind === 'literal' && e.type === 'integer' && /^\d+$/.test(e.value) ? BigInt(e.value) : undefined;
  const a = int(l.limit);
  const b = int(l.offset);
  if (a === undefined || b === undefined) return undefined;
  return { kind: 'literal', type: 'integer', value: String(a + b) };
}

export function cutRows(q: SelectQuery, names: string[], from: string, stage: StageNames, finalOnly: (e: Expr) => boolean = () => false): CutSelect {
  const readsRow = (e: Expr) => hasColumn(e, finalOnly);
  const windowed = finalExprs(q).some(hasWindow);
  const star = q.columns.some((c) => c.kind === 'asterisk');
  if (star) return cutStar(q, from, windowed);
  const leafCols: Expr[] = [];
  const leafCol = (e: Expr): Expr => {
    let i = leafCols.findIndex((x) => equalExpr(x, e));
    if (i < 0) i = leafCols.push(e) - 1;
    return col(stage.value(i));
  };
  // A window-free expression that reads a column is computed on the shards; constants stay in the
  // final stage (a window function's offset must stay a constant there).
  const rewrite = (e: Expr): Expr =>
    mapExpr(e, (x) => {
      if (x.kind === 'subquery') return finalOnly(x) ? x : readsRow(x) ? leafCol(x) : undefined;
      if (x.kind === 'lambda') return hasWindow(x) ? undefined : readsRow(x) ? leafCol(x) : undefined;
      // Only the row-reading parts go to the shards: `value / (SELECT count() FROM t)` keeps the division here.
      if (!hasWindow(x) && !hasFinalOnly(x, finalOnly)) return readsRow(x) ? leafCol(x) : undefined;
      return undefined;
    });
  // Output columns first, in order, so the shards' DISTINCT (when pushed down) sees exactly them.
  const outputs = q.columns.map((c) => rewrite(c));
  const outputCount = leafCols.length;
  const final = mapFinal(q, rewrite, from, names);
  final.columns = outputs.map((e, i) => ({ ...e, alias: names[i]! }));
  if (leafCols.length === 0) leafCols.push({ kind: 'literal', type: 'integer', value: '1' });
  const leaf = leafBase(
    q,
    leafCols.map((e, i) => ({ ...e, alias: stage.value(i) })),
  );
  const notes: string[] = [];
  if (!windowed) pushDown(q, final, leaf, leafCols.length === outputCount, notes);
  else notes.push('window functions need every row: the shards return all matching rows, unsorted');
  notes.push(`final stage: ${finalSteps(q)}`);
  return { leaf, final, notes };
}

/** ORDER BY + LIMIT (limit + offset) and DISTINCT / LIMIT BY run on the shards too, as ClickHouse does. */
function pushDown(q: SelectQuery, final: SelectQuery, leaf: SelectQuery, onlyOutputs: boolean, notes: string[]): void {
  const distinctOk = !q.distinct || onlyOutputs;
  if (q.distinct && distinctOk) {
    leaf.distinct = true;
    notes.push('DISTINCT runs on the shards and again in the final stage');
  }
  if (!distinctOk) return;
  // HAVING without aggregates filters rows in the final stage: a shard's LIMIT before it would drop rows it keeps.
  if (q.having) {
    notes.push('HAVING filters the rows in the final stage, so ORDER BY and LIMIT run there only');
    return;
  }
  // An ORDER BY / LIMIT BY over a final-stage subquery (a scalar over a distributed table) cannot run on the shards.
  const finalOnly = (e: Expr) => hasFinalOnly(e, (x) => x.kind === 'subquery');
  if ((final.orderBy ?? []).some((o) => finalOnly(o.expr)) || (final.limitBy?.by ?? []).some(finalOnly)) return;
  // WITH FILL adds rows: only the final stage may fill.
  if (final.orderBy) leaf.orderBy = final.orderBy.map(unfilled);
  if (final.limitBy) {
    const n = pushedLimitBy(q);
    if (!n) return;
    leaf.limitBy = { limit: n, by: final.limitBy.by };
  }
  const lim = pushedLimit(q);
  if (lim) {
    leaf.limit = { limit: lim, ...(q.limit?.withTies ? { withTies: true } : {}) };
    notes.push(
      `${q.orderBy ? 'ORDER BY and ' : ''}LIMIT ${printExpr(lim)} (limit + offset) run on each shard; the final stage ${q.orderBy ? 're-sorts and ' : ''}applies LIMIT/OFFSET`,
    );
  }
}

function pushedLimitBy(q: SelectQuery): Expr | undefined {
  const lb = q.limitBy!;
  return pushedLimit({ ...q, limit: { limit: lb.limit, ...(lb.offset ? { offset: lb.offset } : {}) } });
}

/** `SELECT * ...` without aggregates: the shards return whole rows; the final stage re-evaluates the rest over them. */
function cutStar(q: SelectQuery, from: string, windowed: boolean): CutSelect {
  const c0 = q.columns.find((c) => c.kind === 'asterisk')!;
  if (q.columns.length !== 1) throw errorAt('UNSUPPORTED', 'SELECT * together with other columns in the two-stage path (list the columns)', c0);
  if (q.from?.joins.length || q.from?.arrayJoin)
    throw errorAt('UNSUPPORTED', 'SELECT * over a JOIN or ARRAY JOIN in the two-stage path (list the columns)', c0);
  // The final stage reads one table: drop qualifiers (`e.ts` is `ts` there).
  const unqualify = (e: Expr): Expr =>
    mapExpr(e, (x) =>
      x.kind === 'column' && x.parts.length > 1 ? col(x.parts[x.parts.length - 1]!) : x.kind === 'asterisk' ? { kind: 'asterisk' } : undefined,
    );
  const final = mapFinal(q, unqualify, from, []);
  final.columns = [{ kind: 'asterisk' }];
  const leaf = leafBase(q, [{ kind: 'asterisk' }]);
  const notes: string[] = [];
  if (!windowed) pushDown(q, final, leaf, true, notes);
  if (leaf.orderBy) leaf.orderBy = q.orderBy!.map(unfilled);
  if (leaf.limitBy) leaf.limitBy = { ...leaf.limitBy, by: q.limitBy!.by };
  notes.push(`final stage: ${finalSteps(q)}`);
  return { leaf, final, notes };
}
