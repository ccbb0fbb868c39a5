// What an answer and /explain say about how a top count was answered: the method, whether it is
// exact, and for TPUT each round's SQL, what it moved and the bounds it found.
import type { Topology } from '../../config/schema.js';
import { printSelect } from '../../sql/print.js';
import type { Expr } from '../../sql/ast.js';
import { fn } from '../../partials/ast-build.js';
import { round1Query, round2Query } from './rounds.js';
import type { TputEligibility } from './shape.js';

export interface TopCountRound {
  round: 1 | 2;
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
  /** "exact, TPUT: three rounds", "exact, every group", "shard_size, approximate ..." */
  description: string;
  /** Why TPUT does not answer this query (not eligible, or the setting). */
  notTput?: string;
  /** TPUT ran rounds but the query ran over every group after all, and why. */
  fellBack?: string;
  rounds?: TopCountRound[];
  tau1?: string;
  threshold?: string;
  tau2?: string;
  groupsSeen?: number;
  candidates?: number;
  /** Round 3: the query restricted to the candidates. */
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
  if (method === 'tput' && eligibility.ok) return { method, exact: true, description: 'exact, TPUT: three rounds' };
  const why = method === 'every_group' ? 'ch_scatter_top_count selects every group' : eligibility.ok ? undefined : eligibility.reason;
  return { method: 'every_group', exact: true, description: 'exact, every group', ...(why ? { notTput: why } : {}) };
}

/** For /explain: the method and, for TPUT, the SQL of each round with the values found at run time as placeholders. */
export function explainTopCount(
  method: 'tput' | 'every_group' | 'shard_size',
  eligibility: TputEligibility,
  topo: Topology,
): TopCountInfo & { roundSql?: string[] } {
  const info = describeTopCount(method, eligibility, topo);
  if (info.method !== 'tput' || !eligibility.ok) return info;
  const shape = eligibility.shape;
  const keys: Expr = shape.keys.length === 1 ? shape.keys[0]! : { kind: 'tuple', items: shape.keys };
  const restrict: Expr = { ...fn('in', [{ ...keys, alias: undefined } as Expr, { kind: 'param', name: 'candidates', type: 'Set' }]), operator: 'IN' };
  const q = shape.query;
  const round3 = { ...q, where: q.where ? ({ ...fn('and', [q.where, restrict]), operator: 'AND' } as Expr) : restrict };
  return {
    ...info,
    roundSql: [
      `round 1 (every shard: its ${shape.k} best groups): ${printSelect(round1Query(shape))}`,
      `round 2 (the shards that returned ${shape.k} rows; threshold = ceil(tau1 / those shards), tau1 = the ${shape.k}-th best sum of round 1): ${printSelect(round2Query(shape))}`,
      `round 3 (the query over the candidates: groups whose upper bound reaches the ${shape.k}-th best lower bound; the normal path below runs it): ${printSelect(round3)}`,
    ],
  };
}
