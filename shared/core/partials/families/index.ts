// Which function calls are aggregates, and which family computes each. A known ClickHouse
// aggregate we cannot split exactly or with a stated bound is refused as UNSUPPORTED, by name
// and position, never answered with a silently wrong number.
import type { Expr, FunctionCall } from '../../sql/ast.js';
import { aggregateName } from '../../sql/aggregate-names.js';
import { ScatterError } from '../../errors.js';
import type { AggregateImpl, FamilyContext } from './family.js';
import { countFamily } from './count.js';
import { sumFamily } from './sum.js';
import { minMaxFamily } from './minmax.js';
import { avgFamily } from './avg.js';
import { anyFamily } from './any.js';
import { argMinMaxFamily } from './argminmax.js';
import { uniqExactFamily } from './uniq-exact.js';
import { hllFamily } from './hll.js';
import { quantileFamily } from './quantile.js';
import { topKFamily } from './topk.js';
import { quantileExactFamily } from './quantile-exact.js';

type Factory = (call: FunctionCall, args: Expr[], cond: Expr | undefined, ctx: FamilyContext) => AggregateImpl;

const FAMILY_TABLE: Record<string, Factory> = {
  count: (c, a, k) => countFamily(c, a, k),
  sum: (c, a, k) => sumFamily(c, a, k),
  min: (c, a, k) => minMaxFamily('min', c, a, k),
  max: (c, a, k) => minMaxFamily('max', c, a, k),
  avg: (c, a, k) => avgFamily(c, a, k),
  any: (c, a, k) => anyFamily(c, a, k),
  argMin: (c, a, k) => argMinMaxFamily('argMin', c, a, k),
  argMax: (c, a, k) => argMinMaxFamily('argMax', c, a, k),
  uniqExact: uniqExactFamily,
  uniq: hllFamily,
  uniqCombined: hllFamily,
  uniqHLL12: hllFamily,
  quantile: (c, a, k) => quantileFamily(c, a, k),
  quantiles: (c, a, k) => quantileFamily(c, a, k),
  median: (c, a, k) => quantileFamily(c, a, k),
  quantileTDigest: (c, a, k) => quantileFamily(c, a, k),
  topK: topKFamily,
  quantileExact: quantileExactFamily,
  quantilesExact: quantileExactFamily,
  medianExact: quantileExactFamily,
};

// A Map, not an object lookup: `toString` or `constructor` must not look like aggregates.
const FAMILIES = new Map(Object.entries(FAMILY_TABLE));

/** Supported names, for documentation and error messages. */
export const SUPPORTED_AGGREGATES = [...FAMILIES.keys()].flatMap((n) => [n, `${n}If`]);

function unsupported(call: FunctionCall, why: string): ScatterError {
  return new ScatterError('UNSUPPORTED', `aggregate function ${call.name}: ${why}`, {
    position: call.pos ? { line: call.pos.line, column: call.pos.column } : undefined,
  });
}

// ClickHouse matches these names case-insensitively (COUNT(*), Sum(x)); the column keeps the spelling.
const CASE_INSENSITIVE = new Set(['count', 'sum', 'min', 'max', 'avg', 'any']);
function normName(n: string): string {
  const l = n.toLowerCase();
  return CASE_INSENSITIVE.has(l) ? l : n;
}

/**
 * Is this call an aggregate function (supported here or not)? ClickHouse's own list decides
 * (shared/core/sql/aggregate-names.ts), so an aggregate the fast path does not compute (`sumArrayIf`) is
 * refused by name and goes to the general path, never evaluated as if it were a scalar function.
 */
export function isAggregateCall(call: FunctionCall): boolean {
  if (call.over !== undefined) return false;
  return FAMILIES.get(normName(call.name)) !== undefined || aggregateName(call.name) !== undefined;
}

/** The family computing `call`, or UNSUPPORTED. */
export function resolveAggregate(call: FunctionCall, ctx: FamilyContext): AggregateImpl {
  let name = normName(call.name);
  let args = call.args;
  let cond: Expr | undefined;
  if (!FAMILIES.get(name) && name.endsWith('If') && FAMILIES.get(name.slice(0, -2))) {
    name = name.slice(0, -2);
    if (args.length < 1) throw unsupported(call, 'the -If combinator needs a condition argument');
    cond = args[args.length - 1];
    args = args.slice(0, -1);
  }
  if (call.distinct) {
    if (name === 'count' || name === 'uniqExact') name = 'uniqExact';
    else throw unsupported(call, 'DISTINCT is supported only in count(DISTINCT ...)');
  }
  const f = FAMILIES.get(name);
  if (!f) throw unsupported(call, `not supported across shards; supported: ${[...FAMILIES.keys()].join(', ')} (each also with -If)`);
  if (call.params && !['quantile', 'quantiles', 'quantileTDigest', 'topK', 'median', 'quantileExact', 'quantilesExact', 'medianExact'].includes(name)) {
    throw unsupported(call, 'parameters are not supported for this function');
  }
  try {
    return f(call, args, cond, ctx);
  } catch (e) {
    if (e instanceof ScatterError) throw e;
    throw unsupported(call, (e as Error).message);
  }
}
