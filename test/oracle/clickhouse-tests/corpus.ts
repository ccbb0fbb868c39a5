// SELECTs taken from ClickHouse's own stateless tests that read Distributed tables, remote() or
// cluster() (tests/queries/0_stateless in github.com/ClickHouse/ClickHouse, Apache License 2.0,
// Copyright ClickHouse, Inc.), each under its source test's file name. Only the SELECTs are taken,
// with their tables renamed onto the tables of tables.ts:
//   remote('127.0.0.{2,3}', system.one)                        -> cht.one_dist (two rows, dummy = 0)
//   system.numbers, numbers_mt, numbers_1001, numbers_memory    -> cht.numbers_dist (0..1000)
//   numbers(10), data_00184                                     -> cht.numbers10_dist (0..9)
//   a test's own small table                                    -> the table of tables.ts made from its CREATE and INSERT
// A few come from tests of constructs over numbers(N) (02001_select_with_filter), run here over the
// shards. A session SET of the test is written as the query's SETTINGS. Queries whose answer depends on
// which rows an unordered LIMIT picks, on _shard_num, on the host or on a table ClickHouse's test
// creates outside the configured tables are left out.
export interface ChtQuery {
  /** `<source file without .sql>#<n>`. */
  id: string;
  source: string;
  /** Over the Distributed names of tables.ts. */
  sql: string;
  /** The query has a total ORDER BY: rows compare in order. */
  ordered?: boolean;
  /**
   * ClickHouse's Distributed table answers this unlike one node (the test's .reference shows an
   * answer per shard): its rows over this stack's placement, from each shard's row count of a table.
   * Compared with these rows under the single node's names and types.
   */
  distributed?: PerShardRows;
  /**
   * A truncating overflow mode ClickHouse's Distributed table applies (the answer is cut at a limit,
   * wherever the blocks fall): asked without completeness, the answer must say it is truncated and
   * nothing else; its rows compare because the query's are the same however the cut falls.
   */
  truncates?: true;
  /**
   * ClickHouse's column names over the Distributed tables, where one node names a column by the local
   * table it reads (a qualifier written as the table's name: `ot_dist.name` there, `ot.name` on one node).
   * The node's answer is compared under these names.
   */
  names?: string[];
}

export type PerShardRows = (rowsOnShards: (dist: string) => number[]) => Record<string, unknown>[];

type Entry = string | { sql: string; ordered?: true; distributed?: PerShardRows; truncates?: true; names?: string[] };

const ONE = 'cht.one_dist';
const NUM = 'cht.numbers_dist';
const N10 = 'cht.numbers10_dist';
const A = 'cht.alias10_dist';
const K = 'cht.key3_dist';

const groups: Array<[string, Entry[]]> = [];
const from = (source: string, ...entries: Entry[]) => groups.push([source, entries]);
const o = (sql: string): Entry => ({ sql, ordered: true });
const perShard = (sql: string, distributed: PerShardRows): Entry => ({ sql, distributed });

