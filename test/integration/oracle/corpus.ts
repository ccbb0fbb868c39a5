// The oracle corpus: queries run both scattered and on one node holding every row.
// `unordered`: rows compared as a multiset (no total ORDER BY). `approx`: columns checked against
// exact truth within their stated bound instead of equality (see oracle.test.ts).
// oracle.ev is keyed by uid (identity; shard 4 empty), oracle.evs by sensor (xxHash64).

export interface Case {
  sql: string;
  unordered?: boolean;
  /** Columns that are approximate: checked by `kind` instead of compared for equality. */
  approx?: Record<string, 'hll' | 'quantile' | 'topk' | 'topk-count'>;
  /** For quantile checks: the level(s) and the argument, to compute the exact neighbours. */
  expectError?: string;
}

const T = ['oracle.ev', 'oracle.evs'];

const exact: Case[] = [];
for (const t of T) {
  exact.push(
    // scalar aggregates
    { sql: `SELECT count() FROM ${t}` },
    { sql: `SELECT count(), sum(v), min(v), max(v), avg(v) FROM ${t}` },
    { sql: `SELECT count(n), sum(n), min(n), max(n), avg(n) FROM ${t}` },
    { sql: `SELECT min(s), max(s), count(s) FROM ${t}` },
    { sql: `SELECT sum(f), avg(f), min(f), max(f) FROM ${t}` },
    { sql: `SELECT sum(big), min(big), max(big) FROM ${t}` },
    { sql: `SELECT min(d), max(d), min(ts), max(ts) FROM ${t}` },
    { sql: `SELECT countIf(flag = 1), sumIf(v, flag = 1), minIf(f, v > 900), maxIf(s, v < -900), avgIf(v, region = 'eu') FROM ${t}` },
    { sql: `SELECT countIf(v > 5000), sumIf(v, v > 5000), minIf(v, v > 5000), maxIf(s, v > 5000), avgIf(v, v > 5000) FROM ${t}` },
    { sql: `SELECT count(), sum(v), min(v), max(s), avg(f) FROM ${t} WHERE v > 5000` },
    { sql: `SELECT argMin(uid, f), argMax(uid, f), argMin(s, f), argMaxIf(uid, f, flag = 0) FROM ${t}` },
    { sql: `SELECT uniqExact(sensor), uniqExact(s), count(DISTINCT region), uniqExactIf(uid, flag = 1) FROM ${t}` },
    { sql: `SELECT sum(v) / count() AS mean, round(avg(f), 2) AS r, max(v) - min(v) AS spread, count() * 2 AS c2 FROM ${t}` },
    { sql: `SELECT if(count() > 100, 'many', 'few') AS size, sum(v) + 1, -sum(v), abs(sum(v)) FROM ${t}` },
    { sql: `SELECT count() FROM ${t} WHERE sensor IN ('s-0', 's-1', 's-2')` },
    { sql: `SELECT sum(v) FROM ${t} WHERE uid = 17` },
    { sql: `SELECT count(), avg(v) FROM ${t} WHERE s IS NULL` },
    { sql: `SELECT any(region) FROM ${t} WHERE sensor = 's-3' AND region = 'eu'` },
    // GROUP BY
    { sql: `SELECT region, count() AS c, sum(v), avg(f) FROM ${t} GROUP BY region ORDER BY region` },
    { sql: `SELECT region, count() AS c FROM ${t} GROUP BY region ORDER BY c DESC, region` },
    { sql: `SELECT region, flag, count(), min(v), max(s) FROM ${t} GROUP BY region, flag ORDER BY region, flag` },
    { sql: `SELECT region, uniqExact(sensor) AS u, argMax(uid, f) FROM ${t} GROUP BY region ORDER BY region` },
    { sql: `SELECT toYYYYMM(d) AS m, count(), sum(v) FROM ${t} GROUP BY m ORDER BY m` },
    { sql: `SELECT toStartOfDay(ts) AS day, count() AS c FROM ${t} GROUP BY day ORDER BY day LIMIT 10` },
    { sql: `SELECT s, count() AS c, avg(v) FROM ${t} GROUP BY s ORDER BY s NULLS FIRST` },
    { sql: `SELECT s, count() AS c FROM ${t} GROUP BY s ORDER BY s DESC` },
    { sql: `SELECT region, count() AS c FROM ${t} GROUP BY region HAVING c > 2000 ORDER BY region` },
    { sql: `SELECT region, sum(v) AS sv FROM ${t} GROUP BY region HAVING sum(v) < 0 AND count() > 10 ORDER BY sv` },
    { sql: `SELECT region, count() AS c, round(sum(v) / count(), 3) AS m FROM ${t} GROUP BY region ORDER BY m DESC, region LIMIT 3` },
    { sql: `SELECT region, count() FROM ${t} GROUP BY region ORDER BY region LIMIT 3 OFFSET 2` },
    { sql: `SELECT region, flag, count() AS c FROM ${t} GROUP BY region, flag ORDER BY region, flag LIMIT 5` },
    { sql: `SELECT region, flag, count() AS c FROM ${t} GROUP BY region, flag ORDER BY c DESC, region, flag LIMIT 1 BY region` },
    { sql: `SELECT flag, region, count() AS c FROM ${t} GROUP BY flag, region ORDER BY flag, c DESC, region LIMIT 2 BY flag` },
    { sql: `SELECT DISTINCT flag FROM ${t} GROUP BY flag, region ORDER BY flag` },
    { sql: `SELECT concat(region, '!') AS r, count() FROM ${t} GROUP BY region ORDER BY r` },
    { sql: `SELECT upper(region) AS r, count() AS c, c * 100 / (SELECT 1) FROM ${t} GROUP BY region ORDER BY r`, expectError: 'UNSUPPORTED' },
    { sql: `SELECT region, count() AS c, sum(n) AS sn, sn / c FROM ${t} GROUP BY region ORDER BY region` },
    { sql: `SELECT region, multiIf(count() > 3000, 'a', count() > 1000, 'b', 'c') AS grade FROM ${t} GROUP BY region ORDER BY region` },
    { sql: `SELECT region, CASE WHEN avg(v) > 0 THEN 'pos' ELSE 'neg' END AS sgn FROM ${t} GROUP BY region ORDER BY region` },
    { sql: `SELECT region, count() FROM ${t} WHERE flag = 1 AND v > 0 GROUP BY 1 ORDER BY 1` },
    { sql: `SELECT region, count() AS c, countIf(s IS NULL) AS nulls FROM ${t} GROUP BY region ORDER BY nulls DESC, region` },
    { sql: `SELECT uid, count() AS c, sum(v) FROM ${t} GROUP BY uid ORDER BY c DESC, uid LIMIT 7`, approx: { c: 'topk-count' } },
    { sql: `SELECT uid, sum(v) AS sv FROM ${t} GROUP BY uid HAVING sv > 1500 ORDER BY sv DESC, uid LIMIT 5` },
    { sql: `SELECT sensor, count() AS c, max(v) FROM ${t} GROUP BY sensor ORDER BY sensor LIMIT 6` },
    { sql: `SELECT sensor, uid, count() FROM ${t} GROUP BY sensor, uid ORDER BY sensor, uid LIMIT 4` },
    { sql: `SELECT sensor, count() AS c FROM ${t} GROUP BY sensor ORDER BY max(v) DESC, sensor LIMIT 5` },
    { sql: `SELECT region, min(n), max(n), any(flag) * 0 FROM ${t} GROUP BY region ORDER BY region` },
    { sql: `SELECT count() AS c FROM ${t} GROUP BY region HAVING c < 0` },
    { sql: `SELECT region, avgIf(f, flag = 1) AS a, sumIf(n, v > 900) AS b FROM ${t} GROUP BY region ORDER BY region` },
    // row queries
    { sql: `SELECT uid, v, f FROM ${t} ORDER BY v DESC, uid, f LIMIT 10` },
    { sql: `SELECT uid, v, f FROM ${t} ORDER BY v, uid, f LIMIT 5 OFFSET 7` },
    { sql: `SELECT sensor, f FROM ${t} WHERE region = 'eu' ORDER BY f DESC, sensor LIMIT 8` },
    { sql: `SELECT uid, n, f FROM ${t} ORDER BY n, f LIMIT 12` },
    { sql: `SELECT uid, n, f FROM ${t} ORDER BY n DESC NULLS FIRST, f LIMIT 6` },
    { sql: `SELECT uid, s, f FROM ${t} ORDER BY s DESC, f LIMIT 6` },
    { sql: `SELECT uid, big FROM ${t} ORDER BY big DESC, uid LIMIT 4` },
    { sql: `SELECT uid, d, ts, f FROM ${t} ORDER BY ts, f LIMIT 5` },
    { sql: `SELECT uid, v * 2 AS w, f FROM ${t} ORDER BY w DESC, f LIMIT 5` },
    { sql: `SELECT uid, v, f FROM ${t} WHERE v > 995`, unordered: true },
    { sql: `SELECT DISTINCT region FROM ${t} ORDER BY region` },
    { sql: `SELECT DISTINCT region, flag FROM ${t} ORDER BY region, flag LIMIT 5` },
    { sql: `SELECT region, uid, f FROM ${t} ORDER BY region, f DESC, uid LIMIT 2 BY region` },
    { sql: `SELECT uid, f FROM ${t} WHERE sensor = 's-7' ORDER BY f, uid` },
    { sql: `SELECT * FROM ${t} ORDER BY f DESC, uid LIMIT 3` },
    // WITH scalars and aliases used across clauses
    { sql: `WITH 3 AS k SELECT uid, v * k AS w, f FROM ${t} WHERE w > 2900 ORDER BY w DESC, uid, f LIMIT 5` },
    { sql: `WITH 100 AS k SELECT region, count() * k AS c100, sum(v) AS s, s / c100 AS ratio FROM ${t} GROUP BY region ORDER BY ratio, region` },
    // NaN ordering: after numbers by default, before them with NULLS FIRST
    { sql: `SELECT region, flag, avgIf(f, v > 998) AS a FROM ${t} GROUP BY region, flag ORDER BY a DESC, region, flag` },
    { sql: `SELECT region, flag, avgIf(f, v > 998) AS a FROM ${t} GROUP BY region, flag ORDER BY a NULLS FIRST, region, flag` },
    { sql: `SELECT uid, f, if(v % 7 = 0, nan, f) AS r FROM ${t} WHERE v BETWEEN 0 AND 40 ORDER BY r, uid, f` },
    { sql: `SELECT uid, f, if(v % 7 = 0, nan, f) AS r FROM ${t} ORDER BY r DESC NULLS FIRST, uid, f LIMIT 12` },
    // exact quantiles (values shipped, bounded)
    { sql: `SELECT quantileExact(0.5)(v), quantilesExact(0.1, 0.9, 1)(n), medianExact(f), quantileExactIf(0.25)(uid, flag = 1) FROM ${t}` },
    { sql: `SELECT region, quantileExact(0.9)(v) AS q, medianExact(n), medianExact(d) FROM ${t} GROUP BY region ORDER BY region` },
    { sql: `SELECT quantileExact(0.5)(v) FROM ${t} WHERE v > 5000` },
    // Decimal
    { sql: `SELECT sum(amount), min(amount), max(amount), avg(amount), any(amount) * 0 = 0 FROM ${t} WHERE uid = 3`, expectError: 'UNSUPPORTED' },
    { sql: `SELECT sum(amount), min(amount), max(amount), avg(amount), uniqExact(amount) > 0 FROM ${t}` },
    { sql: `SELECT region, sum(amount) AS a, maxIf(amount, flag = 1) FROM ${t} GROUP BY region HAVING a > 0 ORDER BY a DESC, region` },
    { sql: `SELECT uid, amount FROM ${t} ORDER BY amount DESC, uid LIMIT 5` },
  );
}

