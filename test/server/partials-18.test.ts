// The shard SQL of every aggregate family runs on Debian's clickhouse-server 18.16 (the oldest
// engine we target: no xxHash64, maxMap, bitCount or maxMapIf), and merging the partials of two
// shard tables equals the same query on one table holding every row — on that same server.
// HLL uses the 'uniqArray' encoding here (18.16 lacks maxMap); topK the default 'hashed' encoding
// (18.16's sumMap takes numeric keys only). One server through
// test/support/ch-servers.ts: HTTP 19452, TCP 19502 (this file's own range).
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createHttpAccess } from '../../shared/adapters/clickhouse/http.js';
import type { ClickHouseAccess } from '../../shared/core/clickhouse/port.js';
import { splitQuery, HLL_RSE, DDSKETCH_ALPHA } from '../../shared/core/partials/index.js';
import { parseSelect, printSelect } from '../../shared/core/sql/index.js';
import type { SelectQuery } from '../../shared/core/sql/ast.js';
import { ADMIN, useChServers } from '../support/ch-servers.js';

const servers = useChServers({ n: 1, portBase: 19452 });
let ch: ClickHouseAccess;

// Runs after useChServers' beforeAll (hooks run in the order registered), so the server answers.
beforeAll(async () => {
  ch = createHttpAccess({ url: servers.current.urls[0]! });
  const admin = createHttpAccess({ url: servers.current.urls[0]!, ...ADMIN });
  for (const t of ['t_all', 't_0', 't_1', 't_2']) {
    await admin.exec(`CREATE TABLE ${t} (g String, k UInt16, x Int32, y Nullable(Int64), z Float64) ENGINE = MergeTree() ORDER BY tuple()`);
  }
  let seed = 7;
  const r = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const rows = Array.from({ length: 3000 }, () => ({
    g: `g${Math.floor(r() * r() * 30)}`,
    k: Math.floor(r() * r() * 200),
    x: Math.floor(r() * 2000) - 1000,
    y: r() < 0.2 ? null : String(Math.floor(r() * 1e9)),
    z: Math.floor(r() * 100000) / 16,
  }));
  await admin.insert('t_all', rows);
  // t_2 stays empty.
  await admin.insert(
    't_0',
    rows.filter((_r, i) => i % 3 === 0),
  );
  await admin.insert(
    't_1',
    rows.filter((_r, i) => i % 3 !== 0),
  );
  await admin.close();
}, 60_000);

afterAll(async () => {
  await ch?.close();
});

function onTable(q: SelectQuery, table: string): string {
  const c = structuredClone(q);
  if (c.from && c.from.table.kind === 'table') c.from.table = { kind: 'table', table };
  return printSelect(c);
}

async function both(sql: string) {
  const q = parseSelect(sql) as SelectQuery;
  const split = splitQuery(q, { shardCount: 3, shardSizeFactor: 1.5, shardSizeAdd: 10, maxRowsToTransfer: 1e6, hllEncoding: 'uniqArray' });
  const m = split.createMerger();
  for (const s of [2, 1, 0]) {
    const res = await ch.query(onTable(split.shardQuery, `t_${s}`), { settings: QUOTED });
    m.add(s, res.rows, res.meta);
  }
  // In the answer's spellings (nan/inf as strings); NaN's sign is not kept (docs/architecture.md#the-value-model).
  const single = await ch.query(onTable(q, 't_all'), { settings: QUOTED });
  single.rows = single.rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v === '-nan' ? 'nan' : v])));
  return { got: m.finalize(), single };
}

/** nan/inf as strings, as the shard function asks (shared/core/shard/execute.ts). */
const QUOTED = { output_format_json_quote_denormals: 1 };

