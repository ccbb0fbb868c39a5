// The planner's golden corpus: queries over the fixtures' topology, each planned per shard.
// `compare`: the union of the shards' rows equals the single-node answer (row queries only:
// no aggregate, ORDER BY/LIMIT or DISTINCT across shards), checked on real engines.
import type { PlanOptions } from '../../../shared/core/plan/types.js';

export interface CorpusEntry {
  sql: string;
  opts?: Omit<PlanOptions, 'runSubquery'>;
  compare?: boolean;
  note?: string;
  /** clickhouse-server 18.16 rejects the user's query itself (not our rewrite): the message it gives. */
  rejectedBy18?: RegExp;
}

const six = "('s-1', 's-2', 's-3', 's-4', 's-5', 's-6')";

export const CORPUS: CorpusEntry[] = [
  { sql: 'SELECT count() FROM analytics.events_dist', note: 'no filter: every shard' },
  { sql: "SELECT sensor, value FROM analytics.events_dist WHERE sensor = 's-1'", compare: true },
  { sql: `SELECT sensor, value FROM analytics.events_dist WHERE sensor IN ${six}`, compare: true },
  { sql: "SELECT sensor, value FROM analytics.events_dist WHERE sensor IN ('s-1') AND value > 1", compare: true },
  { sql: "SELECT sensor, value FROM analytics.events_dist WHERE sensor IN ('s-1', 's-2') OR sensor = 's-3'", compare: true },
  { sql: "SELECT sensor, value FROM analytics.events_dist WHERE sensor NOT IN ('s-1', 's-2')", compare: true, note: 'NOT IN neither prunes nor skips' },
  {
    sql: "SELECT sensor, value FROM analytics.events_dist WHERE sensor IN ('s-1', 's-2') OR value > 250",
    compare: true,
    note: 'OR with a non-key predicate: no skip, sets pruned, keep-one where empty',
  },
  {
    sql: "SELECT sensor IN ('s-1', 's-2') AS f, count() AS c FROM analytics.events_dist WHERE sensor IN ('s-1', 's-2') GROUP BY f",
    note: 'projection keeps the whole set',
  },
  {
    sql: "SELECT sensor, value FROM analytics.events_dist WHERE (sensor IN ('s-1', 's-2', 's-3') AS cond) AND value >= 0",
    compare: true,
    note: 'aliased node: skipped shards, but no pruning',
  },
  { sql: "SELECT sensor, value FROM analytics.events_dist PREWHERE sensor IN ('s-4', 's-5', 's-6') WHERE value > 10", compare: true },
  { sql: "SELECT e.sensor, e.value FROM analytics.events_dist AS e WHERE e.sensor IN ('s-7', 's-8', 's-9')", compare: true },
  { sql: "SELECT analytics.events_dist.sensor, value FROM analytics.events_dist WHERE analytics.events_dist.sensor IN ('s-7', 's-8')", compare: true },
  { sql: "SELECT events_dist.sensor, events_dist.value FROM analytics.events_dist WHERE events_dist.sensor = 's-10'", compare: true },
  { sql: "SELECT events_dist.* FROM analytics.events_dist WHERE sensor = 's-11'", compare: true },
  { sql: 'SELECT _shard_num, count() AS c FROM analytics.events_dist GROUP BY _shard_num ORDER BY _shard_num' },
  { sql: 'SELECT sensor, _shard_num AS sn FROM analytics.events_dist WHERE _shard_num = 2 LIMIT 3' },
  {
    sql: "SELECT sensor FROM analytics.events_dist WHERE sensor = 's-12' SETTINGS max_threads = 2, max_block_size = 1000",
    compare: true,
    note: 'SETTINGS stripped from the text, forwarded as settings',
  },
  { sql: "SELECT sensor FROM analytics.events_dist WHERE sensor = 's-12' FORMAT JSON", compare: true, note: 'FORMAT stripped' },
  { sql: 'SELECT k, v FROM nums_dist WHERE k IN (0, 1, 2, 3, 4, 255)', compare: true },
  {
    sql: "SELECT k, v FROM nums_dist WHERE k IN (0, '255')",
    compare: true,
    note: 'string literal converted to UInt8',
    rejectedBy18: /Type mismatch in IN or VALUES section/,
  },
  { sql: 'SELECT k, v FROM nums_dist WHERE k IN (256, 300)', compare: true, note: 'out of range: no shard holds it; one shard still answers' },
  { sql: 'SELECT count() FROM nums_dist WHERE k = 3' },
  { sql: 'SELECT k, v FROM nums_dist WHERE k IN tuple(0, 2)', compare: true },
  { sql: 'SELECT k, v FROM nums_dist WHERE k IN (1e1, 2.5, 0x0F)', compare: true, note: 'whole floats convert, fractions match nothing, hex' },
  { sql: 'SELECT k, v FROM signed_dist WHERE k IN (-1, -2, -128, 127)', compare: true, note: 'signed boundaries, identity of negatives' },
  { sql: 'SELECT k, v FROM signed_dist WHERE k IN (-129, 128, 0)', compare: true },
  { sql: 'SELECT user_id, name FROM analytics.users_dist WHERE user_id IN (18446744073709551615, 0, 1, 7)', compare: true },
  { sql: "SELECT sensor, value FROM analytics.events_dist WHERE sensor IN ('s-1', NULL)", compare: true, note: 'NULL in the set: no narrowing' },
  {
    sql: "SELECT sensor, value FROM analytics.events_dist WHERE sensor IN (lower('S-1'), 's-2')",
    compare: true,
    note: 'a constant call in the set, folded by one engine: placed by its value',
  },
  { sql: "SELECT sensor, value FROM analytics.events_dist WHERE lower(sensor) IN ('s-1')", compare: true, note: 'function of the key: no narrowing' },
  { sql: "SELECT sensor, value FROM analytics.events_dist WHERE sensor > 's-5'", compare: true, note: 'range: no narrowing' },
  { sql: "SELECT sensor, value FROM analytics.events_dist WHERE sensor IN ('s-1', 's-2', 's-3') AND sensor IN ('s-3', 's-4')", compare: true },
  {
    sql: "SELECT sensor, value FROM analytics.events_dist WHERE has(arrayFilter(sensor -> sensor IN ('s-1', 's-2'), [sensor]), sensor)",
    compare: true,
    note: 'lambda parameter shadows the key: untouched',
  },
  {
    sql: "SELECT sensor, value FROM analytics.events_dist WHERE user_id GLOBAL IN (SELECT user_id FROM analytics.users_dist WHERE country = 'NL')",
    compare: true,
  },
  {
    sql: 'SELECT sensor, value FROM analytics.events_dist WHERE sensor GLOBAL IN (SELECT sensor FROM analytics.events_dist WHERE value > 280)',
    compare: true,
    note: 'shipped set on the key: pruned per shard, empty shards skipped',
  },
  {
    sql: 'SELECT sensor, value FROM analytics.events_dist WHERE sensor GLOBAL IN (SELECT sensor FROM analytics.events_dist WHERE value > 280) AND user_id GLOBAL IN (SELECT user_id FROM analytics.users_dist)',
    compare: true,
  },
  {
    sql: "SELECT e.sensor, u.name FROM analytics.events_dist AS e GLOBAL JOIN (SELECT user_id, name FROM analytics.users_dist) AS u USING (user_id) WHERE e.sensor = 's-3'",
    compare: true,
  },
  {
    sql: "SELECT e.sensor, u.name FROM analytics.events_dist AS e GLOBAL ANY LEFT JOIN analytics.users_dist AS u ON e.user_id = u.user_id WHERE e.sensor IN ('s-3', 's-4')",
    compare: true,
  },
  {
    sql: "SELECT e.sensor, u.name FROM analytics.events_dist AS e JOIN analytics.users_dist AS u ON e.user_id = u.user_id WHERE e.sensor = 's-5'",
    opts: { distributedProductMode: 'local' },
    note: "distributed_product_mode = 'local'",
  },
  {
    sql: "SELECT sensor, value FROM analytics.events_dist WHERE user_id IN (SELECT user_id FROM analytics.users_dist WHERE country = 'DE')",
    opts: { distributedProductMode: 'global' },
    compare: true,
    note: "distributed_product_mode = 'global'",
  },
  { sql: "SELECT sensor, value FROM analytics.events_dist WHERE sensor IN (SELECT 's-1')", compare: true, note: 'table-less subquery stays on the shard' },
  { sql: "SELECT sensor, one FROM analytics.events_dist CROSS JOIN (SELECT 1 AS one) AS c WHERE sensor = 's-2'", compare: true },
  { sql: "SELECT sensor, ts, value FROM analytics.events_dist WHERE sensor IN ('s-1', 's-2') AND ts >= '2024-01-01 00:00:00' ORDER BY ts, sensor LIMIT 10" },
  { sql: "SELECT sensor, count() AS c FROM analytics.events_dist WHERE sensor IN ('s-1', 's-2', 's-3') GROUP BY sensor HAVING c > 1 ORDER BY sensor" },
  { sql: 'SELECT user_id, name FROM analytics.users_dist FINAL WHERE user_id = 3', compare: true },
  { sql: "SELECT sensor, x FROM analytics.events_dist ARRAY JOIN [1, 2] AS x WHERE sensor = 's-4'", compare: true },
  { sql: "WITH 100 AS lim SELECT sensor, value FROM analytics.events_dist WHERE value > lim AND sensor IN ('s-1', 's-9')", compare: true },
  { sql: "SELECT DISTINCT sensor FROM analytics.events_dist WHERE sensor IN ('s-1', 's-2')" },
  {
    sql: "SELECT sensor, CASE WHEN value > 100 THEN 'hi' ELSE 'lo' END AS band FROM analytics.events_dist WHERE sensor = 's-6' OR sensor = 's-7'",
    compare: true,
  },
  { sql: "SELECT sensor, value FROM analytics.events_dist WHERE sensor IN ('s-1', 's-2') AND _shard_num IN (1, 2, 3, 4)", compare: false },
  {
    sql: "SELECT sensor, value FROM analytics.events_dist WHERE sensor IN ('s-1', 's-2')",
    opts: { settings: { optimize_skip_unused_shards_rewrite_in: 0 } },
    compare: true,
    note: 'rewrite_in off: skip but no pruning',
  },
  {
    sql: "SELECT sensor, value FROM analytics.events_dist WHERE sensor IN ('s-1', 's-2')",
    opts: { settings: { optimize_skip_unused_shards: 0 } },
    compare: true,
    note: 'skipping off: every shard, sets still pruned',
  },
  { sql: "SELECT sensor, value FROM analytics.events_dist WHERE NOT (sensor NOT IN ('s-1', 's-2'))", compare: true },
  { sql: "SELECT sensor, value FROM analytics.events_dist WHERE sensor IN ('s-1', 's-2') ORDER BY value DESC NULLS LAST LIMIT 2 BY sensor" },
  { sql: 'SELECT sensor, value FROM analytics.events_dist WHERE _shard_num IN (1, 3) AND value > 100', note: '_shard_num narrows the shard set' },
  {
    sql: "SELECT e.sensor, c.one FROM analytics.events_dist AS e RIGHT JOIN (SELECT 's-1' AS sensor, 1 AS one) AS c USING (sensor) WHERE sensor IN ('s-1', 's-2')",
    note: 'RIGHT JOIN: no skipping or pruning on the key',
  },
  { sql: 'SELECT k, v FROM nums_dist WHERE k IN tuple(2) OR k IN 3 OR k IN (1)', compare: true, note: 'unpruned sets keep their spelling' },
  {
    sql: 'SELECT sensor, value FROM analytics.events_dist WHERE sensor IN ()',
    compare: true,
    note: 'an empty set: one shard answers',
    rejectedBy18: /Expected non-empty parenthesized list/,
  },
  { sql: 'SELECT count() AS c FROM nums_dist WHERE k IN (256) OR k IN (-1)', note: 'no value can exist: one shard answers (count 0 keeps its row)' },
  {
    sql: 'SELECT count() AS c FROM nums_dist WHERE k = 256',
    note: 'compared with =, a value no UInt8 holds is no condition (ClickHouse converts it exactly): every shard',
  },
  {
    sql: "SELECT sensor, value, cond FROM analytics.events_dist WHERE (sensor IN ('s-4', 's-5', 's-6') AS cond) AND value >= 0",
    compare: true,
    note: 'aliased node over values on two shards: both keep the whole set',
  },
];
