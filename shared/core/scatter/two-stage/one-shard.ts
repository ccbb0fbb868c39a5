// One shard holds every row the query reads (pruning on the sharding key left one, or the cluster
// has one): it runs both stages in one request, as ClickHouse's Distributed table sends the whole
// query to the one shard it needs. The final SQL reads the stage-one query as a subquery where it
// would read the shipped table, so nothing is shipped and there is no second invocation; the
// answer is the same, since the stage-one rows the final stage would have read are exactly that
// subquery's rows (the same engine, the same types, states included).
//
// Only for a plan of one leaf that the final SQL reads once: a leaf read twice (a self-join) would
// run twice, where the two-stage path runs it once.
import { substituteTables } from '../../clickhouse/sql-text.js';
import type { SettingValue } from '../../clickhouse/port.js';
import type { ShardPlan } from '../../plan/types.js';
import { ScatterError } from '../../errors.js';
import type { ShardOutcome } from '../call-shard.js';
import type { Deadline } from '../deadline.js';
import type { Limiter } from '../fanout.js';
import { missingOf, shardCallFor, type GatherInput } from '../gather.js';
import { openFanOut } from '../shard-fanout.js';
import { tooLarge, type FinalStageResult } from './final-stage.js';
import type { SubqueryLedger } from '../global-subquery.js';
import type { Stages } from '../query-types.js';
import type { LeafAnswer, PlannedLeaf, StageOneResult } from './stage-one.js';
import { checkStageOne } from './stage-one-verdict.js';
import { rawBytes } from './wire.js';

/** The final SQL with the one leaf's table read as that shard's stage-one query, or undefined when it does not apply. */
export function oneShardSql(leaves: readonly PlannedLeaf[], finalSql: string): { leaf: PlannedLeaf; shard: ShardPlan; sql: string } | undefined {
  if (leaves.length !== 1) return undefined;
  const leaf = leaves[0]!;
  const queried = leaf.plan.shards.filter((s) => !s.skipped);
  if (queried.length !== 1 || queried[0]!.sql === undefined) return undefined;
  const shard = queried[0]!;
  let reads = 0;
  const sql = substituteTables(finalSql, [{ name: leaf.name }], () => {
    reads++;
    return `(${shard.sql})`;
  });
  return reads === 1 ? { leaf, shard, sql } : undefined;
}

/** What gather takes, for the one shard's request. */
export interface BothStagesContext extends Omit<GatherInput, 'plan' | 'limiter' | 'deadlineAt'> {
  format: string;
  settings: Record<string, SettingValue>;
  limiter: Limiter;
  deadline: Deadline;
  requireComplete: boolean;
  /** What the request's GLOBAL subqueries left: missing shards there make this answer partial too. */
  subqueries?: SubqueryLedger;
}

/**
 * The general path's stages when one shard holds the rows: its one answer is the final answer, and
 * its outcome is stage one's (partial, missing and error semantics as for any stage one).
 */
export async function bothStagesOnOneShard(fused: NonNullable<ReturnType<typeof oneShardSql>>, ctx: BothStagesContext): Promise<Stages> {
  const finalStart = ctx.now();
  const { deadline, requireComplete, onShard, subqueries, ...rest } = ctx;
  const call = shardCallFor(fused.leaf.plan, fused.shard, rest.topo, rest.queryId, deadline.at, { format: rest.format });
  // Both stages under the query's whole deadline, hedged and retried as stage one is.
  const fan = openFanOut({ ...rest, deadlineAt: deadline.at, onShard });
  let bytes: Buffer | undefined;
  let outcome: ShardOutcome;
  try {
    outcome = await fan.ask(
      fused.shard.shard,
      {
        replicaCount: call.replicaCount,
        request: (replica, attempt) => ({ ...call.request(replica, attempt), sql: fused.sql, settings: rest.settings, answer: true }),
      },
      (o) => {
        if (o.code === 'TOO_LARGE') throw tooLarge(o);
        if (o.status !== 'ok' || !o.response) return;
        try {
          bytes = rawBytes(o.response);
        } catch (e) {
          throw new ScatterError('SHARD_ERROR', `shard ${o.shard}, running both stages: ${(e as Error).message}`);
        }
      },
    );
  } finally {
    fan.close();
  }
  // No rows were shipped: the leaf is empty, and has columns only when the shard answered.
  const leaf: LeafAnswer = {
    name: fused.leaf.name,
    body: Buffer.alloc(0),
    objects: [],
    format: 'TabSeparated',
    parts: [],
    rows: 0,
    ...(bytes ? { columns: [] } : {}),
  };
  const one: StageOneResult = {
    leaves: [leaf],
    outcomes: [{ leaf: leaf.name, outcome }],
    missing: missingOf([outcome]),
    skipped: fused.leaf.plan.shards.filter((s) => s.skipped),
  };
  checkStageOne(one, [outcome], ctx.topo.shards.length, requireComplete, deadline, subqueries);
  const fin: FinalStageResult = {
    bytes: bytes!,
    shard: outcome.shard,
    replica: outcome.replica,
    attempts: [outcome],
    rowsRead: outcome.response?.statistics.rowsRead ?? 0,
    bytesRead: outcome.response?.statistics.bytesRead ?? 0,
  };
  return { one, fin, finalStart, requestBytes: Buffer.byteLength(fused.sql), oneShard: true };
}