from('00004_shard_format_ast_and_remote_table.sql', `SELECT (dummy AS x) - 1 FROM ${ONE}`);
from('00005_shard_format_ast_and_remote_table_lambda.sql', `SELECT count() FROM ${ONE} WHERE arrayExists((x) -> x = 1, [1, 2, 3])`);
from(
  '00019_shard_quantiles_totals_distributed.sql',
  `SELECT quantilesTiming(0.1, 0.5, 0.9)(dummy) FROM ${ONE} GROUP BY 1 WITH TOTALS SETTINGS enable_positional_arguments = 0`,
);
from('00026_shard_something_distributed.sql', `SELECT NOT dummy FROM ${ONE} WHERE NOT dummy`);
from('00065_shard_float_literals_formatting.sql', `SELECT toTypeName(1.0) FROM ${ONE}`);
from('00075_shard_formatting_negate_of_negative_literal.sql', `SELECT -(-1) FROM ${ONE}`);
from(
  '00108_shard_totals_after_having.sql',
  `SELECT dummy, count() FROM ${ONE} GROUP BY dummy WITH TOTALS SETTINGS totals_mode = 'after_having_auto'`,
  `SELECT dummy, count() FROM ${ONE} GROUP BY dummy WITH TOTALS SETTINGS totals_mode = 'after_having_inclusive'`,
  `SELECT dummy, count() FROM ${ONE} GROUP BY dummy WITH TOTALS SETTINGS totals_mode = 'after_having_exclusive'`,
  `SELECT dummy, count() FROM ${ONE} GROUP BY dummy WITH TOTALS SETTINGS totals_mode = 'before_having'`,
);
from(
  '00113_shard_group_array.sql',
  o(`SELECT intDiv(number, 100) AS k, length(groupArray(number)) FROM ${NUM} GROUP BY k WITH TOTALS ORDER BY k LIMIT 10`),
  `SELECT count(), sum(ns), max(ns) FROM (SELECT intDiv(number, 100) AS k, groupArray(number) AS ns FROM ${NUM} GROUP BY k) ARRAY JOIN ns`,
  `SELECT count(), sum(toUInt64(ns)), max(toUInt64(ns)) FROM (SELECT intDiv(number, 100) AS k, groupArray(toString(number)) AS ns FROM ${NUM} GROUP BY k) ARRAY JOIN ns`,
  `SELECT count(), sum(toUInt64(ns[1])), max(toUInt64(ns[1])), sum(toUInt64(ns[2]))/10 FROM (SELECT intDiv(number, 100) AS k, groupArray([toString(number), toString(number*10)]) AS ns FROM ${NUM} GROUP BY k) ARRAY JOIN ns`,
  `SELECT count(), sum(ns[1]), max(ns[1]), sum(ns[2])/10 FROM (SELECT intDiv(number, 100) AS k, groupArray([number, number*10]) AS ns FROM ${NUM} GROUP BY k) ARRAY JOIN ns`,
  o(
    `SELECT roundToExp2(number) AS k, length(groupArray(1)(number AS i)), length(groupArray(1500)(i)), length(groupArray(70000)(i)) AS s FROM ${NUM} GROUP BY k ORDER BY k LIMIT 9, 11`,
  ),
  o(
    `SELECT roundToExp2(number) AS k, length(groupArray(1)(hex(number) AS i)), length(groupArray(1500)(i)), length(groupArray(70000)(i)) AS s FROM ${NUM} GROUP BY k ORDER BY k LIMIT 9, 11`,
  ),
  o(
    `SELECT roundToExp2(number) AS k, length(groupArray(1)([hex(number)] AS i)), length(groupArray(1500)(i)), length(groupArray(70000)(i)) AS s FROM ${NUM} GROUP BY k ORDER BY k LIMIT 9, 11`,
  ),
);
from(
  '00184_shard_distributed_group_by_no_merge.sql',
  o(`SELECT dummy AS d FROM ${ONE} ORDER BY d SETTINGS distributed_group_by_no_merge = 2`),
  o(`SELECT number FROM ${N10} ORDER BY number DESC SETTINGS distributed_group_by_no_merge = 2`),
  o(`SELECT number FROM ${N10} ORDER BY number DESC LIMIT 1 SETTINGS distributed_group_by_no_merge = 2`),
  `SELECT number FROM ${N10} LIMIT 1 BY number SETTINGS distributed_group_by_no_merge = 2`,
  `SELECT uniq(number) u FROM ${N10} GROUP BY number ORDER BY u DESC SETTINGS distributed_group_by_no_merge = 2`,
  `SELECT n FROM ${N10} GROUP BY number AS n SETTINGS distributed_group_by_no_merge = 2`,
  o(`SELECT n FROM ${N10} ORDER BY number AS n LIMIT 1 SETTINGS distributed_group_by_no_merge = 2`),
  // An aggregation without GROUP BY: every shard answers a row, 0 where it holds none (the .reference's one remote answers one).
  perShard(`SELECT assumeNotNull(argMax(dummy, 1)) FROM ${ONE} SETTINGS distributed_group_by_no_merge = 2`, (on) =>
    on(ONE).map(() => ({ 'assumeNotNull(argMax(dummy, 1))': 0 })),
  ),
);
from('00200_shard_distinct_order_by_limit_distributed.sql', o(`SELECT DISTINCT number FROM ${NUM} ORDER BY number LIMIT 10`));
from('00220_shard_with_totals_in_subquery_remote_and_limit.sql', `SELECT x FROM (SELECT count() AS x FROM ${ONE} WITH TOTALS) LIMIT 1`);
from(
  '00228_shard_quantiles_deterministic_merge_overflow.sql',
  `SELECT quantilesDeterministic(0.5, 0.9)(number, number) FROM ${NUM}`,
  `SELECT ignore(quantilesDeterministic(0.5, 0.9)(number, number)) FROM (SELECT number FROM ${NUM})`,
);
from(
  '00257_shard_no_aggregates_and_constant_keys.sql',
  `SELECT 41 AS z FROM ${ONE} GROUP BY z SETTINGS enable_positional_arguments = 0`,
  `SELECT count(), 42 AS z FROM ${ONE} GROUP BY z SETTINGS enable_positional_arguments = 0`,
  `SELECT 43 AS z FROM ${ONE} GROUP BY 42, 43, 44 SETTINGS enable_positional_arguments = 0`,
  `SELECT 41 AS z FROM ${ONE} GROUP BY z WITH TOTALS SETTINGS enable_positional_arguments = 0`,
  `SELECT count(), 42 AS z FROM ${ONE} GROUP BY z WITH TOTALS SETTINGS enable_positional_arguments = 0`,
  `SELECT 43 AS z FROM ${ONE} GROUP BY 42, 43, 44 WITH TOTALS SETTINGS enable_positional_arguments = 0`,
  `SELECT count() FROM ${ONE} WITH TOTALS`,
  `SELECT count(), 42 AS z FROM ${ONE} GROUP BY z`,
  `SELECT count(), 42 AS z FROM ${ONE} GROUP BY z WITH TOTALS`,
  `SELECT 41 AS z, count() FROM ${ONE} GROUP BY z WITH TOTALS`,
  `SELECT count(), 42 AS z FROM ${ONE} GROUP BY z WITH ROLLUP`,
  `SELECT count(), 42 AS z FROM ${ONE} GROUP BY z WITH CUBE`,
  `SELECT count(), dummy + 1 AS z FROM ${ONE} GROUP BY z WITH TOTALS`,
);
from(
  '00275_shard_quantiles_weighted.sql',
  `SELECT quantileExactWeighted(0.5)(number, 1) FROM ${NUM}`,
  `SELECT quantilesExactWeighted(0, 0.001, 0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 0.999, 1)(number, 1) FROM ${NUM}`,
  `SELECT quantilesExactWeighted(0, 0.001, 0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 0.999, 1)(number, number) FROM ${NUM}`,
  `SELECT quantileTimingWeighted(0.5)(number, 1) FROM ${NUM}`,
  `SELECT quantilesTimingWeighted(0, 0.001, 0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 0.999, 1)(number, 1) FROM ${NUM}`,
  `SELECT quantilesTimingWeighted(0, 0.001, 0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 0.999, 1)(number, number) FROM ${NUM}`,
);
from(
  '00294_shard_enums.sql',
  o(`SELECT e FROM cht.enums_dist ORDER BY e`),
  o(`SELECT e FROM cht.enums_dist ORDER BY e DESC`),
  o(`SELECT count(), e FROM cht.enums_dist GROUP BY e ORDER BY e`),
  `SELECT e FROM cht.enums_dist WHERE e IN ('a', 'd')`,
  `SELECT e FROM cht.enums_dist WHERE e IN (SELECT e FROM cht.enums_dist)`,
  `SELECT DISTINCT e FROM cht.enums_dist`,
  `SELECT e FROM cht.enums_dist WHERE e = e`,
  `SELECT e FROM cht.enums_dist WHERE e = 'a' OR e = 'd'`,
  `SELECT e FROM cht.enums_dist WHERE e != 'a'`,
  `SELECT e, e < 'b' FROM cht.enums_dist`,
  `SELECT e, e > 'b' FROM cht.enums_dist`,
  `SELECT toInt8(e), toInt16(e), toUInt64(e), toString(e), e FROM cht.enums_dist`,
);
from(
  '00409_shard_limit_by.sql',
  o(`SELECT Num FROM cht.limit_by_dist ORDER BY Num LIMIT 2 BY Num`),
  o(`SELECT Num, count(*) FROM cht.limit_by_dist GROUP BY Num ORDER BY Num LIMIT 2 BY Num`),
  o(`SELECT Num, Name FROM cht.limit_by_dist ORDER BY Num LIMIT 1 BY Num, Name LIMIT 3`),
  `SELECT dummy FROM ${ONE} LIMIT 1 BY dummy`,
  `SELECT dummy FROM ${ONE} LIMIT 2 BY dummy`,
  `SELECT 1 AS one FROM ${ONE} LIMIT 1 BY one`,
  `SELECT 1 AS x FROM ${ONE} ORDER BY dummy LIMIT 1 BY x`,
);
from('00546_shard_tuple_element_formatting.sql', `SELECT tupleElement((1, 2), toUInt8(1 + 0)) FROM ${ONE}`);
from('00612_shard_count.sql', `SELECT count() FROM ${NUM}`, `SELECT count() / 2 FROM ${NUM}`);
from('00635_shard_distinct_order_by.sql', o(`SELECT DISTINCT s FROM cht.sxy_dist ORDER BY x + y, s`));
from('01018_Distributed__shard_num.sql', `SELECT * FROM ${ONE}`, `SELECT key FROM cht.kv_dist`);
from(
  '01104_distributed_numbers_test.sql',
  `SELECT '100' AS number FROM ${NUM} AS n WHERE n.number = 100 LIMIT 2`,
  `SELECT '100' AS number FROM ${NUM} AS n WHERE n.number = 100 LIMIT 2 SETTINGS max_threads = 1, prefer_localhost_replica = 1`,
  `SELECT '100' AS number FROM ${NUM} AS n WHERE n.number = 100 LIMIT 2 SETTINGS distributed_product_mode = 'local'`,
);
from(
  '01104_distributed_one_test.sql',
  `SELECT 'distributed_0', toUInt8(1) AS dummy FROM ${ONE} AS o WHERE o.dummy = 0`,
  `SELECT 'distributed_1', toUInt8(1) AS dummy FROM ${ONE} AS o WHERE o.dummy = 1`,
  `SELECT 'distributed_0', toUInt8(1) AS dummy FROM ${ONE} AS o WHERE o.dummy = 0 SETTINGS distributed_product_mode = 'local'`,
);
from(
  '01244_optimize_distributed_group_by_sharding_key.sql',
  `SELECT * FROM ${N10}`,
  `SELECT count(), * FROM ${N10} GROUP BY number`,
  `SELECT count(), * FROM ${N10} GROUP BY number, 1 SETTINGS enable_positional_arguments = 0`,
  `SELECT count(), min(number) FROM ${N10} GROUP BY 1 SETTINGS enable_positional_arguments = 0`,
  o(`SELECT count(), * FROM ${N10} GROUP BY number ORDER BY number DESC`),
  `SELECT count(), * FROM ${N10} GROUP BY toString(number)`,
  `SELECT count(), min(number) FROM ${N10} GROUP BY number % 2`,
  `SELECT count(DISTINCT number) FROM ${N10}`,
  `SELECT count(DISTINCT number) FROM ${N10} GROUP BY number`,
  `SELECT DISTINCT number FROM ${N10}`,
  `SELECT count() cnt, * FROM ${N10} GROUP BY number HAVING cnt == 1`,
  o(`SELECT count(), * FROM ${N10} GROUP BY number ORDER BY number LIMIT 1 BY number`),
  o(`SELECT count(), * FROM ${N10} GROUP BY number ORDER BY number LIMIT 1 OFFSET 1`),
  `SELECT count(), * FROM ${N10} GROUP BY number SETTINGS extremes = 1`,
  `SELECT count(), * FROM ${N10} GROUP BY number WITH TOTALS`,
  `SELECT count(), * FROM ${N10} GROUP BY number WITH ROLLUP`,
  `SELECT count(), * FROM ${N10} GROUP BY number WITH CUBE`,
  o(`SELECT count(), * FROM ${N10} GROUP BY number WITH TOTALS ORDER BY number`),
  o(`SELECT count(), * FROM ${N10} GROUP BY number WITH TOTALS ORDER BY number LIMIT 1`),
  `SELECT * FROM cht.ab_dist GROUP BY a, b`,
  `SELECT * FROM cht.ab_dist GROUP BY b, a`,
  `SELECT DISTINCT ON (a) b FROM cht.ab_dist`,
  o(`SELECT number, sum(sum(number)) OVER (ORDER BY number ROWS UNBOUNDED PRECEDING) FROM ${N10} GROUP BY number ORDER BY number`),
  o(`SELECT number FROM ${N10} GROUP BY number ORDER BY number OFFSET 1`),
);
from(
  '01259_combinator_distinct_distributed.sql',
  `SELECT sum(DISTINCT number % 13) FROM ${NUM}`,
  `SELECT arraySort(groupArray(DISTINCT number % 13)) FROM ${NUM}`,
  `SELECT finalizeAggregation(countState(DISTINCT toString(number % 20))) FROM ${NUM}`,
  `SELECT round(corrStable(DISTINCT x, y), 5) FROM (SELECT number % 10 AS x, number % 5 AS y FROM ${NUM})`,
  `SELECT sum(DISTINCT number % 13) FROM ${NUM} SETTINGS distributed_aggregation_memory_efficient = 1`,
  `SELECT arraySort(groupArray(DISTINCT number % 13)) FROM ${NUM} SETTINGS distributed_aggregation_memory_efficient = 1`,
);
from(
  '01268_shard_avgweighted.sql',
  `SELECT avgWeighted(100., .1) FROM ${ONE}`,
  `SELECT avgWeighted(10, 100) FROM ${ONE}`,
  `SELECT avgWeighted(0, 1) FROM ${ONE}`,
  `SELECT avgWeighted(0., 0.) FROM ${ONE}`,
  `SELECT avgWeighted(1., 0.) FROM ${ONE}`,
  `SELECT avgWeighted(toInt8(100), -1) FROM ${ONE}`,
);
from('01272_offset_without_limit.sql', o(`SELECT number FROM ${NUM} WHERE number < 50 ORDER BY number OFFSET 5`));
from(
  '01412_group_array_moving_shard.sql',
  `SELECT groupArrayMovingSum(10)(1) FROM ${NUM} WHERE number < 100`,
  `SELECT groupArrayMovingAvg(10)(1) FROM ${NUM} WHERE number < 100`,
  `SELECT groupArrayMovingSum(256)(-1) FROM ${NUM} WHERE number < 200`,
  `SELECT groupArrayMovingSum(256)(1) FROM ${NUM} WHERE number < 100`,
  `SELECT groupArrayMovingSum(256)(1) FROM ${NUM}`,
  `SELECT toTypeName(groupArrayMovingSum(256)(-1)) FROM ${NUM}`,
  `SELECT groupArrayMovingAvg(256)(1) FROM ${NUM}`,
  `SELECT groupArrayMovingSum(0.1)(1) FROM ${NUM} WHERE number < 100`,
);
from(
  '01519_topK_distributed_parametrized.sql',
  `SELECT length(topK(30)(A)) FROM cht.topx_dist`,
  `SELECT length(topK(A)) FROM cht.topx_dist`,
  `SELECT length(topK(3)(A)) FROM cht.topx_dist`,
);
from(
  '01568_window_functions_distributed.sql',
  o(`SELECT row_number() OVER (ORDER BY dummy) AS x FROM (SELECT * FROM ${ONE}) ORDER BY x`),
  o(`SELECT row_number() OVER (ORDER BY dummy) AS x FROM ${ONE} ORDER BY x`),
  o(`SELECT max(identity(dummy + 1)) OVER () AS x FROM ${ONE} ORDER BY x`),
  o(`SELECT sum(number) OVER w AS x, max(number) OVER w AS y FROM cht.pon_dist WINDOW w AS (PARTITION BY p) ORDER BY x, y`),
  o(`SELECT DISTINCT sum(number) OVER w AS x, max(number) OVER w AS y FROM cht.pon_dist WINDOW w AS (PARTITION BY p) ORDER BY x, y`),
  o(`SELECT p, o, count() OVER (PARTITION BY p) FROM cht.pon_dist ORDER BY p, o`),
  `SELECT sum(number) OVER w, max(number) OVER w FROM cht.pon_dist WINDOW w AS (PARTITION BY p) ORDER BY p`,
);
from(
  '01813_distributed_scalar_subqueries_alias.sql',
  `SELECT a / (SELECT sum(number) FROM numbers(10)) FROM cht.ab_dist`,
  `SELECT a < (SELECT 1) FROM cht.ab_dist`,
  `SELECT a / (SELECT sum(number) FROM numbers(10)) FROM cht.ab_dist SETTINGS prefer_localhost_replica = 0`,
);
from('01922_sum_null_for_remote.sql', `SELECT sum(null) FROM ${ONE}`);
from(
  '02183_array_tuple_literals_remote.sql',
  `SELECT any(array(0)) AS k FROM ${N10}`,
  `SELECT any(tuple(0, 1)) AS k FROM ${N10}`,
  `SELECT any(array(array(0, 1), array(2, 3))) AS k FROM ${N10}`,
  `SELECT any(array(tuple(0, 1), tuple(2, 3))) AS k FROM ${N10}`,
  `SELECT any(array((0, 1), (2, 3))) AS k FROM ${N10}`,
  `SELECT any(tuple(array(0, 1), tuple(2, 3), [4], (5, 'a'), 6, 'b')) AS k FROM ${N10}`,
  `SELECT any(array(number, 1)) AS k FROM ${N10} WHERE number = 3`,
  `SELECT any(tuple(number, 1)) AS k FROM ${N10} WHERE number = 3`,
  `SELECT any(array(array(0, 1), [2, 3])) AS k FROM ${N10}`,
  `SELECT any(array(array(0, 1), [number, number])) AS k FROM ${N10} WHERE number = 3`,
);
from(
  '02343_group_by_use_nulls_distributed.sql',
  o(
    `SELECT number, number % 2, sum(number) AS val FROM ${N10} GROUP BY ROLLUP(number, number % 2) ORDER BY (number, number % 2, val) SETTINGS group_by_use_nulls = 1, optimize_group_by_function_keys = 0`,
  ),
  o(
    `SELECT number, number % 2, sum(number) AS val FROM ${N10} GROUP BY ROLLUP(number, number % 2) ORDER BY (number, number % 2, val) SETTINGS group_by_use_nulls = 0, optimize_group_by_function_keys = 0`,
  ),
  o(
    `SELECT number, number % 2, sum(number) AS val FROM ${N10} GROUP BY CUBE(number, number % 2) ORDER BY (number, number % 2, val) SETTINGS group_by_use_nulls = 1, optimize_group_by_function_keys = 0`,
  ),
  o(
    `SELECT number, number % 2, sum(number) AS val FROM ${N10} GROUP BY CUBE(number, number % 2) ORDER BY (number, number % 2, val) SETTINGS group_by_use_nulls = 0, optimize_group_by_function_keys = 0`,
  ),
  o(
    `SELECT number, number % 2, sum(number) AS val FROM ${N10} GROUP BY GROUPING SETS ((number), (number % 2)) ORDER BY (number, number % 2, val) SETTINGS group_by_use_nulls = 1, optimize_group_by_function_keys = 0`,
  ),
  o(
    `SELECT number, number % 2, sum(number) AS val FROM ${N10} GROUP BY GROUPING SETS ((number), (number % 2)) ORDER BY (number, number % 2, val) SETTINGS group_by_use_nulls = 0, optimize_group_by_function_keys = 0`,
  ),
);

