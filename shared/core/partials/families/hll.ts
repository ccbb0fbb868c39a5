// uniq / uniqCombined / uniqHLL12 (and -If): a HyperLogLog with 4096 registers computed in the
// shard's SQL, merged register-wise by max, estimated with Ertl's improved estimator (2017), which
// needs no bias tables and is accurate from 0 to huge cardinalities.
//
// Hash: sipHash64 (both ClickHouse 26 and 18.16 have it; 18.16 lacks xxHash64). Register
// j = h & 4095, rho = trailing zeros of w = h >> 12, plus 1 (53 when w = 0). The trailing-zero count
// is log2 of w's lowest set bit (exact for powers of two), since 18.16 lacks bitCount.
// Encoding: maxMap(keys, rhos) (ClickHouse >= 20); or, for 18.16 which lacks maxMap,
// groupUniqArray(j * 64 + rho), from which the coordinator takes the max per register.
// Relative standard error 1.04 / sqrt(4096) = 1.625%.
import type { Expr, FunctionCall } from '../../sql/ast.js';
import type { AggregateImpl, FamilyContext } from './family.js';
import { fn, int } from '../ast-build.js';
import type { Value } from '../values.js';

export const HLL_P = 12;
export const HLL_M = 1 << HLL_P;
const Q = 64 - HLL_P; // bits of w
export const HLL_RSE = 1.04 / Math.sqrt(HLL_M);

/** The shard SQL pieces: the hash, register index and rho of one argument. */
export function hllExprs(x: Expr): { ok: Expr; reg: Expr; rho: Expr } {
  const h = fn('sipHash64', [fn('assumeNotNull', [x])]);
  const w = fn('bitShiftRight', [h, int(HLL_P)]);
  const low = fn('bitAnd', [w, fn('plus', [fn('bitNot', [w]), int(1)])]);
  const rho = fn('if', [fn('equals', [w, int(0)]), int(Q + 1), fn('plus', [fn('toUInt8', [fn('log2', [low])]), int(1)])]);
  return { ok: fn('isNotNull', [x]), reg: fn('bitAnd', [h, int(HLL_M - 1)]), rho };
}

export function hllFamily(call: FunctionCall, args: Expr[], cond: Expr | undefined, ctx: FamilyContext): AggregateImpl {
  if (args.length !== 1) throw new Error(`${call.name} over several arguments is not supported; use uniqExact or one tuple argument`);
  const { ok, reg, rho } = hllExprs(args[0]!);
  const c = cond ? fn('and', [ok, cond]) : ok;
  let shard: Expr;
  if (ctx.hllEncoding === 'maxMap') {
    shard = fn('maxMap', [
      fn('if', [c, { kind: 'array', items: [fn('toUInt16', [reg])] }, fn('emptyArrayUInt16', [])]),
      fn('if', [c, { kind: 'array', items: [fn('toUInt8', [rho])] }, fn('emptyArrayUInt8', [])]),
    ]);
  } else {
    shard = fn('groupUniqArrayIf', [fn('plus', [fn('multiply', [fn('toUInt32', [reg]), int(64)]), rho]), c]);
  }
  return {
    call,
    shardExprs: [shard],
    approximate: { method: 'hll', relativeStdError: HLL_RSE },
    describe: `${call.name}: HyperLogLog (m=${HLL_M}, sipHash64) registers merged by max`,
    newState() {
      const regs = new Uint8Array(HLL_M);
      return {
        add(vals: Value[]) {
          const v = vals[0];
          if (!Array.isArray(v)) return;
          if (v.length === 2 && Array.isArray(v[0]) && Array.isArray(v[1])) {
            const ks = v[0] as Value[];
            const rs = v[1] as Value[];
            for (let i = 0; i < ks.length; i++) {
              const j = Number(ks[i]);
              const r = Number(rs[i]);
              if (r > regs[j]!) regs[j] = r;
            }
          } else {
            for (const code of v) {
              const n = Number(code);
              const j = n >>> 6;
              const r = n & 63;
              if (r > regs[j]!) regs[j] = r;
            }
          }
        },
        finalize: () => ({ value: BigInt(Math.round(hllEstimate(regs))), type: 'UInt64' }),
      };
    },
  };
}

/** Ertl, "New cardinality estimation algorithms for HyperLogLog sketches" (2017), eq. (improved raw). */
export function hllEstimate(regs: Uint8Array): number {
  const m = regs.length;
  const C = new Array<number>(Q + 2).fill(0);
  for (const r of regs) C[Math.min(r, Q + 1)]!++;
  if (C[0] === m) return 0;
  let z = m * tau(1 - C[Q + 1]! / m);
  for (let k = Q; k >= 1; k--) z = 0.5 * (z + C[k]!);
  z += m * sigma(C[0]! / m);
  return (m * m) / (2 * Math.LN2) / z;
}
function sigma(x: number): number {
  if (x === 1) return Infinity;
  let y = 1;
  let z = x;
  for (;;) {
    x *= x;
    const prev = z;
    z += x * y;
    y += y;
    if (z === prev) return z;
  }
}
function tau(x: number): number {
  if (x === 0 || x === 1) return 0;
  let y = 1;
  let z = 1 - x;
  for (;;) {
    x = Math.sqrt(x);
    const prev = z;
    y *= 0.5;
    z -= (1 - x) ** 2 * y;
    if (z === prev) return z / 3;
  }
}
