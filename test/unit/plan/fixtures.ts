// A shared test topology for the planner: four shards with weights 1,2,1,1 (so slots are
// uneven), a String key hashed with xxHash64, a UInt64 key, and UInt8 / Int8 identity keys for
// the boundary-value cases of ClickHouse's optimize_skip_unused_shards_rewrite_in tests.
import { parseTopology } from '../../../shared/core/config/load.js';
import type { Topology } from '../../../shared/core/config/schema.js';
import type { SelectQuery } from '../../../shared/core/sql/ast.js';
import type { SplitQuery } from '../../../shared/core/partials/types.js';

export function testTopology(overrides: Record<string, unknown> = {}): Topology {
  return parseTopology({
    cluster: 'test',
    shards: [1, 2, 1, 1].map((weight, i) => ({ weight, replicas: [{ url: `http://ch-${i}:8123` }] })),
    tables: {
      'analytics.events_dist': { local: 'analytics.events', shardingKey: { column: 'sensor', type: 'String', function: 'xxHash64' } },
      'analytics.users_dist': { local: 'analytics.users', shardingKey: { column: 'user_id', type: 'UInt64', function: 'xxHash64' } },
      nums_dist: { local: 'nums', shardingKey: { column: 'k', type: 'UInt8', function: 'identity' } },
      signed_dist: { local: 'signed_local', shardingKey: { column: 'k', type: 'Int8', function: 'identity' } },
    },
    query: { maxRowsToTransfer: 1000, ...overrides },
  });
}

/** The DDL of the shard-local tables (valid on chdb and on 18.16). */
export const LOCAL_DDL = [
  'CREATE DATABASE IF NOT EXISTS analytics',
  'CREATE TABLE IF NOT EXISTS analytics.events (sensor String, ts DateTime, value Float64, user_id UInt64) ENGINE = MergeTree ORDER BY (sensor, ts)',
  'CREATE TABLE IF NOT EXISTS analytics.users (user_id UInt64, name String, country String) ENGINE = ReplacingMergeTree ORDER BY user_id',
  'CREATE TABLE IF NOT EXISTS default.nums (k UInt8, v Int64) ENGINE = MergeTree ORDER BY k',
  'CREATE TABLE IF NOT EXISTS default.signed_local (k Int8, v Int64) ENGINE = MergeTree ORDER BY k',
];

/** The shard query is the query itself: pins the planner's rewrite independently of the aggregate split. */
export function passThroughSplit(q: SelectQuery): SplitQuery {
  return {
    shardQuery: q,
    createMerger: () => {
      throw new Error('pass-through split has no merger');
    },
    describe: 'pass-through (test)',
  };
}
