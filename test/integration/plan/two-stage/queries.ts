// The two-stage oracle's queries over o.ev (2,000 events keyed by uid), o.evs (the same rows keyed
// by sensor) and o.us (60 users keyed by uid; shard 3 holds none). Every ORDER BY is total (ties
// broken explicitly) so rows can be compared in order; results are deterministic on any split
// (groupArray-like results sorted; any/anyLast only where the group fixes the value).
// `on18`: also run on clickhouse-server 18.16 (it has the functions and syntax).

export interface StageQuery {
  sql: string;
  on18?: boolean;
}

const q = (sql: string, on18 = false): StageQuery => ({ sql, on18 });

/** One aggregate (function or combinator) per entry, grouped by sensor. */
export const AGGREGATES: string[] = [
  'count()',
  'sum(amount)',
  'avg(value)',
  'min(ts)',
  'max(value)',
  'uniq(uid)',
  'uniqExact(uid)',
  'uniqCombined(uid)',
  'uniqCombined64(uid)',
  'uniqHLL12(uid)',
  'arraySort(groupUniqArray(tags))',
  'stddevPop(value)',
  'stddevSamp(value)',
  'varPop(amount)',
  'varSamp(value)',
  'corr(value, amount)',
  'covarPop(value, amount)',
  'covarSamp(value, amount)',
  'sumMap(ks, vs)',
  'quantileExact(0.5)(amount)',
  'quantilesExact(0.1, 0.9)(amount)',
  'quantile(0.9)(value)',
  'median(amount)',
  'quantileDeterministic(0.5)(amount, id)',
  "retention(kind = 'a', amount > 0, value > 50)",
  'argMax(id, amount * 10000 + id)',
  'argMin(ts, id)',
  'anyLast(kind)',
  'any(kind)',
  "sumIf(amount, kind = 'a')",
  'countIf(n IS NULL)',
  'avgIf(value, amount > 0)',
  'uniqArray(tags)',
  'sumArray(vs)',
  'count(DISTINCT uid)',
  'sum(DISTINCT amount)',
  'uniqIf(uid, amount > 100)',
  'sumOrNull(amount)',
  'maxOrNull(n)',
  'avgOrDefault(value)',
  'groupBitOr(uid)',
  'groupBitAnd(uid + 1)',
  'groupBitXor(uid)',
  'skewPop(value)',
  'kurtPop(value)',
  'simpleLinearRegression(value, amount)',
  'sumWithOverflow(amount)',
  'minMap(ks, vs)',
  'maxMap(ks, vs)',
  'entropy(uid)',
  'count(n)',
  'sum(n)',
  'avgWeighted(value, amount + 400)',
  'rankCorr(value, amount)',
  "arraySort(groupArrayIf(amount, kind = 'a'))",
  'sumForEach(vs)',
  'countResample(0, 4, 1)(uid % 4)',
  'sumArgMax(amount, id)',
  'minArray(ks)',
  'arraySort(groupUniqArrayArray(tags))',
  'sumKahan(value)',
  "maxIf(ts, kind = 'b')",
  'countDistinctIf(uid, amount > 0)',
  "sumIfOrNull(amount, kind = 'c')",
  "maxIfOrDefault(value, kind = 'c')",
  'finalizeAggregation(uniqExactState(uid))',
];

/** Aggregates 18.16 has, and the same query shape. */
const AGGREGATES_18 = new Set([
  'count()',
  'sum(amount)',
  'avg(value)',
  'min(ts)',
  'max(value)',
  'uniq(uid)',
  'uniqExact(uid)',
  'uniqCombined(uid)',
  'uniqHLL12(uid)',
  'stddevPop(value)',
  'varSamp(value)',
  'corr(value, amount)',
  'sumMap(ks, vs)',
  'quantileExact(0.5)(amount)',
  'median(amount)',
  "sumIf(amount, kind = 'a')",
  'countIf(n IS NULL)',
  'uniqArray(tags)',
  'sumArray(vs)',
  'count(DISTINCT uid)',
  'argMin(ts, id)',
  'any(kind)',
  'anyLast(kind)',
]);

