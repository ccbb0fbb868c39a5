// quantileExact / quantilesExact / medianExact (and -If): exact, by shipping each shard's values
// (groupArray; NULLs skipped as ClickHouse does) and selecting on the coordinator, bounded like
// uniqExact by maxRowsToTransfer values (TRANSFER_LIMIT). ClickHouse's rule: the element at index
// floor(level * n) of the sorted values (n - 1 for level 1); the result has the argument's type
// (read from a companion any(x), since groupArray drops Nullable).
import type { Expr, FunctionCall } from '../../sql/ast.js';
import { ScatterError } from '../../errors.js';
import type { AggregateImpl, FamilyContext } from './family.js';
import { aggCall } from './family.js';
import { fn } from '../ast-build.js';
import { defaultOf, totalCompare, type Value } from '../values.js';

export function quantileExactFamily(call: FunctionCall, args: Expr[], cond: Expr | undefined, ctx: FamilyContext): AggregateImpl {
  const base = call.name.replace(/If$/, '');
  if (args.length !== 1) throw new Error(`${base} takes one argument`);
  const params = call.params ?? [];
  const level = (e: Expr) => {
    const v = e.kind === 'literal' ? Number(e.value) : NaN;
    if (!(v >= 0 && v <= 1)) throw new Error(`${base}: level must be a number in [0, 1]`);
    return v;
  };
  const many = base === 'quantilesExact';
  const levels = base === 'medianExact' ? [0.5] : many ? params.map(level) : params.length ? [level(params[0]!)] : [0.5];
  if (many && levels.length === 0) throw new Error('quantilesExact needs levels');
  const limit = ctx.maxRowsToTransfer;
  const brk = ctx.transferOverflowMode === 'break';
  return {
    call,
    shardExprs: [aggCall('groupArray', args, cond), fn('any', [args[0]!])],
    boundedByTransfer: true,
    describe: `${base}: every shard's values (at most ${limit}), selected exactly`,
    newState() {
      // Values by shard, so that under 'break' the kept sample is the first `limit` values in
      // (shard, position) order whatever the arrival order: when over the limit, the tail of the
      // highest-numbered shards goes. Memory stays within the limit plus one shard's answer.
      const byShard = new Map<number, Value[]>();
      let total = 0;
      let argType = 'Nothing';
      let cut = false;
      return {
        add(vals: Value[], types: string[], shard: number) {
          if (types[1]) argType = types[1];
          const a = vals[0];
          if (!Array.isArray(a) || a.length === 0) return;
          if (limit > 0 && total + a.length > limit && !brk) throw new ScatterError('TRANSFER_LIMIT', `${base}: more than ${limit} values (maxRowsToTransfer)`);
          const list = byShard.get(shard);
          if (list) for (const v of a) list.push(v);
          else byShard.set(shard, [...a]);
          total += a.length;
          if (limit > 0 && total > limit) {
            // 'break': the quantile is of a sample, and the answer is partial.
            cut = true;
            for (const s of [...byShard.keys()].sort((x, y) => y - x)) {
              const l = byShard.get(s)!;
              const drop = Math.min(l.length, total - limit);
              l.length -= drop;
              total -= drop;
              if (l.length === 0) byShard.delete(s);
              if (total <= limit) break;
            }
          }
        },
        truncated: () => (cut ? `${base}: values cut at max_rows_to_transfer = ${limit} (transfer_overflow_mode = 'break')` : undefined),
        finalize(types) {
          const t = types?.[1] ?? argType;
          // The total order (not compareValues) so that -0 and +0 land in one order whatever arrived first.
          const values = [...byShard.values()].flat().sort(totalCompare);
          const n = values.length;
          const pick = (l: number): Value => (n === 0 ? defaultOf(t) : values[l < 1 ? Math.floor(l * n) : n - 1]!);
          return many ? { value: levels.map(pick), type: `Array(${t.replace(/^Nullable\((.*)\)$/, '$1')})` } : { value: pick(levels[0]!), type: t };
        },
      };
    },
  };
}