from('00171_shard_array_of_tuple_remote.sql', `SELECT arrayMap((x, y) -> (x, y), [1, 2, 3], [4, 5, 6]) FROM ${ONE} ORDER BY rand()`);
from(
  '00217_shard_global_subquery_columns_with_same_name.sql',
  `SELECT k, a FROM (SELECT 42 AS k FROM ${ONE}) GLOBAL ALL FULL OUTER JOIN (SELECT 42 AS k, 1 AS a, a) USING k SETTINGS joined_subquery_requires_alias = 0`,
  `SELECT 1 FROM ${ONE} WHERE (1, 1) GLOBAL IN (SELECT 1 AS a, a) SETTINGS joined_subquery_requires_alias = 0`,
);
from('00252_shard_global_in_aggregate_function.sql', `SELECT sum(UserID GLOBAL IN (SELECT UserID FROM cht.storage_dist)) FROM cht.storage_dist`);
from('00266_shard_global_subquery_and_aliases.sql', `SELECT 1 GLOBAL IN (SELECT 1) AS s, s FROM ${ONE}`);
from(
  '00290_shard_aggregation_memory_efficient.sql',
  o(
    `SELECT concat(toString(number), arrayStringConcat(arrayMap(x -> '.', range(number % 10)))) AS k FROM ${NUM} WHERE number < (randConstant() % 2 ? 4999 : 10000) GROUP BY k ORDER BY k LIMIT 10 SETTINGS distributed_aggregation_memory_efficient = 1`,
  ),
);
from(
  '00295_global_in_one_shard_rows_before_limit.sql',
  o(`SELECT arrayJoin(range(100)) AS x FROM ${ONE} WHERE x GLOBAL IN (SELECT toUInt8(arrayJoin(range(100)) + 50)) GROUP BY x ORDER BY x LIMIT 10`),
);
from(
  '00506_shard_global_in_union.sql',
  `SELECT * FROM (SELECT CounterID FROM cht.globalin_dist WHERE (CounterID GLOBAL IN (SELECT toUInt32(34))) GROUP BY CounterID)`,
  `SELECT CounterID FROM cht.globalin_dist WHERE (CounterID GLOBAL IN (SELECT toUInt32(34))) GROUP BY CounterID UNION ALL SELECT CounterID FROM cht.globalin_dist WHERE (CounterID GLOBAL IN (SELECT toUInt32(34))) GROUP BY CounterID`,
  `SELECT * FROM (SELECT CounterID FROM cht.globalin_dist WHERE (CounterID GLOBAL IN (SELECT toUInt32(34))) GROUP BY CounterID UNION ALL SELECT CounterID FROM cht.globalin_dist WHERE (CounterID GLOBAL IN (SELECT toUInt32(34))) GROUP BY CounterID)`,
  o(`SELECT * FROM (SELECT * FROM cht.union_bug_dist WHERE Event = 'A' UNION ALL SELECT * FROM cht.union_bug_dist WHERE Event = 'B') ORDER BY Datetime`),
  o(
    `SELECT * FROM (SELECT Event, Datetime FROM cht.union_bug_dist WHERE Event = 'A' UNION ALL SELECT * FROM cht.union_bug_dist WHERE Event = 'B') ORDER BY Datetime`,
  ),
  o(
    `SELECT * FROM (SELECT * FROM cht.union_bug_dist WHERE Event = 'A' UNION ALL SELECT Event, Datetime FROM cht.union_bug_dist WHERE Event = 'B') ORDER BY Datetime`,
  ),
  o(
    `SELECT * FROM (SELECT Event, Datetime FROM cht.union_bug_dist WHERE Event = 'A' UNION ALL SELECT Event, Datetime FROM cht.union_bug_dist WHERE Event = 'B') ORDER BY Datetime`,
  ),
);
from('00614_shard_same_header_for_local_and_remote_node_in_distributed_query.sql', `SELECT time FROM cht.tab_dist WHERE date = '2018-01-21' LIMIT 2`);
from('00675_shard_remote_with_table_function.sql', `SELECT COUNT(*) FROM cht.remote_test_dist`);
from(
  '00678_shard_funnel_window.sql',
  `SELECT level, COUNT() FROM (SELECT uid, windowFunnel(3600)(toUInt32(its), action_code != '', action_code = '2') AS level FROM cht.funnel_dist GROUP BY uid) GROUP BY level`,
);
from(
  '00697_in_subquery_shard.sql',
  `SELECT dummy IN (SELECT 0) FROM ${ONE}`,
  `SELECT dummy IN (SELECT 1) FROM ${ONE}`,
  `SELECT number IN (SELECT toUInt64(arrayJoin([1, 8]))) FROM ${N10}`,
  `SELECT arrayExists(x -> (x IN (SELECT 1)), [1]) FROM ${ONE}`,
  `SELECT sumIf(number, arrayExists(x -> (x IN (SELECT 1)), [1])) FROM ${N10}`,
  `SELECT dummy IN (SELECT 0) FROM ${ONE} SETTINGS prefer_localhost_replica = 0`,
  `SELECT dummy IN (SELECT 1) FROM ${ONE} SETTINGS prefer_localhost_replica = 0`,
  `SELECT number IN (SELECT toUInt64(arrayJoin([1, 8]))) FROM ${N10} SETTINGS prefer_localhost_replica = 0`,
  `SELECT arrayExists(x -> (x IN (SELECT 1)), [1]) FROM ${ONE} SETTINGS prefer_localhost_replica = 0`,
  `SELECT sumIf(number, arrayExists(x -> (x IN (SELECT 1)), [1])) FROM ${N10} SETTINGS prefer_localhost_replica = 0`,
);
from('00976_shard_low_cardinality_achimbab.sql', `SELECT k, uniq(date_dt) FROM cht.han_dist GROUP BY k`);
from('01121_remote_scalar_subquery.sql', `SELECT (SELECT 1) FROM ${ONE}`);
from(
  '01757_optimize_skip_unused_shards_limit.sql',
  `SELECT * FROM ${ONE} WHERE dummy IN (0,)`,
  `SELECT * FROM ${ONE} WHERE dummy IN (0, 1) SETTINGS optimize_skip_unused_shards_limit = 2`,
  `SELECT * FROM ${ONE} WHERE dummy IN (0, 1) SETTINGS optimize_skip_unused_shards_limit = 0`,
  `SELECT * FROM ${ONE} WHERE dummy = 0 AND dummy = 1 SETTINGS optimize_skip_unused_shards_limit = 1`,
);
from(
  '01952_optimize_distributed_group_by_sharding_key.sql',
  `SELECT DISTINCT k1 FROM cht.kkv_dist`,
  `SELECT DISTINCT k1, k2 FROM cht.kkv_dist`,
  `SELECT DISTINCT ON (k1) k2 FROM cht.kkv_dist`,
  `SELECT DISTINCT ON (k1, k2) v FROM cht.kkv_dist`,
  `SELECT DISTINCT k1 FROM cht.kkv_dist ORDER BY v`,
  `SELECT DISTINCT k1, k2 FROM cht.kkv_dist ORDER BY v`,
  `SELECT DISTINCT ON (k1) k2 FROM cht.kkv_dist ORDER BY v`,
  `SELECT DISTINCT ON (k1, k2) v FROM cht.kkv_dist ORDER BY v`,
  `SELECT k1, k2, sum(v) FROM cht.kkv_dist GROUP BY k1, k2`,
  `SELECT k1, any(k2), sum(v) FROM cht.kkv_dist GROUP BY k1`,
);
from(
  '02001_dist_on_dist_WithMergeableStateAfterAggregation.sql',
  `SELECT dummy AS foo FROM ${ONE} LIMIT 1 SETTINGS prefer_localhost_replica = 0, distributed_push_down_limit = 0`,
  `SELECT dummy AS foo FROM ${ONE} LIMIT 1 SETTINGS prefer_localhost_replica = 0, distributed_push_down_limit = 1`,
  `SELECT dummy AS foo FROM ${ONE} LIMIT 1 SETTINGS prefer_localhost_replica = 0, distributed_group_by_no_merge = 1`,
);
from('02346_additional_filters_distr.sql', o(`SELECT * FROM cht.xy_dist ORDER BY x SETTINGS additional_table_filters = {'cht.xy_dist' : 'x > 3 and x < 7'}`));
// 02346_additional_filters: table_1 and distr_table as cht.xy_dist (keys by its name or an alias),
// system.numbers as cht.numbers_dist (its unordered LIMIT ordered), system.one as cht.one_dist.
const XY = 'cht.xy_dist';
const XYF = (f: string) => `SETTINGS additional_table_filters = {'${XY}' : '${f}'}`;
from(
  '02346_additional_filters.sql',
  `SELECT * FROM ${XY} ${XYF('x != 2')}`,
  `SELECT * FROM ${XY} ${XYF('x != 2 and x != 3')}`,
  `SELECT y FROM ${XY} ${XYF('x != 2')}`,
  `SELECT * FROM ${XY} WHERE x != 3 ${XYF('x != 2')}`,
  `SELECT * FROM ${XY} PREWHERE x != 4 ${XYF('x != 2')}`,
  `SELECT x FROM ${XY} PREWHERE x != 4 WHERE x != 3 ${XYF('x != 2')}`,
  `SELECT y FROM ${XY} PREWHERE x != 4 WHERE x != 3 ${XYF('x != 2')}`,
  `SELECT x FROM ${XY} PREWHERE x != 2 WHERE x != 2 ${XYF('x != 2')}`,
  `SELECT * FROM ${XY} ${XYF('x = 2')}`,
  `SELECT * FROM ${XY} AS t SETTINGS additional_table_filters = {'t' : 'x % 2 != 0'}`,
  o(`SELECT * FROM ${NUM} ORDER BY number LIMIT 5 SETTINGS additional_table_filters = {'${NUM}' : 'number != 3'}`),
  o(`SELECT * FROM ${NUM} ORDER BY number LIMIT 5 SETTINGS additional_table_filters = {'${NUM}' : 'number != 3', '${XY}' : 'x != 2'}`),
  o(
    `SELECT * FROM (SELECT number FROM ${NUM} ORDER BY number LIMIT 5 UNION ALL SELECT x FROM ${XY}) ORDER BY number SETTINGS additional_table_filters = {'${NUM}' : 'number != 3', '${XY}' : 'x != 2'}`,
  ),
  `SELECT b + 1 AS c FROM (SELECT a + 1 AS b FROM (SELECT x + 1 AS a FROM ${XY})) ${XYF('x != 2 and x != 3')}`,
  `SELECT dummy FROM ${ONE} SETTINGS additional_table_filters = {'${ONE}' : 'dummy IN (SELECT number FROM numbers(2))'}`,
  // additional_result_filter (an unordered LIMIT ordered; `c in (select 4)` over the test's 4 rows as 8 over these 8).
  `SELECT * FROM ${XY} SETTINGS additional_result_filter = 'x != 2'`,
  `SELECT *, x != 2 FROM ${XY} SETTINGS additional_result_filter = 'x != 2'`,
  `SELECT * FROM ${XY} WHERE x != 1 SETTINGS additional_result_filter = 'x != 2'`,
  `SELECT * FROM ${XY} WHERE x != 1 SETTINGS additional_result_filter = 'x != 2 and x != 3'`,
  `SELECT * FROM ${XY} PREWHERE x != 3 WHERE x != 1 SETTINGS additional_result_filter = 'x != 2'`,
  o(`SELECT * FROM ${XY} ORDER BY x LIMIT 3 SETTINGS additional_result_filter = 'x != 2'`),
  `SELECT x + 1 FROM ${XY} SETTINGS additional_result_filter = '\`plus(x, 1)\` != 2'`,
  o(`SELECT * FROM (SELECT x + 1 AS a, y FROM ${XY} UNION ALL SELECT x AS a, y FROM ${XY}) ORDER BY a, y SETTINGS additional_result_filter = 'a = 3'`),
  o(`SELECT * FROM (SELECT x + 1 AS a, y FROM ${XY} UNION ALL SELECT x AS a, y FROM ${XY}) ORDER BY a, y SETTINGS additional_result_filter = 'a != 3'`),
  o(`SELECT * FROM ${XY} ORDER BY x SETTINGS additional_result_filter = 'x in (select number from numbers(3))'`),
  `SELECT count() AS c FROM ${XY} SETTINGS additional_result_filter = 'c in (select 8)'`,
);
from('02887_tuple_element_distributed.sql', `SELECT equals(tupleElement(tuple('a', 10) AS x, 1), 'a') FROM ${N10} WHERE number < 2`);
from(
  '02971_limit_by_distributed.sql',
  o(`SELECT k FROM cht.tlb_dist ORDER BY k ASC LIMIT 1 BY k LIMIT 100`),
  o(`SELECT k FROM cht.tlb_dist ORDER BY k ASC LIMIT 1 BY k`),
);
from('03018_analyzer_distributed_query_with_positional_arguments.sql', `SELECT 0 AS x FROM ${ONE} GROUP BY x`, o(`SELECT 0 AS x FROM ${ONE} ORDER BY x`));

