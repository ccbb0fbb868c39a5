// The oracle corpus: SELECTs a Distributed table answers, each to be answered over the shards exactly
// as one node holding every row answers it (tables in schema.ts, rows in data.ts).
// Conventions that keep every answer a function of the data alone (not of row order or shard split):
// - `any`, `anyLast`, `argMin`/`argMax` only where the chosen value is unique (by event_id, or
//   functionally dependent on the group key); `groupArray` and friends inside arraySort;
// - `topK` only where the counts are far apart or every value fits; quantiles over fewer rows than
//   the 8192-value reservoir, so they are exact;
// - a LIMIT only under a total ORDER BY (ties broken by a unique column), flagged `ordered`;
// - float results that depend on summation or merge order carry a stated tolerance (FLOAT_ORDER),
//   and nothing else does: events.duration and events.ratio are chosen so their sums are exact in
//   any order, sensor `value` is not.
import type { OracleQuery } from './corpus-types.js';

const E = 'oracle.events_dist';
const U = 'oracle.users_dist';
const S = 'analytics.sensor_events_dist';

/**
 * Float sums that are not exact in a double (sensor `value` has three decimals; the third and fourth
 * powers of events.duration outgrow 53 bits) depend on the order rows are added and states merged.
 * Measured: 18.16's Distributed engine differs from its single node in the last bits for
 * sum/avg/stddev of `value`, and merging skewPop/kurtPop states of random splits on chdb does too.
 * stddev/var/covar/corr of events.duration and qty were measured exact both ways, and carry no mark.
 */
const FLOAT_ORDER = {
  rel: 1e-9,
  why: 'a float sum that is not exact in a double depends on the order rows are added and states merged, which a split into shards changes (measured)',
};
/** round(avg(value), 3): the order-dependent last bits of the avg can move the rounded value by one unit of 0.001 (values ~500). */
const ROUNDED_AVG = { rel: 1e-5, why: 'rounding an order-dependent float average to 3 decimals can flip its last digit (0.001 in ~500)' };
/** entropy adds -p·log(p) over its hash table of values, in the table's iteration order (measured: a reordered copy moves the last bit). */
const ENTROPY = { rel: 1e-12, why: 'entropy sums -p*log(p) in hash-table iteration order, which depends on insertion order (measured on a reordered copy)' };
/** t-digest centroids depend on insertion and merge order; ClickHouse documents it as approximate. */
const TDIGEST = { rel: 0.05, why: 't-digest compresses centroids in insertion/merge order: approximate by design' };
const WINDOW = ['window functions'];
const LOCAL_IN = 'a plain IN over a table sharded on the same key is exact only where rows sit by that key';
const PRUNE = 'a predicate on the sharding key lets shards be skipped: only right where rows sit by that key';

const q = (category: OracleQuery['category'], id: string, sql: string, flags: Omit<OracleQuery, 'id' | 'sql' | 'category'> = {}): OracleQuery => ({
  id: `${category}/${id}`,
  category,
  sql,
  ...flags,
});
const o = { ordered: true } as const;

