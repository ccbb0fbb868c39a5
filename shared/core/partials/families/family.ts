// What one aggregate family provides: the shard-side SQL (partial state as plain columns),
// the fold of one shard's partial into the accumulator (merge on arrival; associative and
// commutative), and finalize (state -> the value and type single-node ClickHouse returns).
import type { Expr, FunctionCall } from '../../sql/ast.js';
import type { ApproximateInfo } from '../types.js';
import type { Value } from '../values.js';
import { fn } from '../ast-build.js';

export interface AggState {
  /** Fold the partial columns of one shard row (values parsed by their shard types). */
  add(vals: Value[], types: string[], shard: number): void;
  /** Final value and its ClickHouse type (types: the shard column types last seen, if any). */
  finalize(types: string[] | undefined): { value: Value; type: string };
  /** For top-k error bounds: the per-group error bound of this state, when it has one. */
  errorBound?(): bigint | undefined;
  /** transfer_overflow_mode = 'break': why this state dropped values, if it did. */
  truncated?(): string | undefined;
}

export interface AggregateImpl {
  /** The expression the user wrote (after -If folding), for names and errors. */
  call: FunctionCall;
  /** Partial-state expressions the shard computes, one generated column each. */
  shardExprs: Expr[];
  newState(): AggState;
  /** Static approximation info (hll, ddsketch); top-k adds bounds at finalize. */
  approximate?: ApproximateInfo;
  /** Non-negative and additive across shards (count family): usable for shard_size top-k bounds. */
  countLike?: boolean;
  /** Its states hold up to maxRowsToTransfer values and may report truncated() under 'break'. */
  boundedByTransfer?: boolean;
  /** The shard expression whose value orders groups the same way as the final value (pushdown). */
  orderExpr?: Expr;
  describe: string;
}

export interface FamilyContext {
  maxRowsToTransfer: number;
  /** 'break': bounded states (uniqExact, quantileExact) stop at the limit instead of throwing. */
  transferOverflowMode?: 'throw' | 'break';
  shardSizeFactor: number;
  shardSizeAdd: number;
  /** 'maxMap' (ClickHouse >= 20) or 'uniqArray' (portable to 18.16, larger partials). */
  hllEncoding: 'maxMap' | 'uniqArray';
  /** topK shard SQL: 'hashed' (default, portable: sumMap over cityHash64, any value type on 18.16) or 'sumMap' (over the values). */
  topkEncoding?: 'hashed' | 'sumMap';
}

/** `name(args)` or, under the -If combinator, `nameIf(args, cond)`. */
export function aggCall(name: string, args: Expr[], cond: Expr | undefined, params?: Expr[]): FunctionCall {
  return cond ? fn(`${name}If`, [...args, cond], params) : fn(name, args, params);
}
/** `a AND cond` (cond absent: a). */
export function andCond(a: Expr, cond: Expr | undefined): Expr {
  return cond ? fn('and', [a, cond]) : a;
}
