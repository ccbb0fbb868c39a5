// Statistics pruning on three chdb shards: a fast-check property over random rows (inserted through the
// router, which refreshes the coordinator's statistics) and random range predicates on DateTime, Date,
// Int32, UInt64 and Nullable(Int32) columns (strings and floats configured too, never pruned on). A shard
// the plan skips by statistics must hold no matching row (asked directly), and the answer's count must
// equal the shards' own counts. The answer's coverage, and requireCoverage, with a shard that fails.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createShardHandler } from '../../../functions/shard/shard-function.js';
import { parseTopology } from '../../../shared/core/config/load.js';
import type { Topology } from '../../../shared/core/config/schema.js';
import type { ExplainResponse } from '../../../shared/core/plan/explain.js';
import type { ShardRequest, ShardResponse } from '../../../shared/core/protocol/shard-wire.js';
import { insertRows } from '../../../shared/core/router/index.js';
import { createHedgeState } from '../../../shared/core/scatter/hedge.js';
import type { ShardInvoker } from '../../../shared/core/scatter/invoker.js';
import { PLANNERS } from '../../../shared/core/scatter/planners.js';
import { runExplain, runQuery, type QueryResponse, type RunDeps } from '../../../shared/core/scatter/run-query.js';
import { createStatisticsCache, type StatisticsCache } from '../../../shared/core/scatter/table-statistics.js';
import { createPlacement, type Placement } from '../../../shared/core/sharding/index.js';
import { startEmbeddedCluster, type EmbeddedCluster } from '../../support/embedded-cluster.js';
import { generalSelect } from '../../../shared/core/clickhouse-http/distributed.js';
import { handleClickHouseHttp } from '../../../shared/core/clickhouse-http/handle.js';
import { renderSummary } from '../../../bin/render.js';

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
const DIST = 'default.st_dist';
const LOCAL = 'default.st';
const COLUMNS = ['ts', 'd', 'n', 'u', 'nn', 's', 'f'];
const DDL = [
  `DROP TABLE IF EXISTS ${LOCAL}`,
  `CREATE TABLE ${LOCAL} (id UInt64, ts DateTime, d Date, n Int32, u UInt64, nn Nullable(Int32), s String, f Float64) ENGINE = MergeTree ORDER BY id`,
];
const SHARDS = 3;

let cluster: EmbeddedCluster;
let topo: Topology;
let placement: Placement;

beforeAll(async () => {
  cluster = await startEmbeddedCluster({ shards: SHARDS });
  for (const ddl of DDL) await cluster.execAll(ddl);
  topo = parseTopology({
    cluster: 'c',
    shards: Array.from({ length: SHARDS }, () => ({ replicas: [{ url: 'http://unused:8123' }] })),
    tables: { [DIST]: { local: LOCAL, shardingKey: { column: 'id', type: 'UInt64', function: 'identity' }, statistics: COLUMNS } },
    query: { hedge: { enabled: false }, timeoutMs: 20_000 },
  });
  placement = await createPlacement(topo.shards, topo.tables[DIST]!.shardingKey);
}, 120_000);
afterAll(async () => {
  await cluster?.stop();
});

function depsFor(
  statistics: StatisticsCache,
  fail?: (shard: number, p: ShardRequest) => boolean,
  delayMs?: (p: ShardRequest) => number,
): RunDeps & { sent: ShardRequest[] } {
  const fns = cluster.shards.map((e, shard) => createShardHandler({ shard, getAccess: async () => e }));
  const sent: ShardRequest[] = [];
  const invoker: ShardInvoker = {
    invoke: async (shard, payload): Promise<ShardResponse> => {
      sent.push(payload);
      if (fail?.(shard, payload)) return { ok: false, shard, replica: 0, error: { kind: 'unavailable', message: 'down for the test' } };
      const ms = delayMs?.(payload) ?? 0;
      if (ms > 0) await new Promise((r) => setTimeout(r, ms));
      return fns[shard]!(payload);
    },
  };
  return { sent, topo, invoker, ...PLANNERS, statistics, hedgeState: createHedgeState(), queryId: 'q-stats', behindApiGateway: false };
}

const pad = (n: number) => String(n).padStart(2, '0');
const dateText = (day: number) => `2024-01-${pad(1 + day)}`;
const timeText = (sec: number) => `2024-01-01 ${pad(Math.floor(sec / 3600))}:${pad(Math.floor(sec / 60) % 60)}:${pad(sec % 60)}`;

