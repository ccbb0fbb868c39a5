// Shard skipping (optimize_skip_unused_shards): from WHERE and PREWHERE, the set of shards that
// can hold a matching row. `key = constant`, `key IN (constants)`, `key IN <shipped table>` and
// AND/OR combinations narrow; NOT IN, ranges, non-literal operands and functions of the key do
// not (they yield "all shards"). A constant call on the key's other side is folded first
// (key-constants.ts); one that is not (constant-operand.ts) is a condition that keeps every shard.
// A set containing NULL does not narrow (ClickHouse refuses it). `key = v` with a value no row of the
// key's type can hold (256 on a UInt8 key, 1.5 on an integer key) is no condition, as ClickHouse's exact
// conversion of v finds none: force_optimize_skip_unused_shards refuses it; in a set such a value is dropped.
import type { Expr } from '../sql/ast.js';
import { printExpr } from '../sql/print.js';
import type { KeyContext } from './key-context.js';
import { isMainQualifier } from './key-ref.js';
import { isKeyRef, OWNER_ANY, OWNER_NOWHERE, OWNER_UNKNOWN, ownerOf, ownersOf, setItems } from './key-context.js';

/** A shard mask (1 = may hold matching rows), or null for "every shard". */
export type ShardMask = Uint8Array | null;

export interface SkipAnalysis {
  mask: ShardMask;
  /** The narrowing predicates, for skip reasons (printed only when a shard is skipped). */
  atoms: (() => string)[];
}

function maskOf(ctx: KeyContext, owners: Iterable<number>): ShardMask {
  const m = new Uint8Array(ctx.shardCount);
  for (const o of owners) {
    if (o === OWNER_UNKNOWN) return null;
    if (o === OWNER_ANY) m.fill(1);
    else if (o >= 0) m[o] = 1;
  }
  return m;
}

function and(a: ShardMask, b: ShardMask): ShardMask {
  if (!a) return b;
  if (!b) return a;
  return a.map((x, i) => x & b[i]!);
}
function or(a: ShardMask, b: ShardMask): ShardMask {
  if (!a || !b) return null;
  return a.map((x, i) => x | b[i]!);
}

function describe(e: Expr): string {
  const text = printExpr({ ...e, alias: undefined } as Expr);
  return text.length > 120 ? text.slice(0, 110) + ' ...)' : text;
}

function evaluate(ctx: KeyContext, e: Expr, atoms: (() => string)[]): ShardMask {
  if (e.kind !== 'function') return null;
  const a = e.args;
  switch (e.name) {
    case 'and': {
      let m: ShardMask = null;
      for (const x of a) m = and(m, evaluate(ctx, x, atoms));
      return m;
    }
    case 'or': {
      let m: ShardMask = new Uint8Array(ctx.shardCount);
      for (const x of a) {
        m = or(m, evaluate(ctx, x, atoms));
        if (!m) return null;
      }
      return m;
    }
    case 'equals': {
      if (a.length !== 2) return null;
      const sn = shardNumFilter(ctx, a[0]!, [a[1]!]) ?? shardNumFilter(ctx, a[1]!, [a[0]!]);
      if (sn) {
        atoms.push(() => describe(e));
        return sn;
      }
      const [l, r] = isKeyRef(ctx, a[0]!) ? [a[0]!, a[1]!] : isKeyRef(ctx, a[1]!) ? [a[1]!, a[0]!] : [undefined, undefined];
      if (!l || !r) return null;
      const owner = ownerOf(ctx, r);
      if (owner === OWNER_NOWHERE) return null;
      const m = maskOf(ctx, [owner]);
      if (m) atoms.push(() => describe(e));
      return m;
    }
    case 'in': {
      if (a.length !== 2) return null;
      const snItems = setItems(a[1]!);
      const sn = snItems ? shardNumFilter(ctx, a[0]!, snItems) : undefined;
      if (sn) {
        atoms.push(() => describe(e));
        return sn;
      }
      if (!isKeyRef(ctx, a[0]!)) return null;
      const rhs = a[1]!;
      if (rhs.kind === 'column' && rhs.parts.length === 1) {
        const owners = ctx.externalOwners.get(rhs.parts[0]!);
        if (!owners) return null;
        atoms.push(() => `${describe(a[0]!)} GLOBAL IN ${rhs.parts[0]}`);
        return maskOf(ctx, owners);
      }
      const items = setItems(rhs);
      if (!items) return null;
      const owners = ownersOf(ctx, items);
      const m = maskOf(ctx, owners);
      if (m) atoms.push(() => describe(e));
      return m;
    }
    default:
      return null;
  }
}

/**
 * `_shard_num = 2` / `_shard_num IN (1, 3)`: the 1-based shard numbers themselves (ClickHouse
 * skips on them too). Undefined when `col` is not `_shard_num` or a value is not an integer literal.
 */
function shardNumFilter(ctx: KeyContext, col: Expr, values: Expr[]): Uint8Array | undefined {
  if (col.kind !== 'column' || col.alias !== undefined) return undefined;
  const p = col.parts;
  if (p[p.length - 1] !== '_shard_num' || (p.length > 1 && !isMainQualifier(p.slice(0, -1), ctx.naming))) return undefined;
  const m = new Uint8Array(ctx.shardCount);
  for (const v of values) {
    if (v.kind !== 'literal' || v.type !== 'integer' || !/^\d+$/.test(v.value)) return undefined;
    const n = Number(v.value);
    if (n >= 1 && n <= ctx.shardCount) m[n - 1] = 1;
  }
  return m;
}

export function analyzeSkipping(ctx: KeyContext, filters: (Expr | undefined)[]): SkipAnalysis {
  const atoms: (() => string)[] = [];
  let mask: ShardMask = null;
  for (const f of filters) if (f) mask = and(mask, evaluate(ctx, f, atoms));
  return { mask, atoms };
}

export { OWNER_NOWHERE };
