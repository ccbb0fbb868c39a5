// The per-shard part of the rewrite, as ClickHouse's Distributed engine does it: IN pruning on the
// sharding key and the `_shard_num` virtual column. Slots are found once; each shard then gets a
// structure-sharing copy (rewriteExpr in shared/core/sql/visit.ts) in which only the pruned IN nodes and `_shard_num`
// references differ.
//
// Pruning (OptimizeShardingKeyRewriteInVisitor): only `key IN (constants)` in WHERE, PREWHERE and
// JOIN ON; never in the SELECT list, ORDER BY, GROUP BY..., never through an aliased node (it is
// shared with the clauses that use the alias, and a changed set changes the column name), never
// inside a lambda (its parameters may shadow the key). Values that cannot be placed are kept on
// every shard. If a shard keeps nothing, one element stays (a deliberate lie, as
// ClickHouse tells it: `x IN ()` is not valid SQL); this only happens on shards that were not skipped.
import type { Expr, FunctionCall, SelectQuery } from '../sql/ast.js';
import type { KeyContext } from './key-context.js';
import { isKeyRef, OWNER_UNKNOWN, ownersOf, setItems } from './key-context.js';
import { mapClausesShared, rewriteExpr, SKIP, type Clause } from '../sql/visit.js';
import { isMainQualifier } from './key-ref.js';

export interface InSlot {
  node: FunctionCall;
  /** Per shard: the items that shard keeps (shared literal nodes). */
  perShard: Expr[][];
  total: number;
}

export interface ShardRewriter {
  slots: Map<Expr, InSlot>;
  usesShardNum: boolean;
  /** External tables (GLOBAL IN on the key) whose every use is a prunable filter. */
  prunableExternals: Set<string>;
  forShard(q: SelectQuery, shard: number): SelectQuery;
  /**
   * The same per-shard text, printed ONCE with placeholders where shards differ (pruned IN sets,
   * `_shard_num`), then filled per shard. Undefined when the printed text does not carry each
   * placeholder exactly once (then callers print forShard's tree for every shard).
   */
  template(q: SelectQuery, print: (q: SelectQuery) => string, printExpr: (e: Expr) => string): ((shard: number) => string) | undefined;
}

const FILTER_CLAUSES: ReadonlySet<Clause> = new Set(['where', 'prewhere', 'joinOn']);

function forEachFilterNode(q: SelectQuery, visit: (e: Expr) => boolean | void): void {
  const walk = (root: Expr) =>
    rewriteExpr(root, (e) => {
      if (e.alias !== undefined || e.kind === 'lambda' || e.kind === 'subquery') return SKIP;
      return visit(e) ? SKIP : undefined;
    });
  mapClausesShared(q, (e, clause) => {
    if (FILTER_CLAUSES.has(clause)) walk(e);
    return e;
  });
}

function isShardNumRef(e: Expr, naming: KeyContext['naming']): boolean {
  if (e.kind !== 'column') return false;
  const p = e.parts;
  return p[p.length - 1] === '_shard_num' && (p.length === 1 || isMainQualifier(p.slice(0, -1), naming));
}