const EXACT = [
  'SELECT count(), sum(x), min(x), max(x), avg(x), count(y), sum(y), min(y), max(y), avg(y) FROM t',
  'SELECT g, count() AS c, sum(z), min(g), any(k) * 0, argMin(k, z), argMax(x, z) FROM t GROUP BY g ORDER BY g',
  'SELECT g, countIf(x > 0) AS a, sumIf(y, x < 0) AS b, minIf(x, k = 3) AS cc, maxIf(z, k > 100) AS d, avgIf(x, k < 5) AS e FROM t GROUP BY g ORDER BY g',
  'SELECT k, uniqExact(g) AS u, count() AS c FROM t GROUP BY k ORDER BY c DESC, k LIMIT 5',
  'SELECT g, count() AS c FROM t GROUP BY g HAVING c > 50 ORDER BY g',
  'SELECT x, g, z FROM t ORDER BY x DESC, g, z LIMIT 7',
  'SELECT g, quantileExact(0.5)(x) AS q, quantilesExact(0.1, 0.9)(y) AS qs FROM t GROUP BY g ORDER BY g',
  'SELECT DISTINCT g FROM t ORDER BY g LIMIT 4',
  'SELECT g, k, count() AS c FROM t GROUP BY g, k ORDER BY g, k LIMIT 2 BY g',
];

test('18.16: cursor pages (the after-predicate) equal one long page', async () => {
  const sql = 'SELECT x, g, z, y FROM t ORDER BY y DESC, x, g, z LIMIT 25';
  const q = parseSelect(sql) as SelectQuery;
  const want = (await ch.query('SELECT x, g, z, y FROM t_all ORDER BY y DESC, x, g, z LIMIT 100')).rows;
  const got: Record<string, unknown>[] = [];
  let cursor: string | undefined;
  for (let p = 0; p < 4; p++) {
    const split = splitQuery(q, { shardCount: 3, shardSizeFactor: 1.5, shardSizeAdd: 10, maxRowsToTransfer: 1e6, ...(cursor ? { cursor } : {}) });
    const m = split.createMerger();
    for (const s of [0, 1, 2]) {
      const res = await ch.query(onTable(split.shardQuery, `t_${s}`));
      m.add(s, res.rows, res.meta);
    }
    const page = m.finalize();
    got.push(...page.data);
    cursor = page.cursor;
    expect(cursor).toBeTypeOf('string');
  }
  expect(got.map((r) => Object.values(r).map(String))).toEqual(want.map((r) => Object.values(r).map(String)));
});

test.each(EXACT)('18.16: %s', async (sql) => {
  const { got, single } = await both(sql);
  expect(got.data.length).toBe(single.rows.length);
  // 18.16 names and types some columns differently (e.g. countIf(x, c) is Nullable there): compare values by position.
  got.data.forEach((row, i) => {
    const a = Object.values(row);
    const b = Object.values(single.rows[i]!);
    expect(a.map(String)).toEqual(b.map(String));
  });
});

test('18.16: HLL (uniqArray encoding) within its error, DDSketch quantiles within alpha, topK over numbers', async () => {
  const { got, single } = await both('SELECT uniq(k) AS u, uniqCombined(x) AS u2, quantile(0.9)(x) AS q, median(z) AS m, topK(3)(k) AS t FROM t');
  const exact = (await ch.query('SELECT uniqExact(k) AS u, uniqExact(x) AS u2, quantileExact(0.9)(x) AS q, arraySort(groupArray(z)) AS zs FROM t_all'))
    .rows[0]!;
  const row = got.data[0]!;
  expect(Math.abs(Number(row.u) - Number(exact.u))).toBeLessThanOrEqual(4 * HLL_RSE * Number(exact.u) + 1);
  expect(Math.abs(Number(row.u2) - Number(exact.u2))).toBeLessThanOrEqual(4 * HLL_RSE * Number(exact.u2) + 1);
  // quantile(0.9) of 3000 ints: between the neighbours at rank 0.9 * 2999, within alpha.
  const xs = (await ch.query('SELECT arraySort(groupArray(x)) AS xs FROM t_all')).rows[0]!.xs as number[];
  const r = 0.9 * (xs.length - 1);
  const lo = xs[Math.floor(r)]!;
  const hi = xs[Math.ceil(r)]!;
  expect(Number(row.q)).toBeGreaterThanOrEqual(lo - DDSKETCH_ALPHA * Math.abs(lo) - 1e-9);
  expect(Number(row.q)).toBeLessThanOrEqual(hi + DDSKETCH_ALPHA * Math.abs(hi) + 1e-9);
  const zs = exact.zs as number[];
  const mz = (zs[Math.floor((zs.length - 1) / 2)]! + zs[Math.ceil((zs.length - 1) / 2)]!) / 2;
  expect(Math.abs(Number(row.m) - mz)).toBeLessThanOrEqual(DDSKETCH_ALPHA * Math.abs(mz) + 1e-9);
  // topK: the three most frequent k (skewed toward 0) with exact counts here (few distinct values per shard).
  const top = (await ch.query('SELECT k, count() AS c FROM t_all GROUP BY k ORDER BY c DESC, k LIMIT 3')).rows.map((x) => x.k);
  expect(row.t).toEqual(top);
  expect(single.rows.length).toBe(1);
});

