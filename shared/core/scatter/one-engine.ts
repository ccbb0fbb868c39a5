// One shard's engine for a statement that reads no cluster data (the catalog's answers, a constant
// SELECT): shard 0's replicas first, then the next shard's when none of them could be reached (every
// engine gives the same answer). Only 'connection' moves on: a query that ran into the deadline or
// whose server died on it runs nowhere else.
import { ClickHouseError, type ClickHouseAccess, type SettingValue } from '../clickhouse/port.js';
import type { Topology } from '../config/schema.js';
import { ScatterError } from '../errors.js';
import { checkReach, shardReach } from '../plan/reach-check.js';
import { settingValueOf } from '../plan/settings.js';
import type { SubqueryAnswer, SubqueryRunner } from '../plan/types.js';
import { tablesRead } from '../plan/analyze.js';
import type { SelectStatement } from '../sql/ast.js';
import { printSelect } from '../sql/print.js';
import type { ShardOutcome } from './call-shard.js';
import type { GatherInput } from './gather.js';
import type { ShardInvoker } from './invoker.js';
import { isQueryFailure, queryFailureError } from './query-errors.js';
import { createShardReadAccess, splitReplica } from './shard-read-access.js';

export type OneEngine = Pick<ClickHouseAccess, 'query' | 'queryRaw'>;

/** Each shard's engine through its shard function, replicas in order. */
function shardEngines(topo: Topology, invoker: ShardInvoker): ClickHouseAccess[] {
  return topo.shards.map((s, i) => createShardReadAccess({ invoker, shard: i, replicas: s.replicas.map((_, j) => j) }));
}

/** What the first shard whose engine could be reached answered, with that shard's number (on an error too). */
async function onFirstShard<T>(
  engines: readonly ClickHouseAccess[],
  ask: (a: ClickHouseAccess) => Promise<T>,
): Promise<{ shard: number } & ({ value: T } | { error: unknown })> {
  let last: { shard: number; error: unknown } | undefined;
  for (const [shard, a] of engines.entries()) {
    try {
      return { shard, value: await ask(a) };
    } catch (error) {
      last = { shard, error };
      if (!(error instanceof ClickHouseError) || error.kind !== 'connection') return last;
    }
  }
  return last ?? { shard: 0, error: new ClickHouseError('no shard is configured', 'connection') };
}

export function oneEngine(topo: Topology, invoker: ShardInvoker): OneEngine {
  const engines = shardEngines(topo, invoker);
  const first = async <T>(ask: (a: ClickHouseAccess) => Promise<T>): Promise<T> => {
    const r = await onFirstShard(engines, ask);
    if ('error' in r) throw r.error;
    return r.value;
  };
  return {
    query: (sql, opts) => first((a) => a.query(sql, opts)),
    queryRaw: (sql, opts) => first((a) => a.queryRaw(sql, opts)),
  };
}

/**
 * A request's runner for statements that read no table (the planner's constant SELECT), under its
 * deadline: each text once (the fast path, the general path's leaves and TPUT's round plan the same
 * operands); an engine's refusal is the query's error with ClickHouse's code.
 */
export function constantRunner(
  base: Pick<GatherInput, 'topo' | 'invoker' | 'deadlineAt' | 'queryId' | 'onShard'> & { now?: () => number },
  outcomes?: ShardOutcome[],
): (stmt: SelectStatement) => Promise<SubqueryAnswer> {
  const engines = shardEngines(base.topo, base.invoker);
  const constants = new Map<string, { answer: Promise<SubqueryAnswer>; outcome: ShardOutcome[] }>();
  const onOneEngine = (stmt: SelectStatement): Promise<SubqueryAnswer> => {
    // A SETTINGS clause travels as the request's settings (an 18.16 engine has no such clause).
    const { settings: clause, ...bare } = stmt;
    checkReach(stmt, shardReach(base.topo));
    const sql = printSelect(bare as SelectStatement);
    const settings = Object.fromEntries((clause ?? []).map((s) => [s.name, settingValueOf(s.value, s.name)]));
    const key = `${sql}\n${JSON.stringify(settings)}`;
    let run = constants.get(key);
    if (!run) {
      const outcome: ShardOutcome[] = [];
      run = { answer: constantAnswer(sql, settings, constants.size, outcome), outcome };
      constants.set(key, run);
    }
    // The request this text made, in the request's outcomes once (a path planning anew starts them over).
    const made = run.outcome;
    const record = () => {
      for (const o of made) if (outcomes && !outcomes.includes(o)) outcomes.push(o);
    };
    return run.answer.finally(record);
  };
  const constantAnswer = async (sql: string, settings: Record<string, SettingValue>, n: number, outcome: ShardOutcome[]): Promise<SubqueryAnswer> => {
    const now = base.now ?? Date.now;
    const startedAt = now();
    const r = await onFirstShard(engines, (a) => a.query(sql, { deadline: base.deadlineAt, queryId: `${base.queryId}-c${n}`, settings }));
    const endedAt = now();
    const e = 'error' in r ? r.error : undefined;
    const { replica, message } = e instanceof Error ? splitReplica(e.message) : { replica: 0, message: undefined };
    const chCode = e instanceof ClickHouseError ? e.chCode : undefined;
    const status: ShardOutcome['status'] = !e
      ? 'ok'
      : e instanceof ClickHouseError && e.kind === 'timeout'
        ? 'timeout'
        : e instanceof ClickHouseError && e.kind === 'connection'
          ? 'unavailable'
          : 'error';
    const o: ShardOutcome = {
      shard: r.shard,
      status,
      replica,
      elapsedMs: endedAt - startedAt,
      hedged: false,
      retried: false,
      ...(message !== undefined ? { message } : {}),
      ...(chCode !== undefined ? { chCode } : {}),
      attempts: [],
      startedAt,
      endedAt,
    };
    // Logged and counted as a GLOBAL subquery's requests are (gather's onShard, the request's outcomes).
    outcome.push(o);
    base.onShard?.(o);
    if ('value' in r) return { meta: r.value.meta, rows: r.value.rows };
    if (!(e instanceof ClickHouseError)) throw e;
    if (isQueryFailure({ status: 'error', ...(chCode !== undefined ? { chCode } : {}), message: message! }))
      throw queryFailureError({ shard: r.shard, chCode: chCode!, message: message! }, {});
    throw new ScatterError(e.kind === 'timeout' ? 'TIMEOUT' : 'SHARD_ERROR', `a constant SELECT could not be run on any shard's engine: ${message}`);
  };
  return onOneEngine;
}

/**
 * The runner of a plan that runs no subquery (the streaming doors stream statements without any):
 * the key's constant operands on one engine, anything else refused.
 */
export function constantsOnlyRunner(base: Parameters<typeof constantRunner>[0]): SubqueryRunner {
  const constant = constantRunner(base);
  return (stmt) => {
    if (tablesRead(stmt, base.topo).length > 0) return Promise.reject(new ScatterError('INTERNAL', 'a subquery over a table where none was expected'));
    return constant(stmt);
  };
}