from('00123_shard_unmerged_result_when_max_distributed_connections_is_one.sql', `SELECT count() + 1 FROM ${ONE} SETTINGS max_distributed_connections = 1`);
from(
  '00163_shard_join_with_empty_table.sql',
  o(
    `SELECT * FROM (SELECT number, n, j1, j2 FROM (SELECT dummy + 2 AS number, number / 2 AS n FROM ${ONE}) ANY INNER JOIN (SELECT number / 3 AS n, number AS j1, 'Hello' AS j2 FROM ${NUM} LIMIT 0) USING n LIMIT 10) ORDER BY number SETTINGS any_join_distinct_right_table_keys = 1, joined_subquery_requires_alias = 0, join_algorithm = 'hash'`,
  ),
  o(
    `SELECT * FROM (SELECT number, n, j1, j2 FROM (SELECT dummy + 2 AS number, number / 2 AS n FROM ${ONE}) GLOBAL ANY INNER JOIN (SELECT number / 3 AS n, number AS j1, 'Hello' AS j2 FROM ${NUM} LIMIT 0) USING n LIMIT 10) ORDER BY number SETTINGS any_join_distinct_right_table_keys = 1, joined_subquery_requires_alias = 0, join_algorithm = 'hash'`,
  ),
  o(
    `SELECT * FROM (SELECT number, n, j1, j2 FROM (SELECT dummy + 2 AS number, number / 2 AS n FROM ${ONE}) GLOBAL ANY INNER JOIN (SELECT number / 3 AS n, number AS j1, 'Hello' AS j2 FROM ${NUM} LIMIT 0) USING n LIMIT 10) ORDER BY number SETTINGS any_join_distinct_right_table_keys = 1, joined_subquery_requires_alias = 0, max_threads = 6`,
  ),
);
from(
  '00224_shard_distributed_aggregation_memory_efficient_and_overflows.sql',
  o(`SELECT count() = 200000 FROM ${NUM} GROUP BY number WITH TOTALS ORDER BY number LIMIT 10`),
  {
    sql: `SELECT count() = 200000 FROM ${NUM} GROUP BY number WITH TOTALS ORDER BY number LIMIT 10 SETTINGS distributed_aggregation_memory_efficient = 1, group_by_two_level_threshold = 1000, group_by_overflow_mode = 'any', max_rows_to_group_by = 1000, totals_mode = 'after_having_auto'`,
    ordered: true,
    truncates: true,
  },
);
from('00588_shard_distributed_prewhere.sql', o(`SELECT * FROM cht.xs_dist PREWHERE x = 1 WHERE s LIKE '%l%' ORDER BY x, s`));
from(
  '00594_alias_in_distributed.sql',
  `SELECT field1, field2, field3 FROM ${A}`,
  `SELECT field1, field2, field3 FROM ${A} WHERE EventDate = '2000-01-01'`,
  `SELECT field1, field2 FROM ${A} WHERE EventDate = '2000-01-01'`,
  `SELECT field2, field3 FROM ${A} WHERE EventDate = '2000-01-01'`,
  `SELECT field3 FROM ${A} WHERE EventDate = '2000-01-01'`,
  `SELECT field2, field3 FROM ${A}`,
  `SELECT field3 FROM ${A}`,
  `SELECT field1 FROM ${A} WHERE field3 = '12345'`,
  `SELECT field2 FROM ${A} WHERE field3 = '12345'`,
  `SELECT field3 FROM ${A} WHERE field3 = '12345'`,
);
from(
  '00980_shard_aggregation_state_deserialization.sql',
  `SELECT count(*) FROM ${NUM} WHERE bitmapContains((SELECT groupBitmapState(number) FROM ${NUM}), toUInt32(number))`,
);
// 02922_respect_nulls_extensive's aggregates over numbers(10) whose answer no row order changes (only
// the NULL rows pass the condition, or the state's type).
const NULL_OVER_9 = `(SELECT if(number > 8, NULL, number) AS number FROM ${N10})`;
from(
  '02922_respect_nulls_extensive.sql',
  `SELECT first_valueIf (number, isNull(number)) RESPECT NULLS from ${NULL_OVER_9}`,
  `SELECT toTypeName(first_valueIfState(number, isNull(number)) RESPECT NULLS) from ${NULL_OVER_9}`,
  `SELECT FIRST_VALUEIf (number, isNull(number)) RESPECT NULLS from ${NULL_OVER_9}`,
  `SELECT toTypeName(FIRST_VALUEIfState(number, isNull(number)) RESPECT NULLS) from ${NULL_OVER_9}`,
);
from(
  '02922_respect_nulls_states.sql',
  `SELECT toTypeName(first_value_respect_nullsState(dummy)), toTypeName(last_value_respect_nullsState(dummy)) from ${ONE}`,
  `SELECT first_value_respect_nullsMerge(t) FROM (Select first_value_respect_nullsState(dummy) as t FROM ${ONE})`,
  `SELECT last_value_respect_nullsMerge(t) FROM (Select last_value_respect_nullsState(NULL::Nullable(UInt8)) as t FROM ${ONE})`,
);
from(
  '01223_dist_on_dist.sql',
  o(`SELECT DISTINCT key FROM ${K} ORDER BY key`),
  o(`SELECT key FROM ${K} GROUP BY key ORDER BY key`),
  o(`SELECT key FROM ${K} GROUP BY key ORDER BY key LIMIT 1`),
  `SELECT key FROM ${K} HAVING key = 1`,
  `SELECT key FROM ${K} GROUP BY key HAVING key = 1`,
  o(`SELECT key FROM ${K} ORDER BY key`),
  o(`SELECT key FROM ${K} ORDER BY key LIMIT 1`),
  o(`SELECT key FROM ${K} ORDER BY key LIMIT 1 BY key`),
  o(`SELECT key FROM ${K} GROUP BY key ORDER BY key SETTINGS group_by_two_level_threshold = 1, group_by_two_level_threshold_bytes = 1`),
  o(`SELECT key FROM ${K} GROUP BY key ORDER BY key SETTINGS distributed_aggregation_memory_efficient = 1`),
  o(
    `SELECT key FROM ${K} GROUP BY key ORDER BY key SETTINGS group_by_two_level_threshold = 1, group_by_two_level_threshold_bytes = 1, distributed_aggregation_memory_efficient = 1`,
  ),
  `SELECT count() FROM ${K}`,
  // Each shard's count, unmerged (the .reference shows one per shard).
  perShard(`SELECT count() FROM ${K} SETTINGS distributed_group_by_no_merge = 1`, (on) => on(K).map((n) => ({ 'count()': String(n) }))),
  `SELECT DISTINCT key FROM ${K} WHERE key GLOBAL IN (SELECT toInt32(1))`,
  o(`SELECT a.key, b.key FROM (SELECT toInt32(number) key FROM numbers(2)) a LEFT JOIN (SELECT DISTINCT key FROM ${K}) b USING key ORDER BY b.key`),
  o(`SELECT a.key, b.key FROM (SELECT toInt32(number) key FROM numbers(2)) a RIGHT JOIN (SELECT DISTINCT key FROM ${K}) b USING key ORDER BY b.key`),
);
from('01787_map_remote.sql', `SELECT map('a', 1, 'b', 2) FROM ${ONE}`);
from(
  '01901_in_literal_shard_prune.sql',
  `SELECT * FROM cht.d_dist WHERE i IN (1)`,
  `SELECT * FROM cht.d_dist WHERE i IN (1) SETTINGS optimize_skip_unused_shards = 1, force_optimize_skip_unused_shards = 1`,
);