export const QUERIES: StageQuery[] = [
  ...AGGREGATES.map((a) => q(`SELECT sensor, ${a} FROM o.ev GROUP BY sensor ORDER BY sensor`, AGGREGATES_18.has(a))),
  q("SELECT level, count() FROM (SELECT uid, windowFunnel(100000)(ts, kind = 'a', kind = 'b') AS level FROM o.ev GROUP BY uid) GROUP BY level ORDER BY level"),
  q("SELECT uid, windowFunnel(100000)(ts, kind = 'a', kind = 'b', amount > 600) AS w FROM o.ev GROUP BY uid ORDER BY uid LIMIT 20"),
  // Everything in the final stage
  q('SELECT count(), sum(amount), min(value), max(ts) FROM o.ev', true),
  q('SELECT sensor, count() AS c, sum(amount) / count() AS mean FROM o.ev GROUP BY sensor HAVING c > 150 ORDER BY c DESC, sensor', true),
  q('SELECT kind, sensor, count() FROM o.ev GROUP BY kind, sensor WITH ROLLUP ORDER BY kind, sensor', true),
  // A subtotal row's m is 0, as is a real m: the aggregate completes the order (ties are ClickHouse's choice).
  q('SELECT kind, uid % 3 AS m, sum(amount) FROM o.ev GROUP BY kind, m WITH CUBE ORDER BY kind, m, sum(amount)', true),
  q('SELECT kind, count(), avg(value) FROM o.ev GROUP BY kind WITH TOTALS ORDER BY kind', true),
  q('SELECT kind, sensor, count() FROM o.ev GROUP BY kind, sensor WITH ROLLUP WITH TOTALS ORDER BY kind, sensor'),
  q('SELECT kind, uid % 3 AS m, count(), sum(amount) FROM o.ev GROUP BY GROUPING SETS ((kind), (m, kind), ()) ORDER BY kind, m, count()'),
  q('SELECT kind, sensor, count() FROM o.ev GROUP BY GROUPING SETS (kind, (sensor)) ORDER BY kind, sensor'),
  // Constant keys stay constants, as ClickHouse keeps them: in the totals, subtotal and grouping-set
  // rows too, and a ROLLUP or CUBE never rolls them up.
  q('SELECT count(), 42 AS z FROM o.ev GROUP BY z WITH TOTALS'),
  q('SELECT count(), 42 AS z FROM o.ev WHERE amount < 0 GROUP BY z WITH TOTALS'),
  q('SELECT count(), 42 AS z FROM o.ev WHERE amount < 0 GROUP BY z'),
  q('SELECT count(), 42 AS z FROM o.ev GROUP BY z WITH ROLLUP'),
  q("SELECT count(), 'a' AS z, kind FROM o.ev GROUP BY z, kind WITH ROLLUP ORDER BY kind, count()"),
  q("SELECT count(), toDate('2020-01-01') AS z, kind FROM o.ev GROUP BY kind, z WITH CUBE WITH TOTALS ORDER BY kind, count()"),
  q('SELECT count(), 42 AS z, kind FROM o.ev GROUP BY GROUPING SETS ((z), (kind)) ORDER BY kind, count()'),
  q('SELECT sum(amount), 1 + 2 AS z, kind FROM o.ev GROUP BY kind, z WITH TOTALS ORDER BY kind'),
  q('SELECT sensor, count() AS c, rank() OVER (ORDER BY count() DESC, sensor) AS r FROM o.ev GROUP BY sensor ORDER BY sensor'),
  q('SELECT toDate(ts) AS d, count() AS c, sum(count()) OVER (ORDER BY toDate(ts)) AS running FROM o.ev GROUP BY d ORDER BY d'),
  q('SELECT toStartOfMonth(ts) AS mo, sum(amount) AS s, lagInFrame(sum(amount), 1) OVER (ORDER BY mo) AS prev FROM o.ev GROUP BY mo ORDER BY mo'),
  q(
    'SELECT kind, sensor, count() AS c, dense_rank() OVER w AS r FROM o.ev GROUP BY kind, sensor WINDOW w AS (PARTITION BY kind ORDER BY count() DESC, sensor) ORDER BY kind, r',
  ),
  q(
    'SELECT id, sensor, sum(amount) OVER (PARTITION BY sensor ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS acc FROM o.ev WHERE id < 60 ORDER BY id',
  ),
  q('SELECT id, row_number() OVER (ORDER BY value DESC, id) AS rn FROM o.ev ORDER BY rn LIMIT 10'),
  q('SELECT formatReadableQuantity(count()), formatReadableSize(sum(abs(amount)))  FROM o.ev'),
  q('SELECT EXTRACT(HOUR FROM ts) AS h, count() FROM o.ev GROUP BY h ORDER BY h'),
  q('SELECT EXTRACT(MONTH FROM ts), EXTRACT(DAY FROM ts) AS dd, count() FROM o.ev GROUP BY 1, dd ORDER BY 1, dd LIMIT 20'),
  // Subqueries in FROM, CTEs, WITH aliases
  q('SELECT kind, max(c), min(c) FROM (SELECT sensor, kind, count() AS c FROM o.ev GROUP BY sensor, kind) GROUP BY kind ORDER BY kind', true),
  q('SELECT count(), sum(s) FROM (SELECT uid, sum(amount) AS s FROM o.ev GROUP BY uid HAVING s > 0)', true),
  q('WITH top AS (SELECT sensor, count() AS c FROM o.ev GROUP BY sensor) SELECT sensor, c FROM top WHERE c > 153 ORDER BY sensor'),
  q('WITH a AS (SELECT uid, count() AS c FROM o.ev GROUP BY uid), b AS (SELECT c, count() AS users FROM a GROUP BY c) SELECT * FROM b ORDER BY c'),
  q('WITH 100 AS lim SELECT count() FROM o.ev WHERE amount > lim', true),
  q('WITH toDate(ts) AS d SELECT d, count() FROM o.ev GROUP BY d ORDER BY d LIMIT 5', true),
  q('SELECT x, count() FROM (SELECT id % 10 AS x FROM o.ev WHERE amount > 0) GROUP BY x ORDER BY x', true),
  q(
    'SELECT a.sensor, a.c, b.s FROM (SELECT sensor, count() AS c FROM o.ev GROUP BY sensor) AS a INNER JOIN (SELECT sensor, sum(amount) AS s FROM o.evs GROUP BY sensor) AS b ON a.sensor = b.sensor ORDER BY a.sensor',
  ),
  q(
    'SELECT sensor, c FROM (SELECT sensor, count() AS c FROM o.ev GROUP BY sensor) WHERE sensor IN (SELECT sensor FROM o.evs WHERE amount > 690) ORDER BY sensor',
  ),
  q('SELECT (SELECT count() FROM o.ev) - (SELECT count() FROM o.us) AS diff'),
  // UNION
  q('SELECT sensor AS x FROM o.ev WHERE id < 30 UNION ALL SELECT country FROM o.us WHERE uid < 10', true),
  q('SELECT kind FROM o.ev UNION DISTINCT SELECT country FROM o.us'), // 18.16 has only UNION ALL
  q('SELECT count() AS c FROM o.ev UNION ALL SELECT count() FROM o.us', true),
  // Rows: ORDER BY + LIMIT pushed down, OFFSET, LIMIT BY, DISTINCT, ties, *
  q('SELECT id, value FROM o.ev ORDER BY value DESC, id LIMIT 5 OFFSET 10', true),
  q('SELECT sensor, id FROM o.ev ORDER BY sensor, id DESC LIMIT 2 BY sensor', true),
  q('SELECT DISTINCT kind, sensor FROM o.ev ORDER BY kind, sensor', true),
  q('SELECT DISTINCT uid % 5 AS m FROM o.ev ORDER BY m', true),
  q('SELECT sensor, count() AS c FROM o.ev GROUP BY sensor ORDER BY c DESC, sensor LIMIT 3', true),
  q('SELECT amount FROM o.ev ORDER BY amount DESC LIMIT 3 WITH TIES'),
  q('SELECT * FROM o.ev ORDER BY id DESC LIMIT 3', true),
  q('SELECT * FROM o.us WHERE score > 70 ORDER BY uid', true),
  q('SELECT id, tags FROM o.ev WHERE length(tags) = 3 ORDER BY id LIMIT 4', true),
  // NULLs
  q('SELECT n, count() FROM o.ev GROUP BY n ORDER BY n NULLS FIRST LIMIT 5', true),
  // Not on 18.16: there sumMerge of a Nullable argument's state is not Nullable (the type differs from sum(n)'s).
  q('SELECT n IS NULL AS isn, count(), sum(n), avg(n) FROM o.ev GROUP BY isn ORDER BY isn'),
  q('SELECT n IS NULL AS isn, count(), max(n) FROM o.ev GROUP BY isn ORDER BY isn', true),
  q('SELECT id, n FROM o.ev ORDER BY n DESC NULLS LAST, id LIMIT 5', true),
  // Empty results and an empty shard
  q('SELECT sensor, count() FROM o.ev WHERE amount > 10000 GROUP BY sensor', true),
  q('SELECT count(), sumOrNull(amount), max(value) FROM o.ev WHERE amount > 10000'),
  q('SELECT count(), max(value) FROM o.ev WHERE amount > 10000', true),
  q('SELECT country, count(), avg(score), min(uid) FROM o.us GROUP BY country ORDER BY country', true),
  q('SELECT uid, country FROM o.us WHERE uid % 4 = 3'),
  // count/sum/min/max travel as plain values: shards without rows (o.us has none on shard 3; id = 1234 is
  // one row on one shard) must not give their default min/max, all-NULL and all-empty inputs answer
  // as ClickHouse does, Decimal sums keep their type, ROLLUP/TOTALS re-aggregate the partials.
  q('SELECT min(score + 100) AS mn, max(score - 100) AS mx, min(country) AS c, min(uid + 1) AS u, count() AS n, sum(score) AS s FROM o.us', true),
  q(
    'SELECT min(value + 1) AS mn, max(amount - 1000) AS mx, min(sensor) AS s, min(ts) AS t, max(n) AS nx, min(n) AS nn, sum(n) AS sn, count(n) AS cn, count() AS c FROM o.ev WHERE id = 1234',
    true,
  ),
  q('SELECT min(n) AS nn, max(n) AS nx, sum(n) AS sn, count(n) AS cn, count() AS c, max(sensor) AS s FROM o.ev WHERE id = 7', true),
  q('SELECT sum(n) AS sn, min(n) AS nn, max(n) AS nx, count(n) AS cn, count() AS c, min(sensor) AS s FROM o.ev WHERE n IS NULL', true),
  q(
    'SELECT min(value) AS mn, max(sensor) AS mx, min(n) AS nn, sum(n) AS sn, sum(amount) AS sa, count(n) AS cn, count() AS c FROM o.ev WHERE amount > 10000',
    true,
  ),
  // (Not max(score - 100) over no rows: ClickHouse 26 rewrites it to max(score) - 100, -100 over no rows, where the
  // shards' max(score - 100) gives 0, -State or plain alike; 18.16 does not rewrite it and answers 0.)
  q('SELECT min(country) AS c, max(score) AS mx, count() AS n FROM o.us WHERE score > 1000 WITH TOTALS', true),
  q('SELECT max(score) AS mx, min(country) AS c, count() AS n FROM o.us WHERE score < 0', true),
  q('SELECT min(country) AS c, sum(score) AS s, count() AS n FROM o.us WITH TOTALS', true),
  q(
    "SELECT sum(toDecimal64(amount, 2) / 7) AS d, sumIf(toDecimal32(value, 3), kind = 'a') AS e, min(toDecimal128(amount, 4)) AS f, max(toDecimal64(amount, 2)) AS g FROM o.ev WHERE uid % 4 = 1",
    true,
  ),
  q(
    'SELECT sum(toDecimal64(amount, 2)) AS d, max(toDecimal64(amount, 2)) AS m, sum(toNullable(toDecimal32(amount, 1))) AS nd FROM o.ev WHERE amount > 10000',
    true,
  ),
  q(
    'SELECT kind, sensor, count() AS c, sum(n) AS s, min(amount) AS mn, max(ts) AS mx, countIf(n IS NULL) AS nulls FROM o.ev GROUP BY kind, sensor WITH ROLLUP ORDER BY kind, sensor',
    true,
  ),
  q(
    'SELECT sensor, count() AS c, min(value) AS mn, max(n) AS mx, sum(amount) AS s FROM o.ev WHERE uid % 4 = 2 GROUP BY sensor WITH TOTALS ORDER BY sensor',
    true,
  ),
  q('SELECT kind, min(value) AS mn, max(n) AS mx, sum(n) AS s, count() AS c FROM o.ev GROUP BY GROUPING SETS ((kind), ()) ORDER BY kind, c'),
  q('SELECT sum(amount) AS a, SUM(amount) * 2 AS b, count() AS c, COUNT(*) AS d, max(amount) - min(amount) AS r FROM o.ev', true),
  // Shard pruning on the key, local IN, ARRAY JOIN
  q('SELECT count(), sum(amount) FROM o.ev WHERE uid IN (1, 2, 5)', true),
  q("SELECT count(), uniqExact(uid) FROM o.ev WHERE uid IN (SELECT uid FROM o.us WHERE country = 'de')", true),
  q('SELECT sensor, count() FROM o.ev WHERE uid IN (SELECT uid FROM o.ev GROUP BY uid HAVING count() > 20) GROUP BY sensor ORDER BY sensor', true),
  q('SELECT count() FROM o.ev WHERE uid NOT IN (SELECT uid FROM o.us)', true),
  q("SELECT count() FROM o.evs WHERE sensor IN (SELECT sensor FROM o.evs WHERE kind = 'a' AND amount > 650)", true),
  q('SELECT tag, count() FROM o.ev ARRAY JOIN tags AS tag GROUP BY tag ORDER BY tag', true),
  q('SELECT arrayJoin(tags) AS t, uniqExact(uid) FROM o.ev GROUP BY t ORDER BY t', true),
  q('SELECT uid % 4 AS s, count() FROM o.ev GROUP BY s ORDER BY s', true),
  // More shapes: DISTINCT and LIMIT BY after GROUP BY, a scalar subquery in HAVING, nesting, CTE used twice, GLOBAL JOIN, WITH FILL
  q('SELECT DISTINCT kind, count() > 150 AS big FROM o.ev GROUP BY sensor, kind ORDER BY kind, big', true),
  q('SELECT kind, sensor, count() AS c FROM o.ev GROUP BY kind, sensor ORDER BY kind, c DESC, sensor LIMIT 2 BY kind', true),
  q('SELECT sensor, count() AS c FROM o.ev GROUP BY sensor HAVING c > (SELECT count() FROM o.ev) / 13 ORDER BY sensor'),
  q('SELECT max(x) FROM (SELECT kind, max(c) AS x FROM (SELECT sensor, kind, count() AS c FROM o.ev GROUP BY sensor, kind) GROUP BY kind)', true),
  q('SELECT count(), uniqExact(uid) FROM (SELECT uid FROM o.ev WHERE amount > 600 UNION ALL SELECT uid FROM o.us)', true),
  q('WITH t AS (SELECT sensor, count() AS c FROM o.ev GROUP BY sensor) SELECT (SELECT max(c) FROM t) - (SELECT min(c) FROM t) AS spread'),
  q('SELECT u.country, count(), sum(e.amount) FROM o.ev AS e GLOBAL INNER JOIN o.us AS u ON e.uid = u.uid GROUP BY u.country ORDER BY u.country'),
  q('SELECT e.uid, u.uid, u.country FROM o.ev AS e GLOBAL INNER JOIN o.us AS u ON e.uid = u.uid ORDER BY e.id LIMIT 5'),
  q('SELECT toDate(ts) AS d, count() FROM o.ev WHERE id % 50 = 0 GROUP BY d ORDER BY d WITH FILL LIMIT 10'),
  q('SELECT sensor, count() AS c, c / (SELECT count() FROM o.evs) AS share FROM o.ev GROUP BY sensor ORDER BY sensor'),
  q('SELECT id, amount / (SELECT max(amount) FROM o.ev) AS share FROM o.ev ORDER BY share DESC, id LIMIT 4'),
  q('SELECT id, (SELECT count() FROM o.us) AS users FROM o.ev ORDER BY id LIMIT 3'),
];