type Row = {
  id: number;
  ts: string;
  d: string;
  n: number;
  u: string;
  nn: number | null;
  s: string;
  f: number;
};

/** Rows clustered per shard (each shard its own band of values, bands overlapping at random), so statistics can prune. */
const rowsArb = fc
  .tuple(
    fc.array(fc.integer({ min: 0, max: 20 }), { minLength: SHARDS, maxLength: SHARDS }),
    fc.array(fc.tuple(fc.nat(40), fc.nat(1_000_000)), { maxLength: 30 }),
  )
  .map(([bands, raw]) =>
    raw.map(([id, r], i): Row => {
      const b = bands[placement.shardOf(id + i * 41)]!;
      const v = b + (r % 6);
      return {
        id: id + i * 41,
        ts: timeText(v * 3600 + (r % 4) * 900),
        d: dateText(v),
        n: (v - 10) * 10 + (r % 10),
        u: String(BigInt(v) * 10n ** 17n + BigInt(r % 3)),
        nn: r % 3 === 0 ? null : v,
        s: `s${v}`,
        f: v + 0.5,
      };
    }),
  );

const lit = {
  ts: fc.integer({ min: -4, max: 30 * 4 }).map((q) => (q < 0 ? `'2023-12-31 23:00:00'` : `'${timeText(q * 900 + (q % 5 === 0 ? 1 : 0))}'`)),
  tsCast: fc.integer({ min: 0, max: 30 * 4 }).map((q) => `toDateTime('${timeText(q * 900)}')`),
  d: fc.integer({ min: 0, max: 27 }).map((d) => `'${dateText(d)}'`),
  dCast: fc.integer({ min: 0, max: 27 }).map((d) => `toDate('${dateText(d)}')`),
  n: fc.integer({ min: -120, max: 320 }).map(String),
  u: fc.tuple(fc.integer({ min: 0, max: 30 }), fc.integer({ min: -1, max: 3 })).map(([v, r]) => String(BigInt(v) * 10n ** 17n + BigInt(r))),
  nn: fc.integer({ min: -2, max: 30 }).map(String),
  s: fc.integer({ min: 0, max: 30 }).map((v) => `'s${v}'`),
  f: fc.integer({ min: 0, max: 30 }).map((v) => `${v}.5`),
};
/** A literal of each column: random, or (boundaries matter) a value some row holds. */
function columnLits(rows: readonly Row[]): [string, fc.Arbitrary<string>][] {
  const held = <T>(f: (r: Row) => T, show: (v: T) => string, random: fc.Arbitrary<string>) =>
    rows.length ? fc.oneof(random, fc.constantFrom(...rows.map(f)).map(show)) : random;
  return [
    [
      'ts',
      held(
        (r) => r.ts,
        (v) => `'${v}'`,
        lit.ts,
      ),
    ],
    [
      'ts',
      held(
        (r) => r.ts,
        (v) => `toDateTime('${v}')`,
        lit.tsCast,
      ),
    ],
    [
      'd',
      held(
        (r) => r.d,
        (v) => `'${v}'`,
        lit.d,
      ),
    ],
    [
      'd',
      held(
        (r) => r.d,
        (v) => `toDate('${v}')`,
        lit.dCast,
      ),
    ],
    ['n', held((r) => r.n, String, lit.n)],
    ['u', held((r) => r.u, String, lit.u)],
    ['nn', held((r) => r.nn ?? 0, String, lit.nn)],
    ['s', lit.s],
    ['f', lit.f],
  ];
}
function predicateArb(rows: readonly Row[]): fc.Arbitrary<string> {
  const atomArb = fc.constantFrom(...columnLits(rows)).chain(([c, l]) =>
    fc.oneof(
      fc.tuple(fc.constantFrom('>', '>=', '<', '<=', '='), l).map(([op, v]) => `${c} ${op} ${v}`),
      fc.tuple(l, fc.constantFrom('>', '<', '>=', '<=')).map(([v, op]) => `${v} ${op} ${c}`),
      fc.tuple(l, l).map(([a, b]) => `${c} BETWEEN ${a} AND ${b}`),
      fc.array(l, { minLength: 1, maxLength: 4 }).map((vs) => `${c} IN (${vs.join(', ')})`),
    ),
  );
  return fc.oneof(
    { weight: 4, arbitrary: fc.array(atomArb, { minLength: 1, maxLength: 3 }).map((as) => as.join(' AND ')) },
    { weight: 1, arbitrary: fc.tuple(atomArb, atomArb).map(([a, b]) => `(${a}) OR (${b})`) },
    { weight: 1, arbitrary: atomArb.map((a) => `NOT (${a})`) },
  );
}