export const CORPUS: readonly OracleQuery[] = [
  // ── aggregate functions ────────────────────────────────────────────────────────────────────────
  q('aggregate', 'count', `SELECT count() FROM ${E}`),
  q('aggregate', 'count-col-nullable', `SELECT count(score) AS c, count(tag) AS t, count(ratio) AS r FROM ${E}`),
  q('aggregate', 'sum-int', `SELECT sum(qty) AS s, sum(flag) AS f, sum(user_id) AS u FROM ${E}`),
  q('aggregate', 'sum-int64-nullable', `SELECT sum(score) AS s FROM ${E}`),
  q('aggregate', 'sum-dyadic-float', `SELECT sum(duration) AS s, sum(ratio) AS r FROM ${E}`),
  q('aggregate', 'sum-float-order', `SELECT sum(value) AS s FROM ${S}`, { tolerance: FLOAT_ORDER }),
  q('aggregate', 'sum-decimal', `SELECT sum(amount) AS a, sum(total) AS t FROM ${E}`),
  q('aggregate', 'avg', `SELECT avg(qty) AS q, avg(duration) AS d, avg(ratio) AS r FROM ${E}`),
  q('aggregate', 'avg-decimal', `SELECT avg(amount) AS a FROM ${E}`),
  q('aggregate', 'avg-float-order', `SELECT site, avg(value) AS v FROM ${S} GROUP BY site`, { tolerance: FLOAT_ORDER }),
  q('aggregate', 'min-max', `SELECT min(qty) AS a, max(qty) AS b, min(ts) AS c, max(ts) AS d, min(day) AS e, max(day) AS f FROM ${E}`),
  q('aggregate', 'min-max-string', `SELECT min(page) AS a, max(page) AS b, min(tag) AS c, max(tag) AS d, min(event) AS e FROM ${E}`),
  q('aggregate', 'min-max-decimal', `SELECT min(amount) AS a, max(amount) AS b, min(total) AS c, max(total) AS d FROM ${E}`),
  q('aggregate', 'min-max-datetime64', `SELECT min(ts_ms) AS a, max(ts_ms) AS b FROM ${E}`, { needs: ['DateTime64'] }),
  q('aggregate', 'any-dependent', `SELECT user_id, any(intDiv(user_id, 10)) AS a, anyLast(user_id % 7) AS b FROM ${E} GROUP BY user_id`),
  q('aggregate', 'any-constant', `SELECT event, any(length(event)) AS l, anyLast(upper(event)) AS u FROM ${E} GROUP BY event`),
  q(
    'aggregate',
    'argmin-argmax',
    `SELECT argMin(page, event_id) AS first_page, argMax(page, event_id) AS last_page, argMax(event_id, event_id) AS top FROM ${E}`,
  ),
  q('aggregate', 'argmax-grouped', `SELECT event, argMax(user_id, event_id) AS u, argMin(amount, event_id) AS a FROM ${E} GROUP BY event`),
  q('aggregate', 'uniq', `SELECT uniq(user_id) AS a, uniq(page) AS b, uniq(tag) AS c FROM ${E}`),
  q('aggregate', 'uniq-exact', `SELECT uniqExact(user_id) AS a, uniqExact(page, event) AS b FROM ${E}`),
  q('aggregate', 'uniq-combined', `SELECT uniqCombined(user_id) AS a, uniqCombined64(event_id) AS b, uniqHLL12(user_id) AS c FROM ${E}`, {
    needs: ['uniqCombined64'],
  }),
  q('aggregate', 'uniq-combined-grouped', `SELECT event, uniqCombined(page) AS a, uniqCombined64(user_id) AS b FROM ${E} GROUP BY event`, {
    needs: ['uniqCombined64'],
  }),
  q('aggregate', 'uniq-upto', `SELECT event, uniqUpTo(10)(page) AS a FROM ${E} GROUP BY event`),
  q('aggregate', 'quantile', `SELECT quantile(0.9)(duration) AS p90, quantile(qty) AS med FROM ${E}`),
  q('aggregate', 'quantiles', `SELECT quantiles(0.1, 0.5, 0.99)(duration) AS qs FROM ${E}`),
  q('aggregate', 'quantile-exact', `SELECT quantileExact(0.5)(qty) AS a, quantileExact(0.95)(duration) AS b FROM ${E}`),
  q('aggregate', 'quantile-exact-grouped', `SELECT site, quantileExact(0.9)(value) AS p FROM ${S} GROUP BY site`),
  q('aggregate', 'quantile-exact-weighted', `SELECT quantileExactWeighted(0.5)(qty, flag + 1) AS a FROM ${E}`),
  q('aggregate', 'quantile-tdigest', `SELECT event, quantileTDigest(0.5)(duration) AS m FROM ${E} GROUP BY event`, { tolerance: TDIGEST }),
  q('aggregate', 'quantile-timing', `SELECT quantileTiming(0.5)(qty) AS a, quantileTiming(0.9)(user_id) AS b FROM ${E}`),
  q('aggregate', 'quantile-deterministic', `SELECT quantileDeterministic(0.5)(duration, event_id) AS a FROM ${E}`),
  q('aggregate', 'median', `SELECT page, median(duration) AS m, medianExact(qty) AS e FROM ${E} GROUP BY page`),
  q('aggregate', 'group-array', `SELECT user_id, arraySort(groupArray(page)) AS pages FROM ${E} WHERE user_id < 40 GROUP BY user_id`),
  q('aggregate', 'group-array-limit-sorted', `SELECT groupArraySorted(5)(event_id) AS first5, arraySort(groupUniqArray(event)) AS events FROM ${E}`, {
    needs: ['groupArraySorted'],
  }),
  q('aggregate', 'group-uniq-array', `SELECT event, arraySort(groupUniqArray(page)) AS pages, arraySort(groupUniqArray(tag)) AS tags FROM ${E} GROUP BY event`),
  q('aggregate', 'topk', `SELECT topK(2)(event) AS top2, arraySort(topK(10)(tag)) AS all_tags FROM ${E}`),
  q('aggregate', 'topk-weighted', `SELECT arraySort(topKWeighted(10)(event, toUInt64(flag + 1))) AS t FROM ${E}`, { needs: ['topKWeighted'] }),
  q('aggregate', 'stddev-var', `SELECT stddevPop(duration) AS a, stddevSamp(duration) AS b, varPop(qty) AS c, varSamp(qty) AS d FROM ${E}`),
  q('aggregate', 'stddev-grouped', `SELECT site, stddevPop(value) AS sd, varSamp(value) AS vs FROM ${S} GROUP BY site`, { tolerance: FLOAT_ORDER }),
  q('aggregate', 'covar-corr', `SELECT covarPop(duration, qty) AS a, covarSamp(duration, qty) AS b, corr(duration, qty) AS c FROM ${E}`),
  q('aggregate', 'skew-kurt', `SELECT skewPop(duration) AS a, kurtPop(duration) AS b, skewSamp(qty) AS c, kurtSamp(qty) AS d FROM ${E}`, {
    tolerance: FLOAT_ORDER,
    needs: ['skewPop/kurtPop'],
  }),
  q('aggregate', 'sum-map', `SELECT sumMap([page], [toInt64(qty)]) AS m FROM ${E} WHERE user_id < 300`, { needs: ['sumMap over String keys'] }),
  q('aggregate', 'min-max-map', `SELECT minMap([event], [qty]) AS mn, maxMap([event], [qty]) AS mx FROM ${E}`, { needs: ['minMap/maxMap'] }),
  q('aggregate', 'sum-map-grouped', `SELECT event, sumMap(nums, arrayMap(x -> toUInt64(1), nums)) AS m FROM ${E} WHERE user_id < 100 GROUP BY event`),
  q(
    'aggregate',
    'window-funnel',
    `SELECT level, count() AS users FROM (SELECT user_id, windowFunnel(86400)(ts, event = 'view', event = 'click', event = 'cart', event = 'buy') AS level FROM ${E} GROUP BY user_id) GROUP BY level ORDER BY level`,
    o,
  ),
  q(
    'aggregate',
    'retention',
    `SELECT sum(r[1]) AS d0, sum(r[2]) AS d1, sum(r[3]) AS d2 FROM (SELECT user_id, retention(day = '2024-04-01', day = '2024-04-02', day = '2024-04-03') AS r FROM ${E} GROUP BY user_id)`,
  ),
  q(
    'aggregate',
    'sequence-match',
    `SELECT countIf(m) AS matched, count() AS users FROM (SELECT user_id, sequenceMatch('(?1)(?2)')(ts, event = 'view', event = 'buy') AS m FROM ${E} GROUP BY user_id)`,
  ),
  q(
    'aggregate',
    'sequence-count',
    `SELECT user_id, sequenceCount('(?1)(?2)')(ts, event = 'click', event = 'cart') AS c FROM ${E} WHERE user_id < 50 GROUP BY user_id`,
  ),
  q(
    'aggregate',
    'group-bit',
    `SELECT groupBitAnd(nums_or) AS a, groupBitOr(nums_or) AS b, groupBitXor(nums_or) AS c FROM (SELECT toUInt16(length(nums) * 3 + qty) AS nums_or FROM ${E})`,
  ),
  q('aggregate', 'group-bitmap', `SELECT groupBitmap(user_id) AS a, page FROM ${E} GROUP BY page`, { needs: ['groupBitmap'] }),
  q('aggregate', 'sum-with-overflow', `SELECT sumWithOverflow(flag) AS a FROM ${E}`, {
    notDistributed18: 'its state read from a remote shard fails on 18.16 (Unknown compression method; the initiator can crash)',
  }),
  q('aggregate', 'sum-kahan', `SELECT sumKahan(duration) AS b FROM ${E}`, {
    notDistributed18: 'its state read from a remote shard breaks the 18.16 initiator (the connection drops)',
  }),
  q('aggregate', 'avg-weighted', `SELECT avgWeighted(duration, qty + 10) AS a FROM ${E}`, { needs: ['avgWeighted'] }),
  q('aggregate', 'entropy', `SELECT entropy(page) AS e FROM ${E}`, { needs: ['entropy'], tolerance: ENTROPY }),
  q('aggregate', 'bounding-ratio', `SELECT boundingRatio(event_id, qty) AS r FROM ${E} WHERE user_id < 10`, { needs: ['boundingRatio'] }),
  q('aggregate', 'simple-linear-regression', `SELECT simpleLinearRegression(qty, duration) AS r FROM ${E}`, { needs: ['simpleLinearRegression'] }),
  q('aggregate', 'any-heavy-dominant', `SELECT anyHeavy(x) AS h FROM (SELECT if(event_id % 10 < 8, 'hot', page) AS x FROM ${E})`),
  q('aggregate', 'count-distinct', `SELECT count(DISTINCT page) AS p, count(DISTINCT tag) AS t, countDistinct(user_id) AS u FROM ${E}`),
  q('aggregate', 'arg-max-tuple', `SELECT argMax((page, qty), event_id) AS t FROM ${E}`),
  q('aggregate', 'sum-array-elements', `SELECT sum(length(tags)) AS n, max(arrayMax(nums)) AS m FROM ${E} WHERE notEmpty(nums)`, { needs: ['arrayMax'] }),

  // ── combinators ────────────────────────────────────────────────────────────────────────────────
  q('combinator', 'if', `SELECT countIf(flag = 1) AS a, sumIf(qty, event = 'buy') AS b, avgIf(duration, flag = 0) AS c, maxIf(page, qty > 8) AS d FROM ${E}`),
  q(
    'combinator',
    'if-uniq-quantile',
    `SELECT uniqIf(user_id, event = 'buy') AS a, quantileIf(0.5)(duration, flag = 1) AS b, uniqExactIf(page, qty < 0) AS c FROM ${E}`,
  ),
  q('combinator', 'if-argmax', `SELECT argMaxIf(page, event_id, event = 'cart') AS a, minIf(amount, qty = 10) AS b FROM ${E}`),
  q('combinator', 'array', `SELECT sumArray(nums) AS a, countArray(tags) AS b, uniqArray(tags) AS c, maxArray(nums) AS d FROM ${E}`),
  q('combinator', 'array-grouped', `SELECT event, avgArray(nums) AS a, uniqExactArray(tags) AS b FROM ${E} GROUP BY event`),
  q('combinator', 'distinct', `SELECT sumDistinct(qty) AS a, avgDistinct(qty) AS b, countDistinct(page) AS c FROM ${E}`, { needs: ['-Distinct combinator'] }),
  q('combinator', 'distinct-grouped', `SELECT event, sum(DISTINCT qty) AS a, groupArrayDistinct(flag) AS b FROM ${E} GROUP BY event`, {
    needs: ['-Distinct combinator'],
  }),
  q('combinator', 'or-null', `SELECT avgOrNull(qty) AS a, maxOrNull(page) AS b, sumOrNull(duration) AS c FROM ${E} WHERE qty > 100`, {
    needs: ['-OrNull combinator'],
  }),
  q('combinator', 'or-default', `SELECT avgOrDefault(qty) AS a, maxOrDefault(page) AS b, uniqOrDefault(user_id) AS c FROM ${E} WHERE qty > 100`, {
    needs: ['-OrDefault combinator'],
  }),
  q('combinator', 'or-null-nonempty', `SELECT event, minOrNull(ratio) AS a, argMaxOrNull(page, event_id) AS b FROM ${E} GROUP BY event`, {
    needs: ['-OrNull combinator'],
  }),
  q('combinator', 'for-each', `SELECT sumForEach(nums) AS a, maxForEach(nums) AS b FROM ${E}`),
  q('combinator', 'for-each-grouped', `SELECT flag, countForEach(tags) AS a FROM ${E} GROUP BY flag`),
  q('combinator', 'resample', `SELECT countResample(0, 12, 4)(qty, qty) AS a, sumResample(0, 12, 4)(flag, qty) AS b FROM ${E}`, {
    needs: ['-Resample combinator'],
  }),
  q('combinator', 'array-if', `SELECT sumArrayIf(nums, flag = 1) AS a, uniqArrayIf(tags, event = 'view') AS b FROM ${E}`),
  q('combinator', 'if-or-null', `SELECT sumIfOrNull(qty, qty > 100) AS a, maxIfOrNull(page, flag = 1) AS b FROM ${E}`, { needs: ['-OrNull combinator'] }),
  q('combinator', 'state-merge', `SELECT finalizeAggregation(uniqExactState(page)) AS a FROM ${E}`),
  q(
    'combinator',
    'merge-subquery',
    `SELECT uniqExactMerge(s) AS u, sumMerge(t) AS total FROM (SELECT event, uniqExactState(user_id) AS s, sumState(qty) AS t FROM ${E} GROUP BY event)`,
  ),
  q('combinator', 'arg-min-combinator', `SELECT sumArgMax(qty, event_id) AS a, maxArgMin(page, event_id) AS b FROM ${E}`, {
    needs: ['-ArgMin/-ArgMax combinators'],
  }),
  q('combinator', 'map-combinator', `SELECT sumMap(m) AS s FROM (SELECT map(event, toUInt64(qty > 0)) AS m FROM ${E})`, { needs: ['Map'] }),
  q('combinator', 'distinct-if', `SELECT uniqExactIf(tag, tag IS NOT NULL) AS a, countDistinctIf(page, flag = 1) AS b FROM ${E}`, {
    needs: ['-Distinct combinator'],
  }),
  q('combinator', 'array-distinct', `SELECT sumArrayDistinct(nums) AS a FROM ${E}`, { needs: ['-Distinct combinator'] }),
  q('combinator', 'or-null-grouped-empty', `SELECT site, avgOrNull(value) AS v FROM ${S} WHERE status = 999 GROUP BY site`, { needs: ['-OrNull combinator'] }),

  // ── expressions over aggregates ────────────────────────────────────────────────────────────────
  q('expression', 'readable-quantity', `SELECT formatReadableQuantity(count()) AS rows, formatReadableSize(sum(qty) * 1000) AS size FROM ${E}`, {
    needs: ['formatReadableQuantity'],
  }),
  q('expression', 'arith', `SELECT count() * 2 AS c2, sum(qty) - count() AS d, max(qty) - min(qty) AS spread, sum(qty) / count() AS mean FROM ${E}`),
  q('expression', 'round', `SELECT page, round(avg(duration), 2) AS a, round(sum(ratio), 3) AS r FROM ${E} GROUP BY page`),
  q(
    'expression',
    'if-case',
    `SELECT event, if(count() > 1500, 'many', 'few') AS size, CASE WHEN sum(qty) > 5000 THEN 1 ELSE 0 END AS big FROM ${E} GROUP BY event`,
  ),
  q('expression', 'string-funcs', `SELECT concat(event, ':', toString(count())) AS label, lower(upper(any(event))) AS e FROM ${E} GROUP BY event`),
  q('expression', 'ratio', `SELECT event, round(100 * count() / (SELECT count() FROM ${E}), 4) AS pct FROM ${E} GROUP BY event`),
  q('expression', 'nested-agg-expr', `SELECT toDecimal64(sum(amount), 2) AS a, toString(sum(total)) AS t, toInt64(sum(qty)) * -1 AS n FROM ${E}`),
  q('expression', 'date-math', `SELECT toStartOfWeek(day) AS w, count() AS c, max(ts) - min(ts) AS span FROM ${E} GROUP BY w`, { needs: ['toStartOfWeek'] }),
  q(
    'expression',
    'array-funcs',
    `SELECT event, arrayStringConcat(arraySort(groupUniqArray(tag)), ',') AS tags, length(groupUniqArray(page)) AS pages FROM ${E} GROUP BY event`,
  ),
  q('expression', 'tuple-result', `SELECT (min(qty), max(qty)) AS range, tuple(count(), uniqExact(page)) AS t FROM ${E}`),
  q('expression', 'key-expression', `SELECT intDiv(qty, 3) AS bucket, count() AS c FROM ${E} GROUP BY bucket`),
  q('expression', 'group-by-position', `SELECT event, flag, count() AS c FROM ${E} GROUP BY 1, 2`, { needs: ['GROUP BY position'] }),
  q('expression', 'multiif', `SELECT multiIf(qty < 3, 'low', qty < 7, 'mid', 'high') AS band, count() AS c, sum(amount) AS a FROM ${E} GROUP BY band`),
  q('expression', 'agg-in-agg-arg', `SELECT event, max(duration) / greatest(min(duration), 1) AS r FROM ${E} GROUP BY event`),
  q('expression', 'to-type-name', `SELECT toTypeName(sum(amount)) AS t1, toTypeName(avg(qty)) AS t2, toTypeName(uniq(page)) AS t3 FROM ${E}`),
  q('expression', 'sensor-demo', `SELECT site, count() AS c, round(avg(value), 3) AS avg_value FROM ${S} GROUP BY site ORDER BY site`, {
    ordered: true,
    tolerance: ROUNDED_AVG,
  }),

  // ── HAVING ─────────────────────────────────────────────────────────────────────────────────────
  q('having', 'count', `SELECT page, count() AS c FROM ${E} GROUP BY page HAVING c > 270`),
  // HAVING without GROUP BY or an aggregate filters rows, as ClickHouse does.
  q('having', 'rows-only', `SELECT event_id, qty FROM ${E} HAVING event_id < 20 ORDER BY event_id`, { ...o, needs: ['HAVING without aggregation'] }),
  q('having', 'rows-only-alias', `SELECT event_id, qty * 2 AS d FROM ${E} WHERE user_id < 50 HAVING d > 10 ORDER BY event_id LIMIT 30`, {
    ...o,
    needs: ['HAVING without aggregation'],
  }),
  q('having', 'agg-not-selected', `SELECT user_id FROM ${E} GROUP BY user_id HAVING sum(qty) > 300 AND uniqExact(page) > 20`),
  q('having', 'on-key', `SELECT event, sum(qty) AS s FROM ${E} GROUP BY event HAVING event != 'view'`),
  q('having', 'nothing-passes', `SELECT page, count() AS c FROM ${E} GROUP BY page HAVING c > 1000000`),
  q('having', 'avg-decimal', `SELECT tag, avg(amount) AS a FROM ${E} GROUP BY tag HAVING a > 900`),
  q('having', 'without-group', `SELECT count() AS c FROM ${E} HAVING c > 0`),

  // ── ORDER BY / LIMIT / OFFSET / LIMIT BY ───────────────────────────────────────────────────────
  q('order-limit', 'top-pages', `SELECT page, count() AS c FROM ${E} GROUP BY page ORDER BY c DESC, page LIMIT 5`, o),
  q('order-limit', 'offset', `SELECT page, count() AS c FROM ${E} GROUP BY page ORDER BY c DESC, page LIMIT 5 OFFSET 5`, o),
  q('order-limit', 'limit-comma', `SELECT user_id, count() AS c FROM ${E} GROUP BY user_id ORDER BY c DESC, user_id LIMIT 3, 4`, o),
  q('order-limit', 'rows', `SELECT event_id, user_id, page FROM ${E} ORDER BY event_id LIMIT 10`, o),
  q('order-limit', 'rows-desc-offset', `SELECT event_id, amount FROM ${E} ORDER BY amount DESC, event_id LIMIT 7 OFFSET 100`, o),
  q('order-limit', 'limit-by', `SELECT event, page, count() AS c FROM ${E} GROUP BY event, page ORDER BY event, c DESC, page LIMIT 2 BY event`, o),
  q('order-limit', 'limit-by-rows', `SELECT user_id, event_id FROM ${E} WHERE user_id < 30 ORDER BY user_id, event_id DESC LIMIT 1 BY user_id`, o),
  q('order-limit', 'limit-by-offset', `SELECT event, page, count() AS c FROM ${E} GROUP BY event, page ORDER BY event, c DESC, page LIMIT 1, 2 BY event`, {
    ...o,
    needs: ['LIMIT n, m BY'],
  }),
  q(
    'order-limit',
    'limit-by-then-limit',
    `SELECT event, page, count() AS c FROM ${E} GROUP BY event, page ORDER BY event, c DESC, page LIMIT 2 BY event LIMIT 5`,
    o,
  ),
  q('order-limit', 'order-by-agg-not-selected', `SELECT page FROM ${E} GROUP BY page ORDER BY sum(qty) DESC, page LIMIT 4`, o),
  q('order-limit', 'order-by-expression', `SELECT user_id, count() AS c FROM ${E} GROUP BY user_id ORDER BY c % 7, user_id DESC LIMIT 10`, o),
  q('order-limit', 'nulls-first', `SELECT tag, count() AS c FROM ${E} GROUP BY tag ORDER BY tag NULLS FIRST`, o),
  q('order-limit', 'nulls-last-desc', `SELECT tag, sum(qty) AS s FROM ${E} GROUP BY tag ORDER BY tag DESC NULLS LAST`, o),
  q('order-limit', 'limit-zero', `SELECT page, count() AS c FROM ${E} GROUP BY page ORDER BY page LIMIT 0`, o),
  q('order-limit', 'offset-past-end', `SELECT page, count() AS c FROM ${E} GROUP BY page ORDER BY page LIMIT 10 OFFSET 1000`, o),
  q('order-limit', 'order-by-float-specials', `SELECT odd, count() AS c FROM ${E} WHERE NOT isFinite(odd) OR odd = 0 GROUP BY odd ORDER BY odd`, o),
  q('order-limit', 'order-with-collation-free', `SELECT name FROM ${U} ORDER BY name DESC LIMIT 3`, o),
  q('order-limit', 'order-by-decimal', `SELECT credit, user_id FROM ${U} ORDER BY credit, user_id LIMIT 5`, o),
  q('order-limit', 'order-by-tuple', `SELECT event, flag, count() AS c FROM ${E} GROUP BY event, flag ORDER BY (event, flag)`, o),
  q(
    'order-limit',
    'sensor-top-errors',
    `SELECT sensor, count() AS errors FROM ${S} WHERE status = 500 GROUP BY sensor ORDER BY errors DESC, sensor LIMIT 5`,
    o,
  ),

  // ── DISTINCT ───────────────────────────────────────────────────────────────────────────────────
  q('distinct', 'one-column', `SELECT DISTINCT event FROM ${E}`),
  q('distinct', 'two-columns', `SELECT DISTINCT event, flag FROM ${E}`),
  q('distinct', 'nullable', `SELECT DISTINCT tag FROM ${E}`),
  q('distinct', 'ordered-limit', `SELECT DISTINCT page FROM ${E} ORDER BY page LIMIT 5`, o),
  q('distinct', 'on-aggregates', `SELECT DISTINCT count() AS c FROM ${E} GROUP BY flag, event`),
  q('distinct', 'expression', `SELECT DISTINCT toDayOfWeek(day) AS dow FROM ${E}`),
  q('distinct', 'array', `SELECT DISTINCT arraySort(tags) AS t FROM ${E}`),
  q('distinct', 'sensor-sites', `SELECT DISTINCT site, metric FROM ${S}`),

  // ── ROLLUP / CUBE / TOTALS ─────────────────────────────────────────────────────────────────────
  q('rollup-totals', 'rollup', `SELECT event, flag, count() AS c, sum(qty) AS s FROM ${E} GROUP BY event, flag WITH ROLLUP`),
  q('rollup-totals', 'rollup-syntax', `SELECT event, flag, count() AS c FROM ${E} GROUP BY ROLLUP(event, flag)`),
  q('rollup-totals', 'cube', `SELECT event, flag, count() AS c FROM ${E} GROUP BY event, flag WITH CUBE`),
  q(
    'rollup-totals',
    'rollup-min-max-totals',
    `SELECT event, flag, count() AS c, min(qty) AS mn, max(page) AS mx, sum(score) AS s, count(tag) AS ct, sum(total) AS t FROM ${E} GROUP BY event, flag WITH ROLLUP WITH TOTALS`,
  ),
  q('rollup-totals', 'cube-syntax', `SELECT tag, flag, uniqExact(user_id) AS u FROM ${E} GROUP BY CUBE(tag, flag)`),
  q('rollup-totals', 'totals', `SELECT event, count() AS c, avg(qty) AS a FROM ${E} GROUP BY event WITH TOTALS`),
  q('rollup-totals', 'totals-ordered', `SELECT page, count() AS c FROM ${E} GROUP BY page WITH TOTALS ORDER BY c DESC, page LIMIT 3`, o),
  q('rollup-totals', 'totals-having', `SELECT event, sum(qty) AS s FROM ${E} GROUP BY event WITH TOTALS HAVING s > 3000`),
  q('rollup-totals', 'rollup-totals', `SELECT event, flag, count() AS c FROM ${E} GROUP BY event, flag WITH ROLLUP WITH TOTALS`),
  q('rollup-totals', 'rollup-ordered', `SELECT site, metric, count() AS c FROM ${S} GROUP BY site, metric WITH ROLLUP ORDER BY site, metric, c`, o),
  q('rollup-totals', 'grouping-sets', `SELECT event, flag, count() AS c FROM ${E} GROUP BY GROUPING SETS ((event), (flag), ())`, { needs: ['GROUPING SETS'] }),
  q('rollup-totals', 'totals-uniq', `SELECT flag, uniqExact(page) AS u, uniq(user_id) AS v FROM ${E} GROUP BY flag WITH TOTALS`),

  // ── window functions over aggregated results ───────────────────────────────────────────────────
  q('window', 'running-sum', `SELECT day, count() AS c, sum(c) OVER (ORDER BY day) AS running FROM ${E} GROUP BY day ORDER BY day`, { ...o, needs: WINDOW }),
  q(
    'window',
    'sum-agg-over',
    `SELECT day, sum(sum(qty)) OVER (ORDER BY day ROWS BETWEEN 6 PRECEDING AND CURRENT ROW) AS week FROM ${E} GROUP BY day ORDER BY day`,
    { ...o, needs: WINDOW },
  ),
  q('window', 'rank', `SELECT page, count() AS c, rank() OVER (ORDER BY count() DESC) AS r FROM ${E} GROUP BY page ORDER BY r, page`, { ...o, needs: WINDOW }),
  q('window', 'dense-rank-ties', `SELECT qty, count() AS c, dense_rank() OVER (ORDER BY qty % 3) AS r FROM ${E} GROUP BY qty ORDER BY qty`, {
    ...o,
    needs: WINDOW,
  }),
  q(
    'window',
    'row-number-partition',
    `SELECT event, page, count() AS c, row_number() OVER (PARTITION BY event ORDER BY count() DESC, page) AS rn FROM ${E} GROUP BY event, page ORDER BY event, rn`,
    {
      ...o,
      needs: WINDOW,
    },
  ),
  q(
    'window',
    'lag-in-frame',
    `SELECT day, count() AS c, lagInFrame(count()) OVER (ORDER BY day ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS prev FROM ${E} GROUP BY day ORDER BY day`,
    { ...o, needs: WINDOW },
  ),
  q(
    'window',
    'lead-in-frame',
    `SELECT event, count() AS c, leadInFrame(count(), 1, 0) OVER (ORDER BY event ROWS BETWEEN CURRENT ROW AND 1 FOLLOWING) AS nxt FROM ${E} GROUP BY event ORDER BY event`,
    {
      ...o,
      needs: WINDOW,
    },
  ),
  q('window', 'share-of-total', `SELECT event, count() AS c, c / sum(c) OVER () AS share FROM ${E} GROUP BY event ORDER BY event`, { ...o, needs: WINDOW }),
  q(
    'window',
    'partition-avg',
    `SELECT site, metric, count() AS c, avg(count()) OVER (PARTITION BY site) AS a FROM ${S} GROUP BY site, metric ORDER BY site, metric`,
    { ...o, needs: WINDOW },
  ),
  q(
    'window',
    'first-last-value',
    `SELECT flag, event, count() AS c, first_value(event) OVER w AS f, last_value(event) OVER w AS l FROM ${E} GROUP BY flag, event WINDOW w AS (PARTITION BY flag ORDER BY count() DESC ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) ORDER BY flag, event`,
    {
      ...o,
      needs: WINDOW,
    },
  ),
  q(
    'window',
    'ntile-percent',
    `SELECT page, count() AS c, ntile(4) OVER (ORDER BY count(), page) AS q, percent_rank() OVER (ORDER BY count()) AS pr FROM ${E} GROUP BY page ORDER BY page`,
    {
      ...o,
      needs: WINDOW,
    },
  ),
  q(
    'window',
    'top-per-group',
    `SELECT * FROM (SELECT event, page, count() AS c, rank() OVER (PARTITION BY event ORDER BY count() DESC) AS r FROM ${E} GROUP BY event, page) WHERE r <= 2 ORDER BY event, r, page`,
    {
      ...o,
      needs: WINDOW,
    },
  ),
  q(
    'window',
    'over-decimal',
    `SELECT day, sum(amount) AS a, sum(sum(amount)) OVER (ORDER BY day) AS cum FROM ${E} WHERE day < '2024-04-15' GROUP BY day ORDER BY day`,
    { ...o, needs: WINDOW },
  ),

  // ── constant tables inside a distributed query: every shard computes them from the SQL ───────
  q('in', 'in-numbers', `SELECT count() AS c FROM ${E} WHERE user_id IN (SELECT toUInt32(number) FROM numbers(10, 40))`),
  q('in', 'not-in-numbers-step', `SELECT count() AS c FROM ${E} WHERE user_id NOT IN (SELECT toUInt32(number) FROM numbers(0, 500, 3))`, {
    needs: ['numbers with a step'],
  }),
  q(
    'in',
    'in-values',
    `SELECT user_id, count() AS c FROM ${E} WHERE user_id IN (SELECT u FROM values('u UInt32', 1, 2, 3, 5, 8)) GROUP BY user_id ORDER BY user_id`,
    { ...o, needs: ['values()'] },
  ),
  q(
    'subquery',
    'join-numbers',
    `SELECT n.number AS n, count() AS c FROM ${E} AS e JOIN (SELECT number FROM numbers(6)) AS n ON e.user_id = n.number GROUP BY n ORDER BY n`,
    { ...o, needs: ['JOIN keys of different types'] },
  ),
  q('subquery', 'scalar-numbers', `SELECT count() AS c, (SELECT sum(number) FROM numbers(10)) AS s FROM ${E}`),
  q('subquery', 'scalar-zeros', `SELECT count() * (SELECT count() FROM zeros(3)) AS c FROM ${E} WHERE user_id < 100`, { needs: ['zeros()'] }),
  q('subquery', 'in-system-one', `SELECT count() AS c FROM ${E} WHERE toUInt8(user_id % 2) IN (SELECT dummy FROM system.one)`),
  q('expression', 'current-database', `SELECT currentDatabase() AS db, database() AS d2, count() AS c FROM ${E}`, { needs: ['database()'] }),

  // ── subqueries in FROM ─────────────────────────────────────────────────────────────────────────
  q('subquery', 'outer-agg', `SELECT avg(c) AS a, max(c) AS m FROM (SELECT user_id, count() AS c FROM ${E} GROUP BY user_id)`),
  q('subquery', 'outer-filter', `SELECT count() AS users FROM (SELECT user_id, sum(qty) AS s FROM ${E} GROUP BY user_id) WHERE s > 100`),
  q('subquery', 'outer-group', `SELECT c, count() AS n FROM (SELECT user_id, count() AS c FROM ${E} GROUP BY user_id) GROUP BY c ORDER BY c`, o),
  q(
    'subquery',
    'nested-twice',
    `SELECT max(n) AS m FROM (SELECT event, count() AS n FROM (SELECT event, user_id FROM ${E} GROUP BY event, user_id) GROUP BY event)`,
  ),
  q('subquery', 'rows-inner-limit', `SELECT sum(qty) AS s FROM (SELECT qty FROM ${E} ORDER BY event_id LIMIT 100)`),
  q('subquery', 'alias-table', `SELECT t.event, t.c FROM (SELECT event, count() AS c FROM ${E} GROUP BY event) AS t ORDER BY t.event`, o),
  q('subquery', 'outer-uniq-of-inner', `SELECT uniqExact(page) AS pages FROM (SELECT page FROM ${E} WHERE qty = 10)`),
  q('subquery', 'users-in-subquery', `SELECT country, count() AS n FROM (SELECT country, user_id FROM ${U} WHERE age IS NOT NULL) GROUP BY country`),
  q('subquery', 'scalar-subquery', `SELECT page, count() AS c FROM ${E} GROUP BY page HAVING c > (SELECT count() / 30 FROM ${E})`),
  q('subquery', 'scalar-in-where', `SELECT page, count() AS c FROM ${E} WHERE qty > (SELECT avg(qty) FROM ${E}) GROUP BY page`),
  q('subquery', 'scalar-in-key', `SELECT qty > (SELECT avg(qty) FROM ${E}) AS above, count() AS c FROM ${E} GROUP BY above ORDER BY above`, {
    ...o,
    notDistributed18:
      "18.16's Distributed engine puts the scalar's value into the shard query, then looks for the column under the subquery's name (Not found column ... _subquery<N> in block)",
  }),
  q('subquery', 'scalar-in-aggregate', `SELECT count() AS c, countIf(duration * 10 > (SELECT max(value) FROM ${S})) AS a FROM ${E}`, {
    notDistributed18:
      "18.16's Distributed engine puts the scalar's value into the shard query, then looks for the column under the subquery's name (Not found column ... _subquery<N> in block)",
  }),
  q('subquery', 'scalar-no-rows', `SELECT count() AS c FROM ${E} WHERE qty > (SELECT qty FROM ${E} WHERE qty > 1000000 LIMIT 1)`),
  q('subquery', 'scalar-tuple', `SELECT count() AS c FROM ${E} WHERE (event, flag) = (SELECT event, flag FROM ${E} ORDER BY event_id LIMIT 1)`),
  q('subquery', 'sensor-outer', `SELECT metric, max(c) AS peak FROM (SELECT metric, sensor, count() AS c FROM ${S} GROUP BY metric, sensor) GROUP BY metric`),

  // ── WITH ───────────────────────────────────────────────────────────────────────────────────────
  q('with', 'expr-alias', `WITH 5 AS threshold SELECT count() AS c FROM ${E} WHERE qty > threshold`),
  q('with', 'expr-function', `WITH toStartOfMonth(day) AS month SELECT month, count() AS c FROM ${E} GROUP BY month ORDER BY month`, o),
  q('with', 'scalar-subquery', `WITH (SELECT max(qty) FROM ${E}) AS top SELECT count() AS c FROM ${E} WHERE qty = top`),
  q('with', 'cte', `WITH per_user AS (SELECT user_id, count() AS c FROM ${E} GROUP BY user_id) SELECT max(c) AS m, count() AS n FROM per_user`, {
    needs: ['WITH name AS (subquery)'],
  }),
  q('with', 'cte-twice', `WITH p AS (SELECT page, count() AS c FROM ${E} GROUP BY page) SELECT page, c FROM p WHERE c = (SELECT max(c) FROM p)`, {
    needs: ['WITH name AS (subquery)'],
  }),
  q('with', 'cte-two-tables', `WITH u AS (SELECT user_id FROM ${U} WHERE plan = 'pro') SELECT count() AS c FROM ${E} WHERE user_id IN u`, {
    needs: ['WITH name AS (subquery)'],
    placementDependent: LOCAL_IN,
  }),
  q('with', 'expr-aggregate', `WITH sum(qty) AS s, count() AS c SELECT event, s, c, s / c AS mean FROM ${E} GROUP BY event`),
  q('with', 'array-constant', `WITH ['view', 'buy'] AS wanted SELECT event, count() AS c FROM ${E} WHERE has(wanted, event) GROUP BY event`),

  // ── UNION ──────────────────────────────────────────────────────────────────────────────────────
  q('union', 'all-scalars', `SELECT 'events' AS t, count() AS c FROM ${E} UNION ALL SELECT 'users' AS t, count() AS c FROM ${U}`),
  q('union', 'all-grouped', `SELECT event AS k, count() AS c FROM ${E} GROUP BY event UNION ALL SELECT site AS k, count() AS c FROM ${S} GROUP BY site`, {
    needs: ['a supertype of LowCardinality(String) and String'],
  }),
  q('union', 'distinct', `SELECT user_id FROM ${E} WHERE qty = 10 UNION DISTINCT SELECT user_id FROM ${U} WHERE age = 30`, { needs: ['UNION DISTINCT'] }),
  q(
    'union',
    'all-ordered-outer',
    `SELECT * FROM (SELECT page AS k, count() AS c FROM ${E} GROUP BY page UNION ALL SELECT country AS k, count() AS c FROM ${U} GROUP BY country) ORDER BY c DESC, k LIMIT 5`,
    { ...o, needs: ['a supertype of LowCardinality(String) and String'] },
  ),
  q(
    'union',
    'all-same-table',
    `SELECT 'buy' AS e, sum(qty) AS s FROM ${E} WHERE event = 'buy' UNION ALL SELECT 'cart' AS e, sum(qty) AS s FROM ${E} WHERE event = 'cart'`,
  ),
  q('union', 'distinct-rows', `SELECT event FROM ${E} UNION DISTINCT SELECT 'view'`, { needs: ['UNION DISTINCT'] }),
  q(
    'union',
    'all-three',
    `SELECT 'e' AS t, uniqExact(user_id) AS u FROM ${E} UNION ALL SELECT 'u' AS t, uniqExact(user_id) AS u FROM ${U} UNION ALL SELECT 's' AS t, uniqExact(sensor) AS u FROM ${S}`,
  ),

  // ── syntax the dashboards send ─────────────────────────────────────────────────────────────────
  q('syntax', 'extract', `SELECT EXTRACT(HOUR FROM ts) AS h, count() AS c FROM ${E} GROUP BY h ORDER BY h`, o),
  q('syntax', 'extract-minute', `SELECT EXTRACT(MINUTE FROM ts) AS m, count() AS c FROM ${S} GROUP BY m ORDER BY m`, o),
  q(
    'syntax',
    'extract-day-month',
    `SELECT EXTRACT(MONTH FROM day) AS m, EXTRACT(DAY FROM day) AS d, count() AS c FROM ${E} WHERE day < '2024-04-05' GROUP BY m, d ORDER BY m, d`,
    o,
  ),
  q('syntax', 'interval', `SELECT count() AS c FROM ${E} WHERE ts >= toDateTime('2024-05-01 00:00:00', 'Europe/Berlin') - INTERVAL 1 DAY`),
  q('syntax', 'case-simple', `SELECT CASE event WHEN 'view' THEN 1 WHEN 'buy' THEN 3 ELSE 2 END AS w, count() AS c FROM ${E} GROUP BY w`),
  q('syntax', 'between', `SELECT count() AS c FROM ${E} WHERE qty BETWEEN 3 AND 5`),
  q('syntax', 'like', `SELECT count() AS c FROM ${E} WHERE page LIKE '/p/1%'`),
  q('syntax', 'cast', `SELECT CAST(sum(qty) AS String) AS s, CAST(flag AS Nullable(UInt8)) AS f FROM ${E} GROUP BY flag`),
  q('syntax', 'ternary-lambda', `SELECT arrayMap(x -> x * 2, [min(qty), max(qty)]) AS a, count() > 0 ? 'y' : 'n' AS b FROM ${E}`),
  q('syntax', 'tz-convert', `SELECT toHour(toTimeZone(ts, 'Asia/Tokyo')) AS h, count() AS c FROM ${E} GROUP BY h`),
  q('syntax', 'date-trunc', `SELECT date_trunc('month', day) AS m, count() AS c FROM ${E} GROUP BY m`, { needs: ['date_trunc'] }),
  q('syntax', 'prewhere', `SELECT count() AS c FROM ${E} PREWHERE flag = 1 WHERE qty > 5`),
  q('syntax', 'array-join', `SELECT t, count() AS c FROM ${E} ARRAY JOIN tags AS t GROUP BY t`),
  q('syntax', 'sample-free-final-free', `SELECT count() AS c FROM ${E} WHERE event_id % 2 = 0`),

  // ── IN / GLOBAL IN ─────────────────────────────────────────────────────────────────────────────
  q('in', 'literal-key', `SELECT count() AS c, sum(qty) AS s FROM ${E} WHERE user_id IN (1, 2, 3, 1700)`, { placementDependent: PRUNE }),
  q('in', 'literal-non-key', `SELECT count() AS c FROM ${E} WHERE page IN ('/p/1', '/p/2')`),
  q('in', 'same-table-subquery', `SELECT count() AS c FROM ${E} WHERE user_id IN (SELECT user_id FROM ${E} WHERE event = 'buy')`, {
    placementDependent: LOCAL_IN,
  }),
  q('in', 'global-same-table', `SELECT count() AS c FROM ${E} WHERE user_id GLOBAL IN (SELECT user_id FROM ${E} WHERE event = 'buy')`),
  q('in', 'other-table-same-key', `SELECT event, count() AS c FROM ${E} WHERE user_id IN (SELECT user_id FROM ${U} WHERE plan = 'team') GROUP BY event`, {
    placementDependent: LOCAL_IN,
  }),
  q('in', 'global-other-table', `SELECT event, count() AS c FROM ${E} WHERE user_id GLOBAL IN (SELECT user_id FROM ${U} WHERE country = 'jp') GROUP BY event`),
  q('in', 'global-non-key', `SELECT count() AS c FROM ${E} WHERE page GLOBAL IN (SELECT page FROM ${E} GROUP BY page HAVING count() > 270)`),
  q('in', 'global-different-key', `SELECT site, count() AS c FROM ${S} WHERE sensor GLOBAL IN (SELECT sensor FROM ${S} WHERE status = 500) GROUP BY site`),
  q('in', 'not-in', `SELECT count() AS c FROM ${E} WHERE user_id GLOBAL NOT IN (SELECT user_id FROM ${U})`),
  q('in', 'not-in-local-same-key', `SELECT count() AS c FROM ${U} WHERE user_id NOT IN (SELECT user_id FROM ${E})`, { placementDependent: LOCAL_IN }),
  q('in', 'tuple-in', `SELECT count() AS c FROM ${E} WHERE (event, flag) IN (('buy', 1), ('view', 0))`),
  q('in', 'in-having', `SELECT user_id, count() AS c FROM ${E} GROUP BY user_id HAVING user_id GLOBAL IN (SELECT user_id FROM ${U} WHERE age > 75)`),
  q(
    'in',
    'in-having-non-key',
    `SELECT qty % 7 AS r, count() AS c FROM ${E} GROUP BY r HAVING r GLOBAL IN (SELECT toInt8(ifNull(age, 0) % 7) FROM ${U} WHERE age > 60) ORDER BY r`,
    o,
  ),
  q('in', 'in-select-list', `SELECT user_id GLOBAL IN (SELECT user_id FROM ${U} WHERE plan = 'pro') AS pro, count() AS c FROM ${E} GROUP BY pro`),
  q('in', 'empty-subquery', `SELECT count() AS c FROM ${E} WHERE user_id GLOBAL IN (SELECT user_id FROM ${U} WHERE age > 200)`),

  // ── NULL handling ──────────────────────────────────────────────────────────────────────────────
  q('nulls', 'group-by-nullable', `SELECT tag, count() AS c, sum(score) AS s FROM ${E} GROUP BY tag`),
  q('nulls', 'is-null', `SELECT countIf(tag IS NULL) AS a, countIf(score IS NULL) AS b, countIf(ratio IS NULL) AS c FROM ${E}`),
  q('nulls', 'agg-skips-null', `SELECT avg(score) AS a, min(score) AS b, max(ratio) AS c, uniqExact(tag) AS d FROM ${E}`),
  q('nulls', 'coalesce', `SELECT coalesce(tag, '(none)') AS t, count() AS c FROM ${E} GROUP BY t`),
  q('nulls', 'all-null-group', `SELECT event, sum(score) AS s, avg(ratio) AS r FROM ${E} WHERE score IS NULL AND ratio IS NULL GROUP BY event`),
  q('nulls', 'null-key-users', `SELECT plan, count() AS c, avg(age) AS a FROM ${U} GROUP BY plan`),
  q('nulls', 'if-null', `SELECT ifNull(plan, 'none') AS p, countIf(age IS NULL) AS no_age FROM ${U} GROUP BY p`),
  q('nulls', 'null-in-array', `SELECT arraySort(groupArray(age)) AS ages FROM ${U} WHERE user_id <= 20`),
  q('nulls', 'null-literal', `SELECT NULL AS n, count() AS c FROM ${E}`),
  q('nulls', 'nullable-sum-all-null', `SELECT sum(score) AS s, max(tag) AS t FROM ${E} WHERE score IS NULL AND tag IS NULL`),
  q(
    'nulls',
    'all-null-min-max',
    `SELECT min(score) AS a, max(score) AS b, sum(score) AS s, count(score) AS n, min(tag) AS t, countIf(tag IS NULL) AS tn, count() AS c FROM ${E} WHERE score IS NULL`,
  ),
  q(
    'nulls',
    'nothing-nullable-min-max',
    `SELECT min(score) AS a, max(tag) AS b, sum(score) AS s, count(score) AS n, min(qty) AS q, count() AS c FROM ${E} WHERE qty > 100`,
  ),
  q('nulls', 'arg-max-nullable', `SELECT event, argMax(tag, event_id) AS t FROM ${E} GROUP BY event`),
  q('nulls', 'float-specials', `SELECT countIf(isNaN(odd)) AS nans, countIf(isInfinite(odd)) AS infs, sum(odd) AS s, max(odd) AS mx FROM ${E}`),
  q('nulls', 'float-specials-grouped', `SELECT page, sum(odd) AS s, countIf(isNaN(odd)) AS n FROM ${E} GROUP BY page`),
  q('nulls', 'neg-zero', `SELECT countIf(odd = 0) AS zeros, sum(odd) AS s FROM ${E} WHERE odd = 0`),

  // ── ties ───────────────────────────────────────────────────────────────────────────────────────
  q('ties', 'many-equal-counts', `SELECT qty, count() AS c FROM ${E} GROUP BY qty ORDER BY qty`, o),
  q('ties', 'order-by-tied-then-key', `SELECT flag, event, count() AS c FROM ${E} GROUP BY flag, event ORDER BY flag, c DESC, event`, o),
  q('ties', 'min-max-ties', `SELECT event, min(qty) AS mn, max(qty) AS mx, countIf(qty = 10) AS at_max FROM ${E} GROUP BY event`),
  q('ties', 'limit-tied-broken', `SELECT user_id, count() AS c FROM ${E} GROUP BY user_id ORDER BY c, user_id LIMIT 12`, o),
  q('ties', 'with-ties', `SELECT qty, count() AS c FROM ${E} GROUP BY qty ORDER BY qty % 2 LIMIT 3 WITH TIES`, { needs: ['LIMIT WITH TIES'] }),
  q('ties', 'dense-values', `SELECT page, uniqExact(qty) AS u FROM ${E} GROUP BY page`),
  q('ties', 'tied-distinct-order', `SELECT DISTINCT qty FROM ${E} ORDER BY qty DESC`, o),

  // ── empty results ──────────────────────────────────────────────────────────────────────────────
  q('empty', 'scalar-over-nothing', `SELECT count() AS c, sum(qty) AS s, avg(qty) AS a, min(page) AS m, uniq(user_id) AS u FROM ${E} WHERE qty > 100`),
  q('empty', 'grouped-nothing', `SELECT page, count() AS c FROM ${E} WHERE qty > 100 GROUP BY page`),
  q('empty', 'rows-nothing', `SELECT event_id, page FROM ${E} WHERE 0`),
  q('empty', 'quantile-nothing', `SELECT quantile(0.5)(duration) AS q, quantileExact(qty) AS e, groupArray(page) AS g FROM ${E} WHERE qty > 100`),
  q('empty', 'totals-nothing', `SELECT event, count() AS c FROM ${E} WHERE qty > 100 GROUP BY event WITH TOTALS`),
  q('empty', 'decimal-nothing', `SELECT sum(amount) AS a, max(total) AS t FROM ${E} WHERE qty > 100`),
  q('empty', 'key-pruned-nothing', `SELECT count() AS c FROM ${E} WHERE user_id = 999999`, { placementDependent: PRUNE }),

  // ── the empty shard (the sensor table has no row on shard 3) ───────────────────────────────────
  q('empty-shard', 'count', `SELECT count() AS c, uniqExact(sensor) AS s FROM ${S}`),
  q('empty-shard', 'group', `SELECT metric, count() AS c, min(value) AS mn, max(value) AS mx FROM ${S} GROUP BY metric`),
  q('empty-shard', 'quantiles', `SELECT metric, quantiles(0.5, 0.9)(value) AS q FROM ${S} GROUP BY metric`),
  q('empty-shard', 'rows', `SELECT ts, sensor, value FROM ${S} ORDER BY ts, sensor LIMIT 5`, o),
  q('empty-shard', 'uniq', `SELECT site, uniq(sensor) AS u, uniqCombined(sensor) AS c FROM ${S} GROUP BY site`),
  q('empty-shard', 'argmax', `SELECT sensor, argMax(value, ts) AS last, max(ts) AS at FROM ${S} GROUP BY sensor`),
  q('empty-shard', 'status-totals', `SELECT status, count() AS c FROM ${S} GROUP BY status WITH TOTALS`),
  q('empty-shard', 'distinct-sensors', `SELECT DISTINCT sensor FROM ${S}`),
  // count/sum/min/max without group keys: a shard that saw no rows must not lend its default min/max
  q(
    'empty-shard',
    'scalar-min-max',
    `SELECT min(sensor) AS s, max(site) AS mx, min(ts) AS t, min(status + 1) AS st, count() AS c, sum(status) AS total FROM ${S}`,
  ),
  q('empty-shard', 'scalar-min-max-totals', `SELECT min(sensor) AS s, max(ts) AS t, count() AS c FROM ${S} WITH TOTALS`),
  q(
    'empty-shard',
    'one-row-min-max',
    `SELECT min(qty + 100) AS mn, max(qty - 100) AS mx, min(page) AS p, min(ts) AS t, min(score) AS sc, max(tag) AS tg, sum(score) AS ss, count(score) AS cs, sum(amount) AS a, min(total) AS tt, count() AS c FROM ${E} WHERE event_id = 1000000134623`,
  ),

  // ── value types as they come back ──────────────────────────────────────────────────────────────
  q('types', 'low-cardinality', `SELECT event, toTypeName(event) AS t, count() AS c FROM ${E} GROUP BY event`),
  q('types', 'lc-users', `SELECT country, count() AS c, sum(credit) AS cr FROM ${U} GROUP BY country`),
  q('types', 'datetime-tz', `SELECT toDate(ts) AS d, min(ts) AS first, max(ts) AS last FROM ${E} WHERE user_id < 50 GROUP BY d`),
  q('types', 'datetime-ny', `SELECT toStartOfDay(last_seen) AS d, count() AS c FROM ${U} GROUP BY d`),
  q('types', 'datetime64', `SELECT toStartOfHour(ts_ms) AS h, count() AS c, max(ts_ms) AS m FROM ${E} WHERE user_id < 20 GROUP BY h`, {
    needs: ['DateTime64'],
  }),
  q('types', 'decimal-arith', `SELECT sum(amount * 2) AS a, sum(amount) / 3 AS b, sum(total) - sum(amount) AS c FROM ${E}`),
  q('types', 'decimal-grouped', `SELECT plan, sum(credit) AS s, min(credit) AS mn, max(credit) AS mx FROM ${U} GROUP BY plan`),
  q(
    'types',
    'decimal-sums-some-shards',
    `SELECT sum(amount) AS a, sum(total) AS t, sumIf(total, qty > 5) AS ti, min(amount) AS mn, max(total) AS mx, count() AS c FROM ${E} WHERE user_id > 1700`,
  ),
  q('types', 'int64-big', `SELECT max(event_id) AS a, sum(event_id) AS b, min(score) AS c, max(score) AS d FROM ${E}`),
  q('types', 'uint64-wrap', `SELECT sum(toUInt64(score + 1000000000000000)) AS s FROM ${E} WHERE score IS NOT NULL`),
  q('types', 'float32', `SELECT max(ratio) AS a, min(ratio) AS b, toFloat32(sum(ratio)) AS c FROM ${E}`),
  q('types', 'arrays', `SELECT flag, arraySort(groupArray(length(tags))) AS l FROM ${E} WHERE user_id < 5 GROUP BY flag`),
  q('types', 'array-of-nullable', `SELECT event, arraySort(groupUniqArray(tag)) AS t FROM ${E} GROUP BY event`),
  q('types', 'date', `SELECT day, count() AS c FROM ${E} GROUP BY day`),
  q('types', 'string-escapes', `SELECT concat(event, '\\t', page, '\\n') AS s, count() AS c FROM ${E} WHERE user_id < 10 GROUP BY s`),
  q('types', 'uint8-bool', `SELECT flag = 1 AS b, count() AS c FROM ${E} GROUP BY b`),

  // ── plain reads (no aggregate) ─────────────────────────────────────────────────────────────────
  q('plain', 'where-key', `SELECT event_id, page, amount FROM ${E} WHERE user_id = 42`, { placementDependent: PRUNE }),
  q('plain', 'where-non-key', `SELECT event_id, user_id FROM ${E} WHERE page = '/p/7' AND qty = 10 AND flag = 1`),
  q('plain', 'all-users', `SELECT * FROM ${U} WHERE user_id % 100 = 0`),
  q('plain', 'star-events', `SELECT * FROM ${E} WHERE user_id = 7`, { placementDependent: PRUNE }),
  q('plain', 'expressions', `SELECT event_id, qty * 2 AS q2, toString(amount) AS a, tags[1] AS t1 FROM ${E} WHERE user_id = 3`, { placementDependent: PRUNE }),
  q('plain', 'sensor-one', `SELECT * FROM ${S} WHERE sensor = 's-1' ORDER BY ts LIMIT 10`, { ...o, placementDependent: PRUNE }),
];
