// What an answer and /explain say about how a top count was answered: the method, whether it is
// exact, and for TPUT each round's SQL, what it moved and the bounds it found.
import type { Topology } from '../../config/schema.js';
import { printSelect } from '../../sql/print.js';
import type { Expr } from '../../sql/ast.js';
import { fn } from '../../partials/ast-build.js';
import { oneRoundInner, oneRoundRowCap, oneRoundSql } from './one-round.js';
import type { TputEligibility } from './shape.js';

export interface TopCountRound {
  /** 1: the pre-pass (the query over the candidates runs on the normal path, in the answer's statistics). */
  round: 1;
  /** The round's statement over the distributed table (each shard runs it on its local table). */
  sql: string;
  /** Shards asked. */
  shards: number;
  /** Group rows the shards returned, and their size as JSON text. */
  rows: number;
  bytes: number;
  elapsedMs: number;
}

export interface TopCountInfo {
  method: 'tput' | 'every_group' | 'shard_size';
  exact: boolean;
  /** "exact, TPUT: two rounds", "exact, every group", "shard_size, approximate ..." */
  description: string;
  /** Why TPUT does not answer this query (not eligible, or the setting). */
  notTput?: string;
  /** TPUT ran rounds but the query ran over every group after all, and why. */
  fellBack?: string;
  rounds?: TopCountRound[];
  /** The k-th largest lower bound after the pre-pass. */
  tau?: string;
  /** Per shard asked: complete (fewer than k groups), its k-th local score, its threshold ceil(kth / shards). */
  thresholds?: { shard: number; complete: boolean; kth: string; threshold: string }[];
  groupsSeen?: number;
  candidates?: number;
  /** Round 2: the query restricted to the candidates. */
  candidatesSql?: string;
  /** The same text as `candidatesSql`, under the name earlier answers gave it (kept for their readers). */
  round3Sql?: string;
}

/** The method before any round ran (the answer adds the rounds; /explain adds the round SQL). */
export function describeTopCount(method: 'tput' | 'every_group' | 'shard_size', eligibility: TputEligibility, topo: Topology): TopCountInfo {
  if (method === 'shard_size') {
    return {
      method,
      exact: false,
      description:
        `shard_size, approximate: each shard sends its top ceil(n * ${topo.query.shardSizeFactor}) + ${topo.query.shardSizeAdd} groups; ` +
        'the error bound of each row is in `approximate` (errorUpperBound, perRowErrorUpperBound)',
    };
  }
  if (method === 'tput' && eligibility.ok) return { method, exact: true, description: 'exact, TPUT: two rounds' };
  const why = method === 'every_group' ? 'ch_scatter_top_count selects every group' : eligibility.ok ? undefined : eligibility.reason;
  return { method: 'every_group', exact: true, description: 'exact, every group', ...(why ? { notTput: why } : {}) };
}

/** For /explain: the method and, for TPUT, the SQL of each round with the values found at run time as placeholders. */
export function explainTopCount(
  method: 'tput' | 'every_group' | 'shard_size',
  setting: 'exact' | 'tput',
  eligibility: TputEligibility,
  topo: Topology,
): TopCountInfo & { roundSql?: string[] } {
  const info = describeTopCount(method, eligibility, topo);
  if (info.method !== 'tput' || !eligibility.ok) return info;
  const shape = eligibility.shape;
  const keys: Expr = shape.keys.length === 1 ? shape.keys[0]! : { kind: 'tuple', items: shape.keys };
  const restrict: Expr = { ...fn('in', [{ ...keys, alias: undefined } as Expr, { kind: 'param', name: 'candidates', type: 'Set' }]), operator: 'IN' };
  const q = shape.query;
  const overCandidates = { ...q, where: q.where ? ({ ...fn('and', [q.where, restrict]), operator: 'AND' } as Expr) : restrict };
  return {
    ...info,
    roundSql: [
      `round 1 (every shard, one scan: each group whose local score reaches ceil(the shard's k-th best score / the shards asked), k = ${shape.k}, ` +
        `or all its groups when it has fewer than ${shape.k}): ${oneRoundSql(printSelect({ ...oneRoundInner(shape), settings: undefined }), shape.keys.length, shape.k, undefined, oneRoundRowCap(shape.k, setting))}`,
      `round 2 (the query over the candidates: groups whose upper bound reaches the k-th best lower bound; the normal path below runs it): ${printSelect(overCandidates)}`,
    ],
  };
}
