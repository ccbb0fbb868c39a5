// TPUT's pre-pass in one scan per shard (docs/architecture.md#exact-top-count-tput). Each shard
// groups its rows once, finds its own k-th best local score s_j in the same query, and returns
// every group whose local score is >= s_j / m (m = the shards asked), or every group when it has
// fewer than k (it is then complete). ClickHouse 18.16 has no window functions, so the k-th score
// comes from the sorted array of all the shard's scores, and the groups from an ARRAY JOIN over
// the array of (keys..., score) tuples (the tuple keeps each key's type; LowCardinality is dropped,
// which the literal check accepts):
//
//   SELECT tupleElement(_tput_p, 1) AS _tput_k0, ..., tupleElement(_tput_p, n + 1) AS _tput_s
//   FROM (SELECT groupArray(tuple(_tput_k0, ..., _tput_s)) AS _tput_g,
//                arrayReverseSort(groupArray(_tput_s)) AS _tput_ss
//         FROM (<the shard's GROUP BY, as planned for it>))
//   ARRAY JOIN _tput_g AS _tput_p
//   WHERE length(_tput_ss) < k OR _tput_s >= intDiv(_tput_ss[k], m) + (modulo(_tput_ss[k], m) != 0)
//   LIMIT cap + 1
//
// `>= ceil(s_j / m)` is written without `s * m`, which could wrap around a UInt64 sum. The inner
// GROUP BY is planned per shard by the ordinary planner (renaming, pruning, skipping), then wrapped
// here as text: the planner refuses a subquery in FROM for user queries, and this one is ours.
import type { SelectQuery } from '../../sql/ast.js';
import { roundBase, KEY_ALIAS, SCORE_ALIAS } from './rounds.js';
import { MAX_TPUT_GROUPS, type TputShape } from './shape.js';

/** The inner statement over the distributed table: each shard's every group and its local score. */
export function oneRoundInner(shape: TputShape): SelectQuery {
  return roundBase(shape);
}

/**
 * Rows a shard may return before the round stops paying. 'tput': MAX_TPUT_GROUPS (past it the
 * candidate list could not travel anyway). 'exact': fewer, since a shard with that many groups near
 * its threshold means the shards' scores are flat there and every group in one round is cheaper.
 */
export function oneRoundRowCap(k: number, setting: 'exact' | 'tput'): number {
  if (setting === 'tput') return MAX_TPUT_GROUPS;
  return Math.min(MAX_TPUT_GROUPS, Math.max(EXACT_ROW_CAP_MIN, EXACT_ROW_CAP_PER_K * k));
}
export const EXACT_ROW_CAP_MIN = 1000;
export const EXACT_ROW_CAP_PER_K = 100;

/**
 * The one-round SQL around `innerSql` (a shard's planned GROUP BY, or the distributed statement for
 * /explain). `shards` undefined prints a `{shards:UInt64}` placeholder. At most `rowCap + 1` rows:
 * one row over the cap tells the coordinator the shard holds more.
 */
export function oneRoundSql(innerSql: string, keyCount: number, k: number, shards: number | undefined, rowCap: number): string {
  const names = [...Array.from({ length: keyCount }, (_, i) => KEY_ALIAS(i)), SCORE_ALIAS];
  const out = names.map((n, i) => `tupleElement(_tput_p, ${i + 1}) AS ${n}`).join(', ');
  const m = shards === undefined ? '{shards:UInt64}' : String(shards);
  const kth = `_tput_ss[${k}]`;
  return (
    `SELECT ${out} FROM (SELECT groupArray(tuple(${names.join(', ')})) AS _tput_g, arrayReverseSort(groupArray(${SCORE_ALIAS})) AS _tput_ss ` +
    `FROM (${innerSql})) ARRAY JOIN _tput_g AS _tput_p ` +
    `WHERE length(_tput_ss) < ${k} OR ${SCORE_ALIAS} >= intDiv(${kth}, ${m}) + (modulo(${kth}, ${m}) != 0) LIMIT ${rowCap + 1}`
  );
}
