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
import type { GatherInput } from './gather.js';
import type { ShardInvoker } from './invoker.js';
import { isQueryFailure, queryFailureError } from './query-errors.js';
import { createShardReadAccess } from './shard-read-access.js';

export type OneEngine = Pick<ClickHouseAccess, 'query' | 'queryRaw'>;

export function oneEngine(topo: Topology, invoker: ShardInvoker): OneEngine {
  const shards = topo.shards.map((s, i) => createShardReadAccess({ invoker, shard: i, replicas: s.replicas.map((_, j) => j) }));
  const first = async <T>(ask: (a: ClickHouseAccess) => Promise<T>): Promise<T> => {
    let last: unknown;
    for (const a of shards) {
      try {
        return await ask(a);
      } catch (e) {
        if (!(e instanceof ClickHouseError) || e.kind !== 'connection') throw e;
        last = e;
      }
    }
    throw last;
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
export function constantRunner(base: Pick<GatherInput, 'topo' | 'invoker' | 'deadlineAt' | 'queryId'>): (stmt: SelectStatement) => Promise<SubqueryAnswer> {
  const engine = oneEngine(base.topo, base.invoker);
  const constants = new Map<string, Promise<SubqueryAnswer>>();
  const onOneEngine = (stmt: SelectStatement): Promise<SubqueryAnswer> => {
    // A SETTINGS clause travels as the request's settings (an 18.16 engine has no such clause).
    const { settings: clause, ...bare } = stmt;
    checkReach(stmt, shardReach(base.topo));
    const sql = printSelect(bare as SelectStatement);
    const settings = Object.fromEntries((clause ?? []).map((s) => [s.name, settingValueOf(s.value, s.name)]));
    const key = `${sql}\n${JSON.stringify(settings)}`;
    let answer = constants.get(key);
    if (!answer) {
      answer = constantAnswer(sql, settings, constants.size);
      constants.set(key, answer);
    }
    return answer;
  };
  const constantAnswer = async (sql: string, settings: Record<string, SettingValue>, n: number): Promise<SubqueryAnswer> => {
    try {
      const r = await engine.query(sql, { deadline: base.deadlineAt, queryId: `${base.queryId}-c${n}`, settings });
      return { meta: r.meta, rows: r.rows };
    } catch (e) {
      if (!(e instanceof ClickHouseError)) throw e;
      const message = e.message.replace(/^replica \d+: /, '');
      if (isQueryFailure({ status: 'error', ...(e.chCode !== undefined ? { chCode: e.chCode } : {}), message }))
        throw queryFailureError({ shard: 0, chCode: e.chCode!, message }, {});
      throw new ScatterError(e.kind === 'timeout' ? 'TIMEOUT' : 'SHARD_ERROR', `a constant SELECT could not be run on any shard's engine: ${message}`);
    }
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
