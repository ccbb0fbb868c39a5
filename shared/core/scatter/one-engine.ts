// One shard's engine for a statement that reads no cluster data (the catalog's answers, a constant
// SELECT): shard 0's replicas first, then the next shard's when none of them could be reached (every
// engine gives the same answer). Only 'connection' moves on: a query that ran into the deadline or
// whose server died on it runs nowhere else.
import { ClickHouseError, type ClickHouseAccess } from '../clickhouse/port.js';
import type { Topology } from '../config/schema.js';
import type { ShardInvoker } from './invoker.js';
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