export function buildShardRewriter(q: SelectQuery, ctx: KeyContext | undefined, opts: { pruneIn: boolean }): ShardRewriter {
  const slots = new Map<Expr, InSlot>();
  const prunableUses = new Map<string, number>();
  if (ctx && opts.pruneIn) {
    forEachFilterNode(q, (e) => {
      if (e.kind !== 'function' || e.name !== 'in' || e.args.length !== 2 || !isKeyRef(ctx, e.args[0]!)) return false;
      const rhs = e.args[1]!;
      if (rhs.kind === 'column' && rhs.parts.length === 1) {
        prunableUses.set(rhs.parts[0]!, (prunableUses.get(rhs.parts[0]!) ?? 0) + 1);
        return true;
      }
      const items = setItems(rhs);
      if (!items || items.length === 0) return false; // `x IN ()`: nothing to prune
      const perShard: Expr[][] = Array.from({ length: ctx.shardCount }, () => []);
      const owners = ownersOf(ctx, items);
      for (let i = 0; i < items.length; i++) {
        const o = owners[i]!;
        if (o >= 0) perShard[o]!.push(items[i]!);
        else if (o === OWNER_UNKNOWN) for (const b of perShard) b.push(items[i]!);
      }
      slots.set(e, { node: e, perShard, total: items.length });
      return true;
    });
  }

  // Every mention of a shipped table and of `_shard_num`, in every clause.
  const allUses = new Map<string, number>();
  let usesShardNum = false;
  const naming = ctx?.naming;
  mapClausesShared(q, (root) =>
    rewriteExpr(root, (e) => {
      if (e.kind === 'column') {
        if (e.parts.length === 1 && e.parts[0]!.startsWith('_data_')) allUses.set(e.parts[0]!, (allUses.get(e.parts[0]!) ?? 0) + 1);
        if (naming ? isShardNumRef(e, naming) : e.parts.length === 1 && e.parts[0] === '_shard_num') usesShardNum = true;
      }
      return undefined;
    }),
  );
  for (const j of q.from?.joins ?? []) {
    if (j.table.kind === 'table' && !j.table.database && j.table.table.startsWith('_data_'))
      allUses.set(j.table.table, (allUses.get(j.table.table) ?? 0) + 100);
  }
  const prunableExternals = new Set([...prunableUses].filter(([n, c]) => allUses.get(n) === c).map(([n]) => n));

  // The two per-shard rewrites, shared by the AST form (forShard) and the text template: the IN
  // lists on the key in filter clauses, and `_shard_num` references.
  const rewriteSlots = (q: SelectQuery, replace: (slot: InSlot) => Expr | typeof SKIP): SelectQuery =>
    mapClausesShared(q, (root, clause) => {
      if (!FILTER_CLAUSES.has(clause)) return root;
      return rewriteExpr(root, (e) => {
        if (e.alias !== undefined || e.kind === 'lambda' || e.kind === 'subquery') return SKIP;
        const slot = slots.get(e);
        return slot ? replace(slot) : undefined;
      });
    });
  const rewriteShardNum = (q: SelectQuery, replace: (ref: Expr) => Expr): SelectQuery =>
    mapClausesShared(q, (root) =>
      rewriteExpr(root, (e) => {
        if (e.kind === 'subquery') return SKIP;
        if (!(naming ? isShardNumRef(e, naming) : e.kind === 'column' && e.parts.length === 1 && e.parts[0] === '_shard_num')) return undefined;
        return replace(e);
      }),
    );

  const forShard = (base: SelectQuery, shard: number): SelectQuery => {
    let out = base;
    if (slots.size > 0) {
      out = rewriteSlots(out, (slot) => {
        let keep = slot.perShard[shard]!;
        if (keep.length === slot.total) return SKIP; // nothing to prune on this shard
        if (keep.length === 0) {
          const items = setItems(slot.node.args[1]!)!;
          keep = [items[items.length - 1]!];
        }
        const rhs: Expr = keep.length === 1 ? keep[0]! : { kind: 'tuple', items: keep };
        return { ...slot.node, args: [slot.node.args[0]!, rhs] };
      });
    }
    if (usesShardNum) {
      const n = String(shard + 1);
      out = rewriteShardNum(out, (e) => {
        // A typed literal, so `_shard_num` keeps ClickHouse's UInt32 type and its column name.
        const lit: FunctionCall = {
          kind: 'function',
          name: 'toUInt32',
          args: [{ kind: 'literal', type: 'integer', value: n }],
          alias: e.alias ?? '_shard_num',
        };
        return lit;
      });
    }
    return out;
  };
  const template: ShardRewriter['template'] = (base, print, printExpr) => {
    const nonce = Math.random().toString(36).slice(2, 10);
    const fills: ((shard: number) => string)[] = [];
    const placeholder = (fill: (shard: number) => string, alias?: string): Expr => {
      const name = `__chs_${nonce}_${fills.length}`;
      fills.push(fill);
      return { kind: 'column', parts: [name], ...(alias !== undefined ? { alias } : {}) };
    };
    let out = base;
    if (slots.size > 0) {
      out = rewriteSlots(out, (slot) => {
        const items = setItems(slot.node.args[1]!)!;
        // Each item printed once (lazily), then joined per shard; the whole set only if a shard keeps it all.
        const texts = new Map<Expr, string>();
        const text = (x: Expr): string => {
          let t = texts.get(x);
          if (t === undefined) {
            t = printExpr(x);
            texts.set(x, t);
          }
          return t;
        };
        let whole: string | undefined;
        const fill = (shard: number): string => {
          const keep = slot.perShard[shard]!;
          if (keep.length === slot.total) {
            // Exactly as the printer writes this IN's right side: print `__x IN <rhs>`, keep the tail.
            if (whole === undefined) {
              const probe: FunctionCall = { ...slot.node, args: [{ kind: 'column', parts: ['__x'] }, slot.node.args[1]!] };
              delete probe.alias;
              const printed = printExpr(probe);
              whole = printed.startsWith('__x IN ') ? printed.slice('__x IN '.length) : `(${printExpr(slot.node.args[1]!)})`;
            }
            return whole;
          }
          if (keep.length === 0) return `(${text(items[items.length - 1]!)})`;
          let s = '(';
          for (let i = 0; i < keep.length; i++) s += (i ? ', ' : '') + text(keep[i]!);
          return s + ')';
        };
        return { ...slot.node, args: [slot.node.args[0]!, placeholder(fill)] };
      });
    }
    if (usesShardNum) {
      out = rewriteShardNum(out, (e) => placeholder((shard) => `toUInt32(${shard + 1})`, e.alias ?? '_shard_num'));
    }
    const text = print(out);
    const re = new RegExp(`__chs_${nonce}_(\\d+)`, 'g');
    const pieces: string[] = [];
    const ids: number[] = [];
    let last = 0;
    for (let m = re.exec(text); m; m = re.exec(text)) {
      pieces.push(text.slice(last, m.index));
      ids.push(Number(m[1]));
      last = m.index + m[0].length;
    }
    pieces.push(text.slice(last));
    if (ids.length !== fills.length || new Set(ids).size !== ids.length) return undefined;
    return (shard) => {
      let s = pieces[0]!;
      for (let i = 0; i < ids.length; i++) s += fills[ids[i]!]!(shard) + pieces[i + 1]!;
      return s;
    };
  };
  return { slots, usesShardNum, prunableExternals, forShard, template };
}
