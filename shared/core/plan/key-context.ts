// Everything shard skipping and IN pruning need to know about the sharding key of the queried
// table, plus where each shipped (GLOBAL IN) row lives.
import type { Expr } from '../sql/ast.js';
import type { Placement } from '../sharding/index.js';
import { coerceKeyValue } from '../sharding/index.js';
import type { TableNaming } from './key-ref.js';
import { isColumnOfMain } from './key-ref.js';
import { keyLiteral, NOWHERE, UNEVALUATED, UNKNOWN } from './key-literal.js';
import type { Materialized } from './globals.js';
import { constantText, isConstantOperand } from './constant-operand.js';
import { CONSTANT_TABLE_FUNCTIONS } from './constant-tables.js';

/** Owner codes: a 0-based shard index, or one of these. */
export const OWNER_UNKNOWN = -1; // cannot be placed: kept everywhere, never narrows
export const OWNER_NOWHERE = -2; // placed on no shard: matches no row
export const OWNER_ANY = -3; // `key = <constant not folded>`: kept everywhere, yet a condition on the key

export interface KeyContext {
  column: string;
  type: string;
  naming: TableNaming;
  placement: Placement;
  shardCount: number;
  /** Owner of each row of a shipped table whose first column can be placed; absent = unknown. */
  externalOwners: Map<string, Int32Array>;
  /** Owners of IN-list items, memoized per items array (skipping and pruning ask for the same lists). */
  memo: WeakMap<readonly Expr[], Int32Array>;
  /**
   * The same lists by content: the aggregate split may copy the tree, so the pruning pass can see
   * an equal list in new nodes; comparing literal texts is far cheaper than hashing them again.
   */
  memoByLength?: Map<number, { items: readonly Expr[]; owners: Int32Array }[]>;
  /** The key's constant operands folded by one engine (key-constants.ts), by their text: each value's literal. */
  constants?: ReadonlyMap<string, Expr>;
}

export function isKeyRef(ctx: KeyContext, e: Expr): boolean {
  return isColumnOfMain(e, ctx.column, ctx.naming);
}

export function ownerOf(ctx: KeyContext, item: Expr, inSet = false): number {
  let v = keyLiteral(item, ctx.type, ctx.column, inSet);
  if (v === UNEVALUATED) {
    const folded = ctx.constants?.get(constantText(item));
    // Not folded: `key = c` is still a condition on the key (every shard); a set element narrows nothing.
    if (!folded) return inSet ? OWNER_UNKNOWN : OWNER_ANY;
    v = keyLiteral(folded, ctx.type, ctx.column, inSet);
  }
  return v === UNKNOWN || v === UNEVALUATED ? OWNER_UNKNOWN : v === NOWHERE ? OWNER_NOWHERE : ctx.placement.shardOf(v);
}

/** Owners of every item of a literal set, computed once per list. */
export function ownersOf(ctx: KeyContext, items: readonly Expr[]): Int32Array {
  const hit = ctx.memo.get(items);
  if (hit) return hit;
  ctx.memoByLength ??= new Map();
  const sameLength = ctx.memoByLength.get(items.length);
  for (const c of sameLength ?? []) {
    if (sameLiterals(c.items, items)) {
      ctx.memo.set(items, c.owners);
      return c.owners;
    }
  }
  const owners = new Int32Array(items.length);
  for (let i = 0; i < items.length; i++) owners[i] = ownerOf(ctx, items[i]!, true);
  ctx.memo.set(items, owners);
  if (sameLength) sameLength.push({ items, owners });
  else ctx.memoByLength.set(items.length, [{ items, owners }]);
  return owners;
}

/** Lists of plain literals with equal types and texts (anything else: not the same). */
function sameLiterals(a: readonly Expr[], b: readonly Expr[]): boolean {
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.kind !== 'literal' || y.kind !== 'literal' || x.type !== y.type || x.value !== y.value) return false;
  }
  return true;
}

/**
 * The items of an IN right side that is a set of constants: `(1, 2)`, `tuple(1, 2)`, `(1)`, `1`, and one
 * constant call (`IN (toUInt8(0))`, a set of one for ClickHouse's analyzer; not a table function); else undefined.
 */
export function setItems(rhs: Expr): Expr[] | undefined {
  if (rhs.kind === 'tuple') return rhs.items;
  if (rhs.kind === 'function' && rhs.name === 'tuple' && !rhs.params) return rhs.args;
  if (rhs.kind === 'literal') return [rhs];
  if (rhs.kind === 'function' && rhs.name === 'negate' && rhs.args[0]?.kind === 'literal') return [rhs];
  if ((rhs.kind === 'function' && !CONSTANT_TABLE_FUNCTIONS.has(rhs.name.toLowerCase())) || rhs.kind === 'cast')
    return rhs.alias === undefined && isConstantOperand(rhs) ? [rhs] : undefined;
  return undefined;
}

/** Where each row of a shipped table lives, when its first column is the key's type; else undefined. */
export function externalOwners(m: Materialized, ctx: Pick<KeyContext, 'type' | 'placement'>): Int32Array | undefined {
  // Rows that travel as the engine's bytes are never read here: such a set narrows no shard.
  if (!m.materialized || m.table.columns.length === 0 || m.table.data) return undefined;
  const col = m.table.columns[0]!.name;
  const owners = new Int32Array(m.table.rows.length);
  for (let i = 0; i < m.table.rows.length; i++) {
    try {
      owners[i] = ctx.placement.shardOf(coerceKeyValue(m.table.rows[i]![col], ctx.type));
    } catch {
      return undefined; // a value we cannot place (NULL, another type): do not narrow, do not prune
    }
  }
  return owners;
}
