// `key IN (SELECT key FROM dist ...)` where both tables are sharded alike: each shard holds every row
// of the keys it owns, so the subquery run on the shard itself (distributed_product_mode = 'local')
// finds exactly the keys the whole table would. The conditions make that true: the left side is the
// outer table's sharding-key column, the subquery selects only the sharding-key column of a table
// sharded by the same function of the same type, and nothing in it mixes keys across shards
// (no JOIN, ARRAY JOIN, LIMIT, LIMIT BY, TOTALS, ROLLUP/CUBE, window functions, or grouping that
// omits the key).
import type { Expr, SelectStatement } from '../../sql/ast.js';
import type { Topology } from '../../config/schema.js';
import { walkStatement } from '../../sql/visit.js';
import { lookupTable, refName, tableName, type BoundTable } from '../tables.js';
import { isColumnOfMain, type TableNaming } from '../key-ref.js';
import { printExpr } from '../../sql/print.js';

export interface MainOf {
  bound: BoundTable;
  naming: TableNaming;
}

/** Why this IN may run locally on each shard (a note for /explain), or undefined when it may not. */
export function localInReason(lhs: Expr, rhs: Expr, main: MainOf, topo: Topology): string | undefined {
  const key = main.bound.config.shardingKey;
  if (!isColumnOfMain({ ...lhs, alias: undefined } as Expr, key.column, main.naming)) return undefined;
  let sub: SelectStatement | undefined;
  let inner: BoundTable | undefined;
  if (rhs.kind === 'subquery') sub = rhs.query;
  else if (rhs.kind === 'column' && rhs.parts.length <= 2)
    inner = lookupTable(topo, tableName(rhs.parts.length === 2 ? rhs.parts[0] : undefined, rhs.parts[rhs.parts.length - 1]!));
  if (sub) {
    if (sub.kind !== 'select') return undefined;
    const q = sub;
    const t = q.from?.table;
    if (t?.kind !== 'table' || q.from!.joins.length || q.from!.arrayJoin) return undefined;
    if (q.limit || q.limitBy || q.withTotals || q.groupByModifier || q.window || q.qualify || q.columns.length !== 1) return undefined;
    inner = lookupTable(topo, refName(t));
    if (!inner) return undefined;
    const dist = inner.distributed.split('.');
    const naming: TableNaming = { database: dist[0]!, table: dist.slice(1).join('.'), ...(t.alias ? { alias: t.alias } : {}) };
    const innerKey = inner.config.shardingKey.column;
    if (!isColumnOfMain({ ...q.columns[0]!, alias: undefined } as Expr, innerKey, naming)) return undefined;
    if (q.groupBy && !q.groupBy.some((g) => isColumnOfMain({ ...g, alias: undefined } as Expr, innerKey, naming))) return undefined;
    let nested = false;
    walkStatement(q, (e) => {
      if (e.kind === 'subquery' || (e.kind === 'function' && e.over)) nested = true;
      return !nested;
    });
    if (nested) return undefined;
  }
  if (!inner) return undefined;
  const k2 = inner.config.shardingKey;
  if (k2.type !== key.type || k2.function !== key.function) return undefined;
  return (
    `local IN: ${printExpr(lhs)} IN ${rhs.kind === 'subquery' ? '(subquery over ' + inner.distributed + ')' : inner.distributed} runs on each shard: ` +
    `both sides are sharded by ${key.function}(${key.type}) of their key, so every shard holds all rows of its keys (exact)`
  );
}