async function shardCounts(pred: string): Promise<number[]> {
  return Promise.all(cluster.shards.map(async (e) => Number((await e.query(`SELECT count() AS c FROM ${LOCAL} WHERE ${pred}`)).rows[0]!.c)));
}

describe('statistics pruning on chdb', () => {
  it('never skips a shard that holds a matching row, across inserts through the router', async () => {
    let prunedSomewhere = 0;
    await fc.assert(
      fc.asyncProperty(
        fc
          .array(rowsArb, { minLength: 1, maxLength: 3 })
          .chain((batches) => fc.tuple(fc.constant(batches), fc.array(predicateArb(batches.flat()), { minLength: 6, maxLength: 10 }))),
        async ([batches, preds]) => {
          await cluster.execAll(`TRUNCATE TABLE ${LOCAL}`);
          const statistics = createStatisticsCache();
          const deps = depsFor(statistics);
          for (const rows of batches) {
            // Read (and cache) before the insert: the router's write must refresh them.
            await runQuery({ sql: `SELECT count() FROM ${DIST} WHERE n > 0` }, deps);
            if (rows.length === 0) continue;
            const r = await insertRows(rows, DIST, topo, (s) => cluster.shards[s]!, { onWritten: (t) => statistics.invalidate(t) });
            expect(r.ok).toBe(true);
            for (const pred of preds) {
              const ex = await runExplain({ sql: `SELECT count() AS c FROM ${DIST} WHERE ${pred}` }, deps);
              expect(ex.status, JSON.stringify(ex.body)).toBe(200);
              const counts = await shardCounts(pred);
              for (const sh of (ex.body as ExplainResponse).shards) {
                if (!sh.skipped) continue;
                expect(sh.reason, pred).toMatch(/^statistics: /);
                expect(counts[sh.shard], `shard ${sh.shard} skipped for ${pred} (${sh.reason}) holds matching rows`).toBe(0);
                prunedSomewhere++;
              }
              const q = await runQuery({ sql: `SELECT count() AS c FROM ${DIST} WHERE ${pred}` }, deps);
              expect(q.status, JSON.stringify(q.body)).toBe(200);
              expect(Number((q.body as QueryResponse).data[0]!.c), pred).toBe(counts.reduce((a, b) => a + b, 0));
            }
          }
        },
      ),
      { numRuns: 12 },
    );
    // The property is not vacuous: some shards were pruned.
    expect(prunedSomewhere).toBeGreaterThan(0);
  }, 300_000);
});

/** Rows of `n` values placed one shard each (n = shard * 100 + i), through the router. */
async function loadBands(statistics?: StatisticsCache): Promise<void> {
  await cluster.execAll(`TRUNCATE TABLE ${LOCAL}`);
  const rows: Row[] = [];
  for (let id = 0; rows.length < 30; id++) {
    const s = placement.shardOf(id);
    rows.push({ id, ts: timeText(s * 3600), d: dateText(s), n: s * 100 + (id % 10), u: String(s), nn: s, s: 'x', f: 0.5 });
  }
  const r = await insertRows(rows, DIST, topo, (s) => cluster.shards[s]!, statistics ? { onWritten: (t) => statistics.invalidate(t) } : {});
  expect(r.ok).toBe(true);
}