from(
  '00613_shard_distributed_max_execution_time.sql',
  `SELECT DISTINCT * FROM ${NUM} WHERE number < 10 SETTINGS max_execution_time = 1, timeout_overflow_mode = 'break'`,
);
from(
  '00850_global_join_dups.sql',
  `SELECT * FROM cht.t_local_dist GLOBAL INNER JOIN (SELECT * FROM (SELECT * FROM cht.t_local_dist) INNER JOIN (SELECT * FROM cht.t_local_dist) USING dummy) USING dummy SETTINGS joined_subquery_requires_alias = 0`,
  `SELECT * FROM ${ONE} GLOBAL INNER JOIN (SELECT * FROM (SELECT dummy FROM ${ONE}) t1_00850 GLOBAL INNER JOIN (SELECT dummy FROM ${ONE}) t2_00850 USING dummy) USING dummy`,
  `SELECT * FROM ${ONE} GLOBAL INNER JOIN (SELECT *, dummy FROM (SELECT dummy FROM ${ONE}) t1_00850 GLOBAL INNER JOIN (SELECT dummy FROM ${ONE}) t2_00850 USING dummy) USING dummy`,
  `SELECT * FROM ${ONE} GLOBAL INNER JOIN (SELECT *, t1_00850.*, t2_00850.* FROM (SELECT toUInt8(0) AS dummy) t1_00850 INNER JOIN (SELECT toUInt8(0) AS dummy) t2_00850 USING dummy) USING dummy`,
  `SELECT * FROM ${ONE} GLOBAL INNER JOIN (SELECT *, dummy FROM (SELECT toUInt8(0) AS dummy) t1_00850 INNER JOIN (SELECT toUInt8(0) AS dummy) t2_00850 USING dummy) USING dummy`,
  `SELECT * FROM ${ONE} GLOBAL INNER JOIN (SELECT *, dummy AS other FROM (SELECT dummy FROM ${ONE}) t1_00850 GLOBAL INNER JOIN (SELECT toUInt8(0) AS dummy) t2_00850 USING dummy) USING dummy`,
  `SELECT * FROM ${ONE} GLOBAL INNER JOIN (SELECT *, dummy, dummy AS other FROM (SELECT toUInt8(0) AS dummy) t1_00850 GLOBAL INNER JOIN (SELECT dummy FROM ${ONE}) t2_00850 USING dummy) USING dummy`,
);
from(
  '01103_distributed_product_mode_local_column_renames.sql',
  `SELECT d0.id FROM cht.t1d_dist d0 WHERE d0.id IN (SELECT d1.id FROM cht.t1d_dist AS d1 INNER JOIN cht.t2d_dist AS d2 ON d1.id = d2.id WHERE d1.id > 0 ORDER BY d1.id) SETTINGS distributed_product_mode = 'local'`,
  `SELECT d0.id FROM cht.t1d_dist d0 JOIN (SELECT d1.id FROM cht.t1d_dist AS d1 INNER JOIN cht.t2d_dist AS d2 ON d1.id = d2.id WHERE d1.id > 0 ORDER BY d1.id) s0 USING id SETTINGS distributed_product_mode = 'local'`,
);
from('01227_distributed_global_in_issue_2610.sql', `SELECT * FROM cht.k10_dist PREWHERE key GLOBAL IN (SELECT key FROM cht.k10_dist PREWHERE key = 2)`);
from(
  '01231_distributed_aggregation_memory_efficient_mix_levels.sql',
  o(
    `SELECT x, count() FROM cht.xc_dist GROUP BY x ORDER BY x SETTINGS distributed_aggregation_memory_efficient = 1, group_by_two_level_threshold = 2, max_bytes_before_external_group_by = 16`,
  ),
);
from(
  '01455_shard_leaf_max_rows_bytes_to_read.sql',
  `SELECT count() FROM (SELECT * FROM ${NUM} LIMIT 100) SETTINGS max_rows_to_read_leaf = 1, prefer_localhost_replica = 0`,
  `SELECT count() FROM (SELECT * FROM ${NUM} LIMIT 100) SETTINGS max_rows_to_read_leaf = 100000, prefer_localhost_replica = 0`,
  `SELECT count() FROM (SELECT * FROM ${NUM} LIMIT 100) SETTINGS max_bytes_to_read_leaf = 1000000, prefer_localhost_replica = 0`,
);
from(
  '02183_combinator_if.sql',
  `SELECT anyIf(toNullable('Hello'), arrayJoin([1, NULL]) = 0) FROM ${ONE}`,
  `SELECT anyIf(toNullable('Hello'), arrayJoin([1, 1]) = 0) FROM ${ONE}`,
  `SELECT anyIf(toNullable('Hello'), arrayJoin([1, 0]) = 0) FROM ${ONE}`,
  `SELECT anyIf(toNullable('Hello'), arrayJoin([0, 1]) = 0) FROM ${ONE}`,
  `SELECT anyIf(toNullable('Hello'), arrayJoin([0, 0]) = 0) FROM ${ONE}`,
  `SELECT anyIf('Hello', arrayJoin([1, NULL]) = 0) FROM ${ONE}`,
  `SELECT anyIf('Hello', arrayJoin([1, NULL]) = 1) FROM ${ONE}`,
  `SELECT anyIf('Hello', arrayJoin([1, NULL]) IS NULL) FROM ${ONE}`,
  o(`SELECT number, anyIf(toNullable('Hello'), arrayJoin([1, NULL]) = 0) FROM ${N10} WHERE number < 2 GROUP BY number ORDER BY number`),
  o(`SELECT number, anyIf(toNullable('Hello'), arrayJoin([1, NULL, 0]) = 0) FROM ${N10} WHERE number < 2 GROUP BY number ORDER BY number`),
  o(`SELECT number, anyIf('Hello', arrayJoin([1, NULL]) = 0) FROM ${N10} WHERE number < 2 GROUP BY number ORDER BY number`),
  o(`SELECT number, anyIf('Hello', arrayJoin([1, NULL, 0]) = 0) FROM ${N10} WHERE number < 2 GROUP BY number ORDER BY number`),
  o(`SELECT number, anyIf(toNullable('Hello'), arrayJoin([1, 1]) = 0) FROM ${N10} WHERE number < 2 GROUP BY number ORDER BY number`),
  o(`SELECT number, anyIf(toNullable('Hello'), arrayJoin([1, 0]) = 0) FROM ${N10} WHERE number < 2 GROUP BY number ORDER BY number`),
);
from(
  '02295_global_with_in_subquery.sql',
  `SELECT number FROM ${N10} WHERE number IN (WITH (SELECT 1) AS v1, (SELECT 2) AS v2 SELECT v1 AS v UNION ALL SELECT v2 AS v) SETTINGS use_index_for_in_with_subqueries = 0`,
);
from(
  '02596_build_set_and_remote.sql',
  `SELECT arrayExists(x -> (x IN (SELECT '2')), [2]) FROM ${ONE}`,
  `SELECT arrayExists(x -> (x IN (SELECT '2')), [2]) FROM ${ONE} GROUP BY NULL`,
  `SELECT arrayExists(x -> (x IN (SELECT '2')), [2]) FROM ${ONE} GROUP BY 1`,
  `SELECT arrayExists(x -> (x IN (SELECT '2')), [2]) FROM ${ONE} GROUP BY 'A'`,
  `SELECT 1 IN (SELECT 1) FROM ${ONE} GROUP BY dummy`,
  `SELECT 1000.0001, toUInt64(arrayJoin([NULL, 257, 65536, NULL])), arrayExists(x -> (x IN (SELECT '2.55')), [-9223372036854775808]) FROM ${ONE} GROUP BY NULL, NULL, NULL, NULL`,
);
from('02844_distributed_virtual_columns.sql', `SELECT * FROM cht.kv_dist WHERE key = 0 AND _part = '0'`);

from(
  '02001_select_with_filter.sql',
  `SELECT argMax(number, number + 1) FILTER(WHERE number != 99) FROM ${NUM} WHERE number < 100`,
  `SELECT sum(number) FILTER(WHERE number % 2 == 0) FROM ${NUM} WHERE number < 100`,
  `SELECT sumIfOrNull(number, number % 2 == 1) FILTER(WHERE 0) FROM ${NUM} WHERE number < 100`,
  `SELECT sumIfOrNull(number, number % 2 == 1) FILTER(WHERE 1) FROM ${NUM} WHERE number < 100`,
);

// The transformer chains of 01470_columns_transformers over a distributed table (`columns_transformers.*`
// as the alias `a.*`; `any`, whose row depends on which shard answers first, as `min`), with its
// STRICT forms (the refused ones refused as one node refuses them) and the list form COLUMNS(i, j, k).
const CT = 'cht.ct_dist';
from(
  '01470_columns_transformers.sql',
  `SELECT * APPLY(sum) FROM ${CT}`,
  `SELECT * APPLY sum FROM ${CT}`,
  `SELECT a.* APPLY(avg) FROM ${CT} a`,
  `SELECT a.* APPLY(toDate) APPLY(min) FROM ${CT} a`,
  `SELECT COLUMNS('[jk]') APPLY(toString) APPLY(length) FROM ${CT}`,
  `SELECT * EXCEPT(i) APPLY(sum) FROM ${CT}`,
  `SELECT a.* EXCEPT(j) APPLY(avg) FROM ${CT} a`,
  `SELECT a.* APPLY(toDate) EXCEPT(i, j) APPLY(min) FROM ${CT} a`,
  `SELECT * REPLACE(i + 1 AS i) APPLY(sum) FROM ${CT}`,
  `SELECT a.* REPLACE(j + 2 AS j, i + 1 AS i) APPLY(avg) FROM ${CT} a`,
  `SELECT a.* REPLACE(j + 1 AS j, j + 2 AS j) APPLY(avg) FROM ${CT} a`,
  `SELECT a.* APPLY(toDate) REPLACE(i + 1 AS i) APPLY(min) FROM ${CT} a`,
  `SELECT * REPLACE(i + 1 AS i) REPLACE(i + 1 AS i) FROM ${CT}`,
  `SELECT * EXCEPT STRICT i FROM ${CT}`,
  `SELECT * EXCEPT STRICT (i, j) FROM ${CT}`,
  `SELECT * EXCEPT STRICT i, j1 FROM ${CT}`,
  `SELECT * EXCEPT STRICT(i, j1) FROM ${CT}`,
  `SELECT * REPLACE STRICT i + 1 AS i FROM ${CT}`,
  `SELECT * REPLACE STRICT(i + 1 AS col) FROM ${CT}`,
  `SELECT a.* APPLY(toDate) REPLACE STRICT(i + 1 AS i) APPLY(min) FROM ${CT} a`,
  `SELECT COLUMNS(i, j, k) APPLY(sum) FROM ${CT}`,
  `SELECT i, j, COLUMNS(i, j, k) APPLY(toFloat64), COLUMNS(i, j) EXCEPT (i) FROM ${CT}`,
  `SELECT COLUMNS(i, j, k) APPLY(quantiles(0.5)) FROM ${CT}`,
);

// 02233_interpolate_1: WITH FILL and INTERPOLATE over a subquery of the shards' rows (numbers(10) as
// cht.numbers10_dist), filled once over the merged rows; its MergeTree table as cht.inter_dist.
const SUB10 = `(SELECT toFloat32(number % 10) AS n, 'original' AS source, number AS inter FROM ${N10} WHERE number % 3 = 1)`;
const SUB10_2 = `(SELECT toFloat32(number % 10) AS n, 'original' AS source, number AS inter, number + 1 AS inter2 FROM ${N10} WHERE (number % 3) = 1)`;
const FILL = 'ORDER BY n WITH FILL FROM 0 TO 11.51 STEP 0.5';
from(
  '02233_interpolate_1.sql',
  o(`SELECT n, source, inter FROM ${SUB10} ${FILL}`),
  o(`SELECT n, source, inter FROM ${SUB10} ${FILL} INTERPOLATE (inter AS 42)`),
  o(`SELECT n, source, inter FROM ${SUB10} ${FILL} INTERPOLATE (inter AS inter)`),
  o(`SELECT n, source, inter FROM ${SUB10} ${FILL} INTERPOLATE (inter AS inter + 1)`),
  `SELECT n, source, inter FROM ${SUB10} ${FILL} INTERPOLATE (inter AS 'inter')`,
  `SELECT n, source, inter FROM ${SUB10} ${FILL} INTERPOLATE (inter AS reverse(inter))`,
  `SELECT n, source, inter FROM ${SUB10} ${FILL} INTERPOLATE (n AS n)`,
  `SELECT n, source, inter FROM ${SUB10} ${FILL} INTERPOLATE (inter AS source)`,
  o(`SELECT n, source, inter + 1 AS inter_p FROM ${SUB10} ORDER BY n ASC WITH FILL FROM 0 TO 11.51 STEP 0.5 INTERPOLATE ( inter_p AS inter_p + 1 )`),
  o(`SELECT source, inter FROM ${SUB10_2} ORDER BY n ASC WITH FILL FROM 0 TO 11.51 STEP 0.5 INTERPOLATE ( inter AS inter2 + inter )`),
  o(
    `SELECT n, source, inter FROM (SELECT n, source, inter, inter2 FROM ${SUB10_2} ORDER BY n ASC WITH FILL FROM 0 TO 11.51 STEP 0.5 INTERPOLATE ( inter AS inter + inter2 ))`,
  ),
  o(
    `SELECT n, any(source), sum(inter) AS inter_s FROM ${SUB10} GROUP BY n ORDER BY n ASC WITH FILL FROM 0 TO 11.51 STEP 0.5 INTERPOLATE ( inter_s AS inter_s + 1 )`,
  ),
  o(`SELECT n, source, inter + NULL AS inter_p FROM ${SUB10} ORDER BY n ASC WITH FILL FROM 0 TO 11.51 STEP 0.5 INTERPOLATE ( inter_p AS inter_p + 1 )`),
  o(`SELECT n, count() AS m FROM cht.inter_dist GROUP BY n ORDER BY n WITH FILL INTERPOLATE ( m AS m + 1 )`),
);