test('18.16: topK over String values (hashed encoding: sumMap over cityHash64, values matched back on the shard)', async () => {
  const { got } = await both('SELECT g, topK(2)(toString(k)) AS tk, count() AS c FROM t GROUP BY g ORDER BY g');
  const whole = await both('SELECT topK(4)(g) AS t, topKIf(3)(g, x > 0) AS ti FROM t');
  // The truth on one table: most frequent first, ties by the smaller value (our documented tie rule).
  const truth = async (sql: string) => (await ch.query(sql)).rows.map((r) => r.v);
  expect(whole.got.data[0]!.t).toEqual(await truth('SELECT g AS v, count() AS n FROM t_all GROUP BY g ORDER BY n DESC, g LIMIT 4'));
  expect(whole.got.data[0]!.ti).toEqual(await truth('SELECT g AS v, count() AS n FROM t_all WHERE x > 0 GROUP BY g ORDER BY n DESC, g LIMIT 3'));
  const perGroup = (await ch.query('SELECT g, k, count() AS n FROM t_all GROUP BY g, k ORDER BY g, n DESC, toString(k)')).rows;
  expect(got.data.length).toBeGreaterThan(5);
  for (const row of got.data) {
    const rows = perGroup.filter((r) => r.g === row.g);
    const tk = row.tk as string[];
    expect(tk.length).toBe(Math.min(2, rows.length));
    // Within the shard_size cut (15 per shard, few distinct k per g here counts are exact): each
    // returned value's count is at least that of every value left out.
    const count = (v: string) => Number(rows.find((r) => String(r.k) === v)!.n);
    const minIn = Math.min(...tk.map(count));
    const maxOut = Math.max(0, ...rows.filter((r) => !tk.includes(String(r.k))).map((r) => Number(r.n)));
    const bound = Number(got.approximate?.tk?.perRowErrorUpperBound?.[got.data.indexOf(row)] ?? 0);
    expect(minIn + bound).toBeGreaterThanOrEqual(maxOut);
  }
});

test("18.16: the 'sumMap' topK encoding over String values is what 18.16 refuses (why 'hashed' is the default)", async () => {
  const q = parseSelect('SELECT topK(4)(g) AS t FROM t') as SelectQuery;
  const ctx = { shardCount: 3, shardSizeFactor: 1.5, shardSizeAdd: 10, maxRowsToTransfer: 1e6 };
  await expect(ch.query(onTable(splitQuery(q, { ...ctx, topkEncoding: 'sumMap' }).shardQuery, 't_0'))).rejects.toThrow();
  const ok = await ch.query(onTable(splitQuery(q, ctx).shardQuery, 't_0'));
  expect(ok.meta[0]!.type).toBe('Array(Tuple(String, UInt64))');
});