describe('statistics: refresh, reasons and coverage', () => {
  it('/explain names the range that rules a shard out; the router refreshes the statistics it wrote to', async () => {
    const statistics = createStatisticsCache();
    await loadBands(statistics);
    const deps = depsFor(statistics);
    const ex = (await runExplain({ sql: `SELECT count() FROM ${DIST} WHERE n >= 200` }, deps)).body as ExplainResponse;
    expect(ex.shards.map((s) => s.skipped)).toEqual([true, true, false]);
    expect(ex.shards[0]!.reason).toBe('statistics: n lies in [0, 9] on this shard, where n >= 200 matches no row');
    // Rows written past the router leave the cached ranges stale (until their life ends): the answer misses them.
    const late = { id: 0, ts: timeText(0), d: dateText(0), n: 250, u: '0', nn: 0, s: 'x', f: 0.5 };
    await cluster.shards[placement.shardOf(0)]!.insert(LOCAL, [late]);
    const stale = (await runQuery({ sql: `SELECT count() AS c FROM ${DIST} WHERE n >= 200` }, deps)).body as QueryResponse;
    expect(Number(stale.data[0]!.c)).toBe(10);
    // Through the router, the table's statistics are read anew: the shard's new range is seen.
    await insertRows([{ ...late, id: 3, n: 260 }], DIST, topo, (s) => cluster.shards[s]!, { onWritten: (t) => statistics.invalidate(t) });
    const fresh = (await runQuery({ sql: `SELECT count() AS c FROM ${DIST} WHERE n >= 200` }, deps)).body as QueryResponse;
    expect(Number(fresh.data[0]!.c)).toBe(12);
  });

  it('a partial answer states the share of rows it covers; requireCoverage refuses one under it', async () => {
    const statistics = createStatisticsCache();
    await loadBands(statistics);
    const counts = await shardCounts('1');
    const all = counts.reduce((a, b) => a + b, 0);
    // Statistics read while every shard answers; then shard 1 fails its queries.
    await runQuery({ sql: `SELECT count() FROM ${DIST}` }, depsFor(statistics));
    const deps = depsFor(statistics, (s) => s === 1);
    const r = await runQuery({ sql: `SELECT count() AS c FROM ${DIST}` }, deps);
    expect(r.status).toBe(200);
    const b = r.body as QueryResponse;
    expect(b.partial).toBe(true);
    const share = Math.floor(((all - counts[1]!) / all) * 10_000) / 10_000;
    expect(b.coverage).toEqual([{ table: DIST, share, rowsAnswered: String(all - counts[1]!), rowsAsked: String(all) }]);
    expect(renderSummary(b)).toContain(`coverage of ${DIST}: ${(share * 100).toFixed(2)}% of its rows (${all - counts[1]!} of ${all} in the shards asked)`);
    const refused = await runQuery({ sql: `SELECT count() AS c FROM ${DIST}`, requireCoverage: 0.99 }, deps);
    expect(refused.status).toBe(504);
    expect(JSON.stringify(refused.body)).toContain(`the shards that answered hold ${(share * 100).toFixed(2)}% of ${DIST}'s rows`);
    expect((await runQuery({ sql: `SELECT count() AS c FROM ${DIST}`, requireCoverage: share }, deps)).status).toBe(200);
    // A complete answer covers every row.
    const full = (await runQuery({ sql: `SELECT count() AS c FROM ${DIST}` }, depsFor(statistics))).body as QueryResponse;
    expect(full.coverage).toEqual([{ table: DIST, share: 1, rowsAnswered: String(all), rowsAsked: String(all) }]);
  });

  it('unknown statistics are said, never guessed: requireCoverage then refuses a partial answer', async () => {
    await loadBands();
    // The statistics are read while shard 1 is down: its count is unknown.
    const deps = depsFor(createStatisticsCache(), (s) => s === 1);
    const b = (await runQuery({ sql: `SELECT count() AS c FROM ${DIST}` }, deps)).body as QueryResponse;
    expect(b.partial).toBe(true);
    expect(b.coverage).toEqual([{ table: DIST, unknown: "shard 1's row count is unknown (its statistics failed or were not read in time)" }]);
    expect(renderSummary(b)).toContain("coverage of default.st_dist: unknown (shard 1's row count is unknown");
    const refused = await runQuery({ sql: `SELECT count() AS c FROM ${DIST}`, requireCoverage: 0.5 }, deps);
    expect(refused.status).toBe(504);
    expect(JSON.stringify(refused.body)).toContain("the share of default.st_dist's rows answered is unknown");
  });
});

describe('a slow statistics read', () => {
  it('holds no query: it plans without the statistics not yet read (unknown, nothing pruned), and the next query has them', async () => {
    const statistics = createStatisticsCache();
    await loadBands(statistics);
    const isRead = (p: ShardRequest) => p.type === 'query' && p.sql.startsWith('SELECT count() AS rows, timezone()');
    const deps = depsFor(statistics, undefined, (p) => (isRead(p) ? 1500 : 0));
    const t0 = Date.now();
    const first = (await runQuery({ sql: `SELECT count() AS c FROM ${DIST} WHERE n >= 200` }, deps)).body as QueryResponse;
    expect(Date.now() - t0).toBeLessThan(1200);
    expect(first.shards.skipped).toBe(0);
    expect(first.coverage?.[0]?.unknown).toMatch(/row count is unknown/);
    await expect
      .poll(async () => ((await runQuery({ sql: `SELECT count() AS c FROM ${DIST} WHERE n >= 200` }, deps)).body as QueryResponse).shards.skipped, {
        timeout: 5000,
      })
      .toBe(2);
  });
});