// 03266_with_fill_staleness over its table as cht.staleness_dist: the fill over the merged rows.
const ST = 'cht.staleness_dist';
from(
  '03266_with_fill_staleness.sql',
  o(`SELECT a, c, 'original' as original FROM ${ST} ORDER BY a ASC WITH FILL INTERPOLATE (c)`),
  o(`SELECT a, c, 'original' as original FROM ${ST} ORDER BY a ASC WITH FILL STALENESS INTERVAL 1 SECOND INTERPOLATE (c)`),
  o(`SELECT a, c, 'original' as original FROM ${ST} ORDER BY a ASC WITH FILL STALENESS INTERVAL 3 SECOND INTERPOLATE (c)`),
  o(`SELECT a, c, 'original' as original FROM ${ST} ORDER BY a DESC WITH FILL STALENESS INTERVAL -2 SECOND INTERPOLATE (c)`),
  o(
    `SELECT a, c, 'original' as original FROM ${ST} ORDER BY a ASC WITH FILL TO toDateTime('2016-06-15 23:00:40') STEP 3 STALENESS INTERVAL 7 SECOND INTERPOLATE (c)`,
  ),
  o(`SELECT a, b, c, 'original' as original FROM ${ST} ORDER BY a ASC WITH FILL STALENESS INTERVAL 2 SECOND, b ASC WITH FILL FROM 0 TO 3 INTERPOLATE (c)`),
  o(
    `SELECT a, b, c, 'original' as original FROM ${ST} ORDER BY a ASC WITH FILL STALENESS INTERVAL 2 SECOND, b ASC WITH FILL TO toDateTime('2016-06-15 23:01:00') STEP 2 STALENESS 5 INTERPOLATE (c)`,
  ),
);

// ARRAY JOIN over a distributed table: the array column, or its alias, is the element.
from(
  '03156_analyzer_array_join_distributed.sql',
  o(`SELECT s, arr, a FROM cht.arrays_dist ARRAY JOIN arr AS a WHERE a < 3 ORDER BY a`),
  o(`SELECT s, arr FROM cht.arrays_dist ARRAY JOIN arr WHERE arr < 3 ORDER BY arr`),
);

// Three tables joined (the test's t, s, y as the aliases of distributed tables, the joins GLOBAL): past one
// JOIN ClickHouse names every column with its table where another table has that name.
const J882 = (on1: string, on2: string) => `cht.t882_dist AS t GLOBAL LEFT JOIN cht.s882_dist AS s ON ${on1} GLOBAL LEFT JOIN cht.y882_dist AS y ON ${on2}`;
from(
  '00882_multiple_join_no_alias.sql',
  o(`SELECT s.a, s.a, s.b AS s_b, s.b FROM ${J882('s.a = t.a', 's.b = y.b')} ORDER BY t.a, s.a, s.b`),
  o(`SELECT max(s.a) FROM ${J882('s.a = t.a', 's.b = y.b')} GROUP BY t.a ORDER BY t.a`),
  o(`SELECT t.a, t.a AS t_a, s.a, s.a AS s_a, y.a, y.a AS y_a FROM ${J882('t.a = s.a', 'y.b = s.b')} ORDER BY t.a, s.a, y.a`),
  o(`SELECT t.a, t.a AS t_a, max(s.a) FROM ${J882('t.a = s.a', 'y.b = s.b')} GROUP BY t.a ORDER BY t.a`),
);

// 02943_order_by_all over a distributed table (the `SET enable_analyzer` halves are one query here).
const OBA = 'cht.order_by_all_dist';
from(
  '02943_order_by_all.sql',
  o(`SELECT a, b FROM ${OBA} ORDER BY ALL`),
  o(`SELECT b, a FROM ${OBA} ORDER BY ALL`),
  o(`SELECT a, b FROM ${OBA} ORDER BY ALL ASC`),
  o(`SELECT a, b FROM ${OBA} ORDER BY ALL DESC`),
  o(`SELECT b, a FROM ${OBA} ORDER BY ALL NULLS FIRST`),
  o(`SELECT b, a FROM ${OBA} ORDER BY ALL NULLS LAST`),
  `SELECT a, b, all FROM ${OBA} ORDER BY all`,
  o(`SELECT a, b, all FROM ${OBA} ORDER BY all SETTINGS enable_order_by_all = false`),
  o(`SELECT a FROM ${OBA} ORDER BY all SETTINGS enable_order_by_all = false`),
  o(`SELECT * FROM ${OBA} ORDER BY all SETTINGS enable_order_by_all = false`),
  `SELECT a, b AS all FROM ${OBA} ORDER BY all`,
  o(`SELECT a, b AS all FROM ${OBA} ORDER BY all SETTINGS enable_order_by_all = false`),
  `SELECT format('{} {}', a, b) AS all FROM ${OBA} ORDER BY all`,
  o(`SELECT format('{} {}', a, b) AS all FROM ${OBA} ORDER BY all SETTINGS enable_order_by_all = false`),
  o(`SELECT a, b, all FROM ${OBA} ORDER BY all, a`),
  o(`SELECT a, count(b), count(all) FROM ${OBA} GROUP BY ALL ORDER BY ALL`),
  o(`SELECT substring(a, 1, 3), count(b) FROM ${OBA} GROUP BY ALL ORDER BY ALL`),
);

const TREE = 'cht.tree_dist';
from(
  '03034_recursive_cte_tree.sql',
  `WITH RECURSIVE search_tree AS (SELECT id, link, data FROM ${TREE} t WHERE t.id = 0 UNION ALL SELECT t.id, t.link, t.data FROM ${TREE} t, search_tree st WHERE t.link = st.id) SELECT * FROM search_tree`,
  `WITH RECURSIVE search_tree AS (SELECT id, link, data, [t.id] AS path FROM ${TREE} t WHERE t.id = 0 UNION ALL SELECT t.id, t.link, t.data, arrayConcat(path, [t.id]) FROM ${TREE} t, search_tree st WHERE t.link = st.id) SELECT * FROM search_tree`,
);
// 03033_recursive_cte_basic reads no table: here its CTEs feed a query over the shards (an IN, a JOIN, a
// scalar subquery, where the shards evaluate them as constant tables), or start from one.
from(
  '03033_recursive_cte_basic.sql',
  o(
    `WITH RECURSIVE recursive_cte AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM recursive_cte WHERE n < 10) SELECT number FROM ${N10} WHERE number IN (SELECT n FROM recursive_cte) ORDER BY number`,
  ),
  o(
    `WITH RECURSIVE recursive_cte AS (SELECT toUInt8(1) AS n UNION ALL SELECT toUInt8(n + 1) FROM recursive_cte WHERE n < 10) SELECT n, number FROM ${N10} AS t JOIN recursive_cte AS r ON t.number = r.n ORDER BY n`,
  ),
  `WITH RECURSIVE recursive_cte AS (SELECT toUInt16(1) AS n UNION ALL SELECT toUInt8(n + 1) FROM recursive_cte WHERE n < 10) SELECT count(), (SELECT groupArray(n) FROM recursive_cte) FROM ${N10}`,
  o(
    `WITH RECURSIVE recursive_cte AS (SELECT materialize(toUInt16(min(number) + 1)) AS n FROM ${N10} UNION ALL SELECT toUInt8(n + 1) FROM recursive_cte WHERE n < 10) SELECT n FROM recursive_cte ORDER BY n`,
  ),
  o(
    `WITH RECURSIVE recursive_cte AS (SELECT toUInt16(number) AS n FROM ${N10} WHERE number = 1 UNION ALL SELECT materialize(toUInt8(n + 1)) FROM recursive_cte WHERE n < 10) SELECT n FROM recursive_cte ORDER BY n`,
  ),
  o(
    `WITH RECURSIVE recursive_cte AS (SELECT toUInt16(number) AS n, '1' AS concat FROM ${N10} WHERE number = 1 UNION ALL SELECT materialize(toUInt8(n + 1)), concat || toString(n + 1) FROM recursive_cte WHERE n < 10) SELECT n, concat FROM recursive_cte ORDER BY n`,
  ),
  `WITH RECURSIVE recursive_cte AS (SELECT number AS n FROM ${N10} WHERE number = 1 UNION ALL SELECT n + 1 FROM recursive_cte) SELECT n FROM recursive_cte LIMIT 5`,
  `WITH RECURSIVE recursive_cte AS (SELECT materialize(toUInt8(number)) AS n FROM ${N10} WHERE number = 1 UNION ALL SELECT materialize(toUInt8(n + 1)) FROM recursive_cte WHERE n < 10) SELECT n FROM recursive_cte SETTINGS max_recursive_cte_evaluation_depth = 5`,
  `WITH RECURSIVE recursive_cte AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM recursive_cte) SELECT count() FROM ${N10} WHERE number IN (SELECT n FROM recursive_cte)`,
);

