// uniqExact(x...) / count(DISTINCT x...): each shard sends its distinct values
// (groupUniqArray), the coordinator unions them. Exact, and bounded: the union may hold at most
// maxRowsToTransfer values (TRANSFER_LIMIT beyond), like ClickHouse's transfer limits.
import type { Expr, FunctionCall } from '../../sql/ast.js';
import { ScatterError } from '../../errors.js';
import type { AggregateImpl, FamilyContext } from './family.js';
import { aggCall } from './family.js';
import { fn } from '../ast-build.js';
import { valueKey, type Value } from '../values.js';

export function uniqExactFamily(call: FunctionCall, args: Expr[], cond: Expr | undefined, ctx: FamilyContext): AggregateImpl {
  if (args.length === 0) throw new Error('uniqExact needs an argument');
  const arg = args.length === 1 ? args[0]! : fn('tuple', args);
  const limit = ctx.maxRowsToTransfer;
  const brk = ctx.transferOverflowMode === 'break';
  return {
    call,
    shardExprs: [aggCall('groupUniqArray', [arg], cond)],
    boundedByTransfer: true,
    describe: 'uniqExact: union of shard distinct sets',
    newState() {
      const seen = new Set<string>();
      let cut = false;
      return {
        add(vals: Value[]) {
          const a = vals[0];
          if (!Array.isArray(a)) return;
          for (const v of a) {
            const k = valueKey(v);
            if (limit > 0 && seen.size >= limit && !seen.has(k)) {
              // 'break': the count stops at the limit (a lower bound), and the answer is partial.
              if (brk) {
                cut = true;
                return;
              }
              throw new ScatterError('TRANSFER_LIMIT', `uniqExact: more than ${limit} distinct values (maxRowsToTransfer)`);
            }
            seen.add(k);
          }
        },
        finalize: () => ({ value: BigInt(seen.size), type: 'UInt64' }),
        truncated: () => (cut ? `uniqExact: distinct set cut at max_rows_to_transfer = ${limit} values (transfer_overflow_mode = 'break')` : undefined),
      };
    },
  };
}