describe('statistics on the general path and the ClickHouse interface', () => {
  const chQuery = async (deps: RunDeps, sql: string, params: Record<string, string> = {}) => {
    const select = generalSelect({ ...deps, planTwoStage: deps.planTwoStage! });
    return handleClickHouseHttp(
      { method: 'POST', path: '/', query: new URLSearchParams(params), headers: {}, body: Buffer.from(sql) },
      {
        topo,
        raw: async () => {
          throw new Error('no catalog here');
        },
        select,
      },
    );
  };

  it('the general path prunes by statistics and states coverage; requireCoverage refuses under it', async () => {
    const statistics = createStatisticsCache();
    await loadBands(statistics);
    const counts = await shardCounts('1');
    const sql = `SELECT n FROM ${DIST} WHERE n >= 200 ORDER BY n LIMIT 3 SETTINGS ch_scatter_path = 'general'`;
    const ex = (await runExplain({ sql }, depsFor(statistics))).body as { leaves?: { shards: ExplainResponse['shards'] }[] };
    expect(JSON.stringify(ex)).toContain('statistics: n lies in [0, 9] on this shard, where n >= 200 matches no row');
    const all = counts.reduce((a, b) => a + b, 0);
    const down = depsFor(statistics, (s) => s === 0);
    const b = (await runQuery({ sql: `SELECT count() AS c FROM ${DIST} SETTINGS ch_scatter_path = 'general'` }, down)).body as QueryResponse;
    expect(b.path).toBe('general');
    expect(b.partial).toBe(true);
    expect(b.coverage?.[0]).toMatchObject({ table: DIST, rowsAnswered: String(all - counts[0]!), rowsAsked: String(all) });
    const refused = await runQuery({ sql: `SELECT count() AS c FROM ${DIST} SETTINGS ch_scatter_path = 'general'`, requireCoverage: 0.9 }, down);
    expect(refused.status).toBe(504);
    expect(JSON.stringify(refused.body)).toContain('under requireCoverage 0.9');
  });

  it('ClickHouse-interface headers name skipped and missing shards and the coverage, with skip_unavailable_shards 1 and 0', async () => {
    const statistics = createStatisticsCache();
    await loadBands(statistics);
    const counts = await shardCounts('1');
    const all = counts.reduce((a, b) => a + b, 0);
    const ok = await chQuery(depsFor(statistics), `SELECT count() FROM ${DIST} WHERE n >= 200`);
    expect(ok.status).toBe(200);
    expect(ok.body.toString()).toBe(`${counts[2]}\n`);
    expect(JSON.parse(ok.headers['x-ch-scatter-skipped-shards']!).map((s: { shard: number }) => s.shard)).toEqual([0, 1]);
    expect(JSON.parse(ok.headers['x-ch-scatter-coverage']!)).toEqual([
      { table: DIST, share: 1, rowsAnswered: String(counts[2]), rowsAsked: String(counts[2]) },
    ]);
    const down = depsFor(statistics, (s) => s === 1);
    const partial = await chQuery(down, `SELECT count() FROM ${DIST} WHERE n < 200`, { skip_unavailable_shards: '1' });
    expect(partial.status).toBe(200);
    expect(partial.headers['x-ch-scatter-partial']).toBe('1');
    expect(JSON.parse(partial.headers['x-ch-scatter-missing-shards']!)).toEqual([{ shard: 1, reason: 'unavailable' }]);
    expect(JSON.parse(partial.headers['x-ch-scatter-skipped-shards']!).map((s: { shard: number }) => s.shard)).toEqual([2]);
    const asked = counts[0]! + counts[1]!;
    expect(JSON.parse(partial.headers['x-ch-scatter-coverage']!)[0]).toMatchObject({ rowsAnswered: String(counts[0]), rowsAsked: String(asked) });
    // skip_unavailable_shards=0: ClickHouse's error, with the same shards named.
    const failed = await chQuery(down, `SELECT count() FROM ${DIST} WHERE n < 200`);
    expect(failed.status).toBeGreaterThanOrEqual(500);
    expect(failed.headers['x-clickhouse-exception-code']).toBe('279');
    expect(JSON.parse(failed.headers['x-ch-scatter-missing-shards']!)).toEqual([{ shard: 1, reason: 'unavailable' }]);
    expect(JSON.parse(failed.headers['x-ch-scatter-coverage']!)[0]).toMatchObject({ rowsAnswered: String(counts[0]), rowsAsked: String(asked) });
    expect(all).toBeGreaterThan(asked);
  });
});