// remote('127.0.0.1', numbers(N)) -> cht.nN_dist, remote('127.0.0.{1,2}', numbers(N)) -> cht.nNx2_dist.
from('00677_shard_any_heavy_merge.sql', `WITH arrayJoin(['hello', 'world']) AS s SELECT count(), arraySort(groupUniqArray(s)), anyHeavy(s) FROM ${ONE}`);
from(
  '01071_force_optimize_skip_unused_shards.sql',
  `SELECT key FROM cht.kvs_dist SETTINGS optimize_skip_unused_shards = 1, force_optimize_skip_unused_shards = 0`,
  `SELECT key FROM cht.kvs_dist SETTINGS optimize_skip_unused_shards = 1, force_optimize_skip_unused_shards = 1`,
  `SELECT key FROM cht.kvs_dist SETTINGS optimize_skip_unused_shards = 1, force_optimize_skip_unused_shards = 2`,
  `SELECT key FROM cht.kvs_dist WHERE key = 1 SETTINGS optimize_skip_unused_shards = 1, force_optimize_skip_unused_shards = 2, distributed_group_by_no_merge = 1`,
);
from(
  '01072_optimize_skip_unused_shards_const_expr_eval.sql',
  `SELECT * FROM cht.kvs_dist WHERE key = 0 AND length(str) = 0 SETTINGS optimize_skip_unused_shards = 1, force_optimize_skip_unused_shards = 1`,
  `SELECT * FROM cht.kvs_dist WHERE key = 0 AND str = '' SETTINGS optimize_skip_unused_shards = 1, force_optimize_skip_unused_shards = 1`,
  `SELECT * FROM cht.kvs_dist WHERE xxHash64(0) == xxHash64(0) AND key = 0 SETTINGS optimize_skip_unused_shards = 1, force_optimize_skip_unused_shards = 1`,
  `SELECT * FROM cht.kvs_dist WHERE key = toInt32OrZero(toString(xxHash64(0))) SETTINGS optimize_skip_unused_shards = 1, force_optimize_skip_unused_shards = 1`,
  `SELECT * FROM cht.kvs_dist WHERE key = toInt32(xxHash32(0)) SETTINGS optimize_skip_unused_shards = 1, force_optimize_skip_unused_shards = 1`,
  `SELECT * FROM cht.kvs_dist WHERE key = toInt32(toInt32(xxHash32(0))) SETTINGS optimize_skip_unused_shards = 1, force_optimize_skip_unused_shards = 1`,
  `SELECT * FROM cht.kvs_dist WHERE key = toInt32(toInt32(toInt32(xxHash32(0)))) SETTINGS optimize_skip_unused_shards = 1, force_optimize_skip_unused_shards = 1`,
  `SELECT * FROM cht.kvs_dist WHERE key = value SETTINGS optimize_skip_unused_shards = 1, force_optimize_skip_unused_shards = 1`,
  `SELECT * FROM cht.kvs_dist WHERE key = toInt32(value) SETTINGS optimize_skip_unused_shards = 1, force_optimize_skip_unused_shards = 1`,
  `SELECT * FROM cht.kvs_dist WHERE key = value SETTINGS optimize_skip_unused_shards = 1, force_optimize_skip_unused_shards = 0`,
  `SELECT * FROM cht.kvs_dist WHERE key = toInt32(value) SETTINGS optimize_skip_unused_shards = 1, force_optimize_skip_unused_shards = 0`,
);
from(
  '01211_optimize_skip_unused_shards_type_mismatch.sql',
  `SELECT * FROM cht.kvs_dist WHERE key = 0xdeadbeafdeadbeaf SETTINGS optimize_skip_unused_shards = 1, force_optimize_skip_unused_shards = 2`,
  `SELECT * FROM cht.kvs_dist WHERE key = 0xdeadbeafdeadbeaf SETTINGS optimize_skip_unused_shards = 1`,
);
from(
  '01213_optimize_skip_unused_shards_DISTINCT.sql',
  `SELECT DISTINCT id FROM cht.id01213_dist WHERE id = 1 SETTINGS optimize_skip_unused_shards = 0, distributed_group_by_no_merge = 1`,
  `SELECT DISTINCT id FROM cht.id01213_dist WHERE id = 1 SETTINGS optimize_skip_unused_shards = 1`,
  o(
    `SELECT DISTINCT id FROM cht.id01213_dist ORDER BY id SETTINGS optimize_skip_unused_shards = 1, optimize_distributed_group_by_sharding_key = 0, allow_parallel_distinct = 0`,
  ),
  o(
    `SELECT DISTINCT id FROM cht.id01213_dist ORDER BY id SETTINGS optimize_skip_unused_shards = 1, optimize_distributed_group_by_sharding_key = 1, allow_parallel_distinct = 0`,
  ),
);
from(
  '01232_extremes.sql',
  `SELECT * FROM cht.n2_dist SETTINGS extremes = 1`,
  `SELECT * FROM cht.n2x2_dist SETTINGS extremes = 1`,
  o(`SELECT * FROM cht.n2n3_dist ORDER BY number SETTINGS extremes = 1`),
);
// The queries over remote(..., numbers(5)) (those over system.numbers with an unordered LIMIT are left out).
const NOMERGE_EXTREMES = [
  'distributed_group_by_no_merge = 0, extremes = 0',
  'distributed_group_by_no_merge = 1, extremes = 0',
  'distributed_group_by_no_merge = 0, extremes = 1',
  'distributed_group_by_no_merge = 1, extremes = 1',
];
from(
  '01245_distributed_group_by_no_merge_with-extremes_and_totals.sql',
  ...NOMERGE_EXTREMES.flatMap((settings) =>
    ['cht.n5_dist', 'cht.n5x2_dist'].flatMap((t) => [
      `SELECT sum(s) FROM (SELECT sum(number) AS s FROM ${t} WITH TOTALS) SETTINGS ${settings}`,
      `SELECT sum(s) FROM (SELECT sum(number) AS s FROM ${t}) WITH TOTALS SETTINGS ${settings}`,
    ]),
  ),
);
from(
  '01247_optimize_distributed_group_by_sharding_key_dist_on_dist.sql',
  o(
    `SELECT count(), * FROM cht.n2x2_dist GROUP BY number ORDER BY number LIMIT 1 SETTINGS optimize_distributed_group_by_sharding_key = 1, max_distributed_connections = 1, optimize_skip_unused_shards = 1`,
  ),
);
from(
  '01456_ast_optimizations_over_distributed.sql',
  ...[
    `SELECT uniq(bitNot(number)) FROM cht.zero2_dist`,
    `SELECT sum(number + 1) FROM cht.zero2_dist`,
    `SELECT transform(number, [1, 2], ['google', 'censor.net'], 'other') FROM cht.zero2_dist`,
    `SELECT number > 0 ? 'censor.net' : 'google' FROM cht.zero2_dist`,
  ].map(
    (sql) =>
      `${sql} SETTINGS optimize_injective_functions_inside_uniq = 1, optimize_arithmetic_operations_in_aggregate_functions = 1, optimize_if_transform_strings_to_enum = 1`,
  ),
);
from(
  '01532_having_with_totals.sql',
  `SELECT * FROM (SELECT a FROM cht.a1x2_dist GROUP BY a WITH TOTALS) WHERE a IN (SELECT 1)`,
  `SELECT * FROM (SELECT a FROM cht.a1_dist GROUP BY a WITH TOTALS) WHERE a IN (SELECT 1)`,
  `SELECT a, count() FROM cht.a1x2_dist GROUP BY a WITH TOTALS HAVING a IN (SELECT 1)`,
);
from('01582_distinct_subquery_groupby.sql', o(`SELECT DISTINCT b FROM (SELECT a, b FROM cht.sab_dist GROUP BY a, b) ORDER BY b`));
from(
  '02165_replicated_grouping_sets.sql',
  o(
    `SELECT k1, k2, SUM(number) AS sum_value, count() AS count_value FROM cht.n6x2_dist GROUP BY GROUPING SETS ((number % 2 AS k1), (number % 3 AS k2)) ORDER BY sum_value ASC, count_value ASC`,
  ),
);
const N10X2 = 'cht.n10x2_dist';
from(
  '02293_grouping_function_group_by.sql',
  `SELECT number, grouping(number, number % 2, number % 3) = 6 FROM ${N10X2} GROUP BY number, number % 2 ORDER BY number`,
  o(`SELECT number, grouping(number, number % 2) = 3 FROM ${N10X2} GROUP BY number, number % 2 ORDER BY number`),
  o(`SELECT number, grouping(number), GROUPING(number % 2) FROM ${N10X2} GROUP BY number, number % 2 ORDER BY number`),
  o(`SELECT number, grouping(number, number % 2) AS gr FROM ${N10X2} GROUP BY number, number % 2 WITH ROLLUP ORDER BY number, gr`),
  o(`SELECT number, grouping(number, number % 2) AS gr FROM ${N10X2} GROUP BY ROLLUP(number, number % 2) ORDER BY number, gr`),
  o(`SELECT number, grouping(number, number % 2) AS gr FROM ${N10X2} GROUP BY number, number % 2 WITH CUBE ORDER BY number, gr`),
  o(`SELECT number, grouping(number, number % 2) AS gr FROM ${N10X2} GROUP BY CUBE(number, number % 2) ORDER BY number, gr`),
  o(`SELECT number, grouping(number, number % 2) + 3 as gr FROM ${N10X2} GROUP BY CUBE(number, number % 2) HAVING grouping(number) != 0 ORDER BY number, gr`),
  `SELECT number, grouping(number, number % 2) as gr FROM ${N10X2} GROUP BY CUBE(number, number % 2) WITH TOTALS HAVING grouping(number) != 0 ORDER BY number, gr`,
  o(`SELECT number, grouping(number, number % 2) as gr FROM ${N10X2} GROUP BY CUBE(number, number % 2) WITH TOTALS ORDER BY number, gr`),
  `SELECT number, grouping(number, number % 2) as gr FROM ${N10X2} GROUP BY ROLLUP(number, number % 2) WITH TOTALS HAVING grouping(number) != 0 ORDER BY number, gr`,
  o(`SELECT number, grouping(number, number % 2) as gr FROM ${N10X2} GROUP BY ROLLUP(number, number % 2) WITH TOTALS ORDER BY number, gr`),
);