const approx: Case[] = [];
for (const t of T) {
  approx.push(
    { sql: `SELECT uniq(sensor) AS u, uniqCombined(uid) AS u2, uniqHLL12(f) AS u3 FROM ${t}`, approx: { u: 'hll', u2: 'hll', u3: 'hll' } },
    { sql: `SELECT region, uniq(uid) AS u FROM ${t} GROUP BY region ORDER BY region`, approx: { u: 'hll' } },
    { sql: `SELECT uniqIf(sensor, flag = 1) AS u FROM ${t}`, approx: { u: 'hll' } },
    { sql: `SELECT uniq(s) AS u FROM ${t}`, approx: { u: 'hll' } },
    { sql: `SELECT quantile(0.9)(v) AS q FROM ${t}`, approx: { q: 'quantile' } },
    { sql: `SELECT median(f) AS q FROM ${t}`, approx: { q: 'quantile' } },
    { sql: `SELECT quantileTDigest(0.25)(uid) AS q FROM ${t}`, approx: { q: 'quantile' } },
    { sql: `SELECT region, quantile(0.5)(f) AS q FROM ${t} GROUP BY region ORDER BY region`, approx: { q: 'quantile' } },
    { sql: `SELECT quantiles(0.1, 0.5, 0.99)(n) AS q FROM ${t}`, approx: { q: 'quantile' } },
    { sql: `SELECT quantileIf(0.5)(v, flag = 1) AS q FROM ${t}`, approx: { q: 'quantile' } },
    { sql: `SELECT topK(5)(sensor) AS tk FROM ${t}`, approx: { tk: 'topk' } },
    { sql: `SELECT topK(3)(region) AS tk FROM ${t}`, approx: { tk: 'topk' } },
    { sql: `SELECT sensor, count() AS c FROM ${t} GROUP BY sensor ORDER BY c DESC, sensor LIMIT 10`, approx: { c: 'topk-count' } },
    { sql: `SELECT s, count() AS c FROM ${t} GROUP BY s ORDER BY c DESC, s LIMIT 3`, approx: { c: 'topk-count' } },
  );
}

const errors: Case[] = [
  { sql: 'SELECT stddevPop(v) FROM oracle.ev', expectError: 'UNSUPPORTED' },
  { sql: 'SELECT groupArray(v) FROM oracle.ev', expectError: 'UNSUPPORTED' },
  { sql: 'SELECT region, count() FROM oracle.ev GROUP BY region WITH TOTALS', expectError: 'UNSUPPORTED' },
  { sql: 'SELECT region, count() FROM oracle.ev GROUP BY region WITH ROLLUP', expectError: 'UNSUPPORTED' },
  { sql: 'SELECT sumState(v) FROM oracle.ev', expectError: 'UNSUPPORTED' },
];

export const CORPUS: Case[] = [...exact, ...approx, ...errors];