from(
  '00609_distributed_with_case_when_then.sql',
  `SELECT CASE x WHEN 1 THEN 'hello' WHEN 2 THEN 'world' ELSE  'unknow' END FROM cht.xs_dist`,
  `SELECT count() AS cnt FROM (SELECT CASE x WHEN 1 THEN 'hello' WHEN 2 THEN 'world' ELSE  'unknow' END FROM cht.xs_dist)`,
);
// local_table through remote('127.0.0.2') -> cht.lt_dist, other_table -> cht.ot_dist, a table named as a
// qualifier by its database too. Left out: the two queries where other_table is not the GLOBAL side
// (ClickHouse reads it as a table of one node there, and a distributed one answers otherwise).
from(
  '00857_global_joinsavel_table_alias.sql',
  o(`SELECT t2.name FROM cht.lt_dist AS t1 GLOBAL LEFT JOIN cht.ot_dist AS t2 ON t1.oth_id = t2.id ORDER BY t2.name`),
  // Named by the table as written, alias or not (a Merge table read so on chdb names it `ot_dist.name` too).
  {
    sql: `SELECT cht.ot_dist.name FROM cht.lt_dist AS t1 GLOBAL LEFT JOIN cht.ot_dist ON t1.oth_id = cht.ot_dist.id ORDER BY cht.ot_dist.name`,
    ordered: true,
    names: ['ot_dist.name'],
  },
  {
    sql: `SELECT cht.ot_dist.name FROM cht.lt_dist AS t1 GLOBAL LEFT JOIN cht.ot_dist AS t2 ON t1.oth_id = cht.ot_dist.id ORDER BY cht.ot_dist.name`,
    ordered: true,
    names: ['ot_dist.name'],
  },
);
from(
  '00858_issue_4756.sql',
  `SELECT DISTINCT(cht.s1_dist.id) FROM cht.s1_dist WHERE cht.s1_dist.id IN (SELECT cht.s1_dist.id FROM cht.s1_dist JOIN cht.s2_dist ON cht.s1_dist.id = cht.s2_dist.id WHERE cht.s1_dist.id > 0) SETTINGS distributed_product_mode = 'local'`,
  `SELECT DISTINCT(d0.id) FROM cht.s1_dist d0 WHERE d0.id IN (SELECT d1.id FROM cht.s1_dist AS d1 JOIN cht.s2_dist AS d2 ON d1.id = d2.id WHERE d1.id > 0) SETTINGS distributed_product_mode = 'local'`,
);
from('01801_distinct_group_by_shard.sql', `SELECT DISTINCT a FROM cht.ab01801_dist GROUP BY a, b`);
// The test's full-width space (U+3000) before FROM is kept.
from('02008_aliased_column_distributed_bug.sql', `SELECT materialize(PhraseProcessedID)\u3000FROM cht.click_dist`);
from(
  '03120_analyzer_dist_join.sql',
  ...['local', 'global'].flatMap((mode) =>
    [
      `SELECT id, count() FROM cht.a1d_dist AS a1 LEFT JOIN cht.b1d_dist AS b1 ON a1.id = b1.id GROUP BY id ORDER BY id`,
      `SELECT id, count() FROM cht.a1d_dist a1 LEFT JOIN (SELECT id FROM cht.b1d_dist b1) b1 ON a1.id = b1.id GROUP BY id ORDER BY id`,
      `SELECT id, count() FROM (SELECT id FROM cht.a1d_dist) a1 LEFT JOIN (SELECT id FROM cht.b1d_dist) b1 ON a1.id = b1.id GROUP BY id ORDER BY id`,
    ].map((sql) => o(`${sql} SETTINGS distributed_product_mode = '${mode}'`)),
  ),
);
from(
  '03123_analyzer_dist_join_CTE.sql',
  o(
    `SELECT * FROM (WITH b AS (SELECT toInt64(number) AS a FROM numbers(10)), c AS (SELECT toInt64(number) AS a FROM numbers(10)) SELECT a.a, b, b.a, c.a FROM cht.t0ab_dist AS a LEFT JOIN b AS b ON a.a = b.a LEFT JOIN c AS c ON a.a = c.a) ORDER BY ALL SETTINGS prefer_localhost_replica = 0`,
  ),
);
from(
  '03124_analyzer_nested_CTE_dist_in.sql',
  o(
    `WITH x AS (SELECT number FROM numbers(10) WHERE number % 3 = 0), y AS (SELECT number, count() FROM ${N10X2} WHERE number IN (SELECT * FROM x) GROUP BY number) SELECT * FROM y ORDER BY ALL`,
  ),
);
from(
  '03164_analyzer_global_in_alias.sql',
  `SELECT 1 GLOBAL IN (SELECT 1) AS s, s FROM ${ONE} GROUP BY 1`,
  `SELECT 1 GLOBAL IN (SELECT 1) AS s FROM ${ONE} GROUP BY 1`,
);
from('03204_distributed_with_scalar_subquery.sql', `SELECT (SELECT c_k37 FROM cht.t03204_dist) > c_lfntfzg FROM cht.t03204_dist`);

// Its queries over numbers(10) run here over the shards (cht.numbers10_dist), its one over two hosts over cht.n10x2_dist.
from(
  '02293_grouping_function.sql',
  `SELECT number, grouping(number, number % 2, number % 3) AS gr FROM ${N10} GROUP BY GROUPING SETS ((number), (number % 2)) ORDER BY number, gr`,
  o(`SELECT number, grouping(number, number % 2) AS gr FROM ${N10} GROUP BY GROUPING SETS ((number), (number % 2)) ORDER BY number, gr`),
  o(`SELECT number, grouping(number % 2, number) AS gr FROM ${N10} GROUP BY GROUPING SETS ((number), (number % 2)) ORDER BY number, gr`),
  o(`SELECT number, grouping(number, number % 2) = 1 AS gr FROM ${N10} GROUP BY GROUPING SETS ((number), (number % 2)) ORDER BY number, gr`),
  o(`SELECT number FROM ${N10} GROUP BY GROUPING SETS ((number), (number % 2)) ORDER BY number, grouping(number, number % 2) = 1`),
  o(`SELECT number, count(), grouping(number, number % 2) AS gr FROM ${N10} GROUP BY GROUPING SETS ((number), (number, number % 2), ()) ORDER BY (gr, number)`),
  o(
    `SELECT number FROM ${N10} GROUP BY GROUPING SETS ((number), (number % 2)) HAVING grouping(number, number % 2) = 2 ORDER BY number SETTINGS enable_optimize_predicate_expression = 0`,
  ),
  o(
    `SELECT number FROM ${N10} GROUP BY GROUPING SETS ((number), (number % 2)) HAVING grouping(number, number % 2) = 1 ORDER BY number SETTINGS enable_optimize_predicate_expression = 0`,
  ),
  o(`SELECT number, GROUPING(number, number % 2) = 1 as gr FROM ${N10X2} GROUP BY GROUPING SETS ((number), (number % 2)) ORDER BY number, gr`),
);
from(
  '01915_for_each_crakjie.sql',
  o(
    `WITH arrayJoin(['a', 'b']) AS z SELECT z, sumMergeForEach(x) AS x FROM (SELECT sumStateForEach([1., 1.1, 1.1300175]) AS x FROM ${ONE}) GROUP BY z ORDER BY z`,
  ),
);

from(
  '01253_subquery_in_aggregate_function_JustStranger.sql',
  o(
    `SELECT text, uniqExactIf(hash, hash IN (SELECT DISTINCT hash FROM cht.tt01253_dist AS t1)) as counter FROM cht.tt01253_dist AS t2 GROUP BY text ORDER BY counter, text SETTINGS distributed_product_mode = 'local'`,
  ),
);
from(
  '02096_totals_global_in_bug.sql',
  `SELECT sum(number) FROM cht.n2x2_dist WHERE number GLOBAL IN (SELECT sum(number) FROM numbers(2) GROUP BY number WITH TOTALS) GROUP BY number WITH TOTALS`,
);
// local_02175 -> cht.one1_dist; the JOIN without GLOBAL, which reads local_02175 on each shard as a table of that node, is left out.
from('02175_distributed_join_current_database.sql', `SELECT * FROM ${ONE} l GLOBAL JOIN cht.one1_dist r USING dummy`);

// dist_01756 (system.one on two shards, keyed by dummy) -> cht.one_dist; the test's session settings as
// each query's SETTINGS; the queries reading system.query_log are left out.
const SKIP2 = 'optimize_skip_unused_shards = 1, force_optimize_skip_unused_shards = 2, optimize_skip_unused_shards_rewrite_in = 1';
from(
  '01756_optimize_skip_unused_shards_rewrite_in.sql',
  ...[
    `WITH (SELECT currentDatabase()) AS id_no SELECT *, ignore(id_no) FROM ${ONE} WHERE dummy IN (0, 2)`,
    `WITH (SELECT currentDatabase()) AS id_2 SELECT *, ignore(id_2) FROM ${ONE} WHERE dummy IN (2,)`,
    `WITH (SELECT currentDatabase()) AS id_00 SELECT *, ignore(id_00) FROM ${ONE} WHERE dummy IN (0,)`,
    `SELECT * FROM ${ONE} WHERE dummy IN (0)`,
    `SELECT * FROM ${ONE} WHERE dummy IN ('0')`,
    `SELECT * FROM ${ONE} WHERE dummy NOT IN (0, 2)`,
    `SELECT * FROM ${ONE} WHERE dummy NOT IN (2, 3) AND dummy IN (0, 2)`,
    `SELECT * FROM ${ONE} WHERE dummy IN tuple(0, 2)`,
    `SELECT * FROM ${ONE} WHERE dummy IN tuple(0)`,
    `SELECT * FROM ${ONE} WHERE dummy IN tuple(2)`,
    `SELECT (2 IN (2,)), * FROM ${ONE} WHERE dummy IN (0, 2)`,
    `SELECT (dummy IN (toUInt8(2),)), * FROM ${ONE} WHERE dummy IN (0, 2)`,
    `SELECT * FROM cht.str01756_dist WHERE key IN ('0', '2')`,
    `SELECT * FROM cht.str01756_dist WHERE key IN (0, 2)`,
    `SELECT * FROM ${ONE} WHERE dummy IN (0, '255')`,
    `SELECT * FROM ${ONE} WHERE dummy IN (0, '255foo')`,
    `SELECT * FROM ${ONE} WHERE dummy IN ('0', '2')`,
  ].map((sql) => `${sql} SETTINGS ${SKIP2}`),
  `SELECT * FROM ${ONE} WHERE dummy IN (0, 2) SETTINGS ${SKIP2}, optimize_skip_unused_shards_limit = 1`,
  `SELECT * FROM ${ONE} WHERE dummy IN (0, 2) SETTINGS optimize_skip_unused_shards = 1, optimize_skip_unused_shards_limit = 1, force_optimize_skip_unused_shards = 0`,
  // The test's `IN (toUInt8(0)) settings enable_analyzer = 0` is 507; "a constant for analyzer", which is ClickHouse's default.
  `SELECT * FROM ${ONE} WHERE dummy IN (toUInt8(0)) SETTINGS ${SKIP2}`,
);

// remote('localhost', system.one) -> cht.one1_dist (one row).
from(
  '01226_dist_on_dist_global_in.sql',
  `SELECT * FROM cht.one1_dist WHERE dummy GLOBAL IN (0)`,
  `SELECT * FROM cht.one1_dist WHERE dummy GLOBAL IN system.one`,
  `SELECT * FROM cht.one1_dist WHERE dummy GLOBAL IN (SELECT 0)`,
  `SELECT * FROM cht.one1_dist WHERE dummy GLOBAL NOT IN (0)`,
  `SELECT * FROM cht.one1_dist WHERE dummy GLOBAL NOT IN system.one`,
  `SELECT * FROM cht.one1_dist WHERE dummy GLOBAL NOT IN (SELECT 0)`,
);

// t_json_dist (a JSON column `data`, its row read by two local shards) -> cht.json_dist (column j).
from('01825_type_json_distributed.sql', `SELECT j, JSONAllPathsWithTypes(j) FROM cht.json_dist`, `SELECT j.k1, j.k2.k3, j.k2.k4 FROM cht.json_dist`);
// 02933_paste_join: test1, test2 -> cht.paste1_dist, cht.paste2_dist; numbers(11) -> cht.n11_dist, numbers(10)
// -> cht.numbers10_dist. A PASTE JOIN of subqueries pastes on the initiator the rows as they arrive from the
// shards, so the queries whose pairs depend on that order are left out; toTypeName(a) is one value in every row.
// A PASTE JOIN whose left table is the distributed table is sent to the shards, which refuse it (expectations.ts).
// The test's SET enable_analyzer = 1 is the default here.
from(
  '02933_paste_join.sql',
  `SELECT toTypeName(a) FROM (SELECT number as a FROM cht.n11_dist) t1 PASTE JOIN (select number as a from cht.numbers10_dist) t2 SETTINGS join_use_nulls = 1`,
  `SELECT * FROM cht.paste1_dist PASTE JOIN (SELECT * FROM cht.paste2_dist)`,
  'SELECT a `test2.a` FROM cht.paste1_dist PASTE JOIN cht.paste2_dist',
  `SELECT * FROM cht.paste1_dist PASTE JOIN (SELECT number AS a FROM numbers(2) ORDER BY number DESC)`,
);

export const CHT_CORPUS: readonly ChtQuery[] = groups.flatMap(([source, entries]) =>
  entries.map((e, i) => {
    const q = typeof e === 'string' ? { sql: e } : e;
    return { id: `${source.replace(/\.sql$/, '')}#${i + 1}`, source, ...q };
  }),
);
