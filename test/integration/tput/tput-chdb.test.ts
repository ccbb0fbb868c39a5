// The exact top count by TPUT on three chdb shard engines, against one engine holding every row:
// skewed and uniform keys, ties at the boundary, OFFSET, several keys, string, Date and DateTime
// keys, countIf and sum scores, an empty shard, fewer groups than k, no matching row; a fast-check
// property over any split of the rows and any arrival order; a shard missing in each round.
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTopCountMemory } from '../../../shared/core/scatter/tput/memory.js';
import type { Topology } from '../../../shared/core/config/schema.js';
import type { QueryResponse } from '../../../shared/core/scatter/run-query.js';
import { runExplain, runQuery } from '../../../shared/core/scatter/run-query.js';
import { InvokeError } from '../../../shared/core/scatter/invoker.js';
import { startEmbeddedCluster, type EmbeddedCluster } from '../../support/embedded-cluster.js';
import { renderExplainText, type ExplainResponse } from '../../../shared/core/plan/explain.js';
import { renderSummary } from '../../../bin/render.js';
import { DDL, DIST, chdbReference, depsFor, events, expectExact, load, topologyFor } from './fixture.js';

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
let cluster: EmbeddedCluster;
let topo: Topology;
const ref = () => chdbReference(cluster.oracle!);

beforeAll(async () => {
  cluster = await startEmbeddedCluster({ shards: 3, withOracle: true });
  for (const ddl of DDL) await cluster.execAll(ddl);
  topo = topologyFor(3, (i) => ({ embedded: path.join(cluster.dir, `shard-${i}`) }));
}, 120_000);
afterAll(async () => {
  await cluster?.stop();
});

const T = DIST;
const QUERIES = [
  `SELECT user, count() AS c FROM ${T} GROUP BY user ORDER BY c DESC, user LIMIT 10`,
  `SELECT user, count() AS c, sum(amount) AS s, avg(amount) AS a FROM ${T} GROUP BY user ORDER BY c DESC, user LIMIT 5 OFFSET 3`,
  `SELECT name, day, count() AS c, max(amount) AS m FROM ${T} GROUP BY name, day ORDER BY c DESC, name, day LIMIT 7`,
  `SELECT name, count() AS c FROM ${T} GROUP BY name ORDER BY c DESC, name LIMIT 3`,
  `SELECT user, countIf(flag = 1) AS c, uniqExact(day) AS d FROM ${T} WHERE amount > 10 GROUP BY user ORDER BY c DESC, user LIMIT 6`,
  `SELECT user, sum(amount) AS s FROM ${T} GROUP BY user ORDER BY s DESC, user LIMIT 4`,
  `SELECT ts, count() AS c FROM ${T} GROUP BY ts ORDER BY c DESC, ts LIMIT 3`,
  `SELECT intDiv(user, 7) AS b, count() AS c FROM ${T} GROUP BY b ORDER BY c DESC, b LIMIT 5`,
  `SELECT user, name, count() FROM ${T} GROUP BY user, name ORDER BY count() DESC, user, name LIMIT 8`,
  `SELECT flag, count() AS c FROM ${T} GROUP BY flag ORDER BY c DESC, flag LIMIT 10`,
  `SELECT user, count() AS c FROM ${T} WHERE amount > 1000 GROUP BY user ORDER BY c DESC, user LIMIT 10`,
  `SELECT user, count(name) AS c FROM ${T} PREWHERE flag = 0 GROUP BY user ORDER BY c DESC, user DESC LIMIT 2, 4`,
];

describe('TPUT on chdb shards = one engine holding every row', () => {
  for (const kind of ['skewed', 'uniform'] as const) {
    it(`${kind} keys: every query exact, by TPUT (two rounds at most) and by every group`, async () => {
      const rows = events(6000, kind, kind === 'skewed' ? 7 : 11);
      await load(cluster.shards, cluster.oracle!, rows, (_, i) => i % 3);
      for (const sql of QUERIES) {
        const d = depsFor(topo, cluster.shards);
        const b = await expectExact(d, ref(), sql, { ch_scatter_top_count: 'tput' });
        expect(b.topCount?.method, `${sql}: ${JSON.stringify(b.topCount)}`).toBe('tput');
        expect(b.topCount?.fellBack).toBeUndefined();
        const e = await expectExact(depsFor(topo, cluster.shards), ref(), sql, { ch_scatter_top_count: 'every_group' });
        expect(e.topCount?.method).toBe('every_group');
        // The default is exact too.
        await expectExact(depsFor(topo, cluster.shards), ref(), sql);
        // And so is the fast path (every group, or TPUT's candidates).
        await expectExact(depsFor(topo, cluster.shards), ref(), sql, { ch_scatter_top_count: 'tput', ch_scatter_path: 'fast' });
      }
    }, 120_000);
  }

  it('a skewed key: round 2 reads far fewer groups than every group, and its SQL answers the query', async () => {
    await load(cluster.shards, cluster.oracle!, events(6000, 'skewed', 3), (_, i) => i % 3);
    const sql = QUERIES[0]!;
    const t = await expectExact(depsFor(topo, cluster.shards), ref(), sql, { ch_scatter_top_count: 'tput' });
    const e = await expectExact(depsFor(topo, cluster.shards), ref(), sql, { ch_scatter_top_count: 'every_group' });
    expect(t.topCount!.candidates!).toBeLessThan(60);
    expect(t.statistics.finalStage!.inputRows).toBeLessThan(e.statistics.finalStage!.inputRows / 5);
    expect(t.statistics.shards.filter((s) => s.leaf === 'tput round 1')).toHaveLength(3);
    // The query over the candidates, run by the engine holding every row, is the query's answer.
    const candidatesSql = t.topCount!.candidatesSql!;
    expect(candidatesSql).toMatch(/\bIN\b/);
    expect(await ref()(candidatesSql)).toEqual(await ref()(sql));
    expect(t.topCount!.round3Sql).toBe(candidatesSql);
  });

  it('ties at the boundary: every group has the same count', async () => {
    // 40 users with exactly 6 rows each, spread over the shards unevenly.
    const rows = events(240, 'uniform', 5).map((r, i) => ({ ...r, user: i % 40 }));
    await load(cluster.shards, cluster.oracle!, rows, (r, i) => (r.user % 2 === 0 ? i % 3 : i % 2));
    for (const sql of [
      `SELECT user, count() AS c FROM ${T} GROUP BY user ORDER BY c DESC, user LIMIT 10`,
      `SELECT user, count() AS c FROM ${T} GROUP BY user ORDER BY c DESC, user DESC LIMIT 3 OFFSET 36`,
    ]) {
      const b = await expectExact(depsFor(topo, cluster.shards), ref(), sql, { ch_scatter_top_count: 'tput' });
      expect(b.topCount!.fellBack).toBeUndefined();
      expect(b.topCount!.candidates).toBe(40); // every tied group stays in
    }
  });

  it('an empty shard, and fewer groups than k (every shard complete)', async () => {
    await load(cluster.shards, cluster.oracle!, events(300, 'skewed', 9), (_, i) => (i % 2 === 0 ? 0 : 2));
    const b = await expectExact(depsFor(topo, cluster.shards), ref(), `SELECT name, count() AS c FROM ${T} GROUP BY name ORDER BY c DESC, name LIMIT 20`, {
      ch_scatter_top_count: 'tput',
    });
    expect(b.topCount!.rounds).toHaveLength(1);
    expect(b.topCount!.thresholds!.every((t) => t.complete)).toBe(true);
    await expectExact(depsFor(topo, cluster.shards), ref(), QUERIES[0]!, { ch_scatter_top_count: 'tput' });
  });

  it('the default decides after round 1: shards that disagree on their best groups go to every group', async () => {
    // Each shard holds its own 100 users, ~10 rows each: round 1's lists do not overlap.
    const rows = events(3000, 'uniform', 13).map((r, i) => ({ ...r, user: (i % 3) * 100 + (r.user % 100) }));
    await load(cluster.shards, cluster.oracle!, rows, (r) => Math.floor(r.user / 100));
    const sql = QUERIES[0]!;
    const memory = createTopCountMemory();
    const x = await expectExact(depsFor(topo, cluster.shards, { memory }), ref(), sql);
    expect(x.topCount!.method).toBe('every_group');
    expect(x.topCount!.fellBack).toMatch(/disagree on their best groups/);
    expect(x.topCount!.rounds).toHaveLength(1);
    // The same query again within a minute, on the same coordinator: straight to every group, no round 1.
    const d2 = depsFor(topo, cluster.shards, { memory });
    const again = await expectExact(d2, ref(), sql);
    expect(again.topCount!.fellBack).toMatch(/the pre-pass of the same query \d+ s ago/);
    expect(d2.sent.some((p) => p.sql.includes('_tput_'))).toBe(false);
    // 'tput' runs the query over the candidates anyway, and is exact.
    const t = await expectExact(depsFor(topo, cluster.shards), ref(), sql, { ch_scatter_top_count: 'tput' });
    expect(t.topCount!.method).toBe('tput');
    expect(t.topCount!.rounds).toHaveLength(1);
    // The skewed data of the other tests: the default keeps TPUT (another query text:
    // the one above is remembered as not paying for a minute).
    await load(cluster.shards, cluster.oracle!, events(6000, 'skewed', 3), (_, i) => i % 3);
    const s = await expectExact(depsFor(topo, cluster.shards), ref(), sql.replace('LIMIT 10', 'LIMIT 9'));
    expect(s.topCount!.method).toBe('tput');
  });

  it('the default caps round 1: a shard with over 1,000 groups from its threshold up goes to every group', async () => {
    // 1,500 users with 2 rows on every shard: each shard's 10th score is 2, its threshold 1, so it
    // returns every group it holds (over the default's cap of max(1,000, 100k) rows).
    const rows = events(9000, 'uniform', 17).map((r, i) => ({ ...r, user: Math.floor(i / 3) % 1500 }));
    await load(cluster.shards, cluster.oracle!, rows, (_, i) => i % 3);
    const sql = `SELECT user, count() AS c FROM ${T} GROUP BY user ORDER BY c DESC, user LIMIT 10`;
    const x = await expectExact(depsFor(topo, cluster.shards), ref(), sql);
    expect(x.topCount!.method).toBe('every_group');
    expect(x.topCount!.fellBack).toMatch(/holds over 1000 groups from its threshold up/);
    expect(x.topCount!.rounds![0]!.rows).toBe(3 * 1001);
    // 'tput' goes on (its cap is 10,000 rows per shard) and is exact over 1,500 candidates.
    const t = await expectExact(depsFor(topo, cluster.shards), ref(), sql, { ch_scatter_top_count: 'tput' });
    expect(t.topCount!.method).toBe('tput');
    expect(t.topCount!.thresholds!.map((s) => [s.kth, s.threshold])).toEqual([
      ['2', '1'],
      ['2', '1'],
      ['2', '1'],
    ]);
    expect(t.topCount!.candidates).toBe(1500);
  });

  it('a score that may be negative (sum of Int32) falls back to every group, still exact', async () => {
    await load(cluster.shards, cluster.oracle!, events(1000, 'skewed', 2), (_, i) => i % 3);
    const memory = createTopCountMemory();
    const b = await expectExact(
      depsFor(topo, cluster.shards, { memory }),
      ref(),
      `SELECT user, sum(delta) AS s FROM ${T} GROUP BY user ORDER BY s DESC, user LIMIT 5`,
      {
        ch_scatter_top_count: 'tput',
      },
    );
    expect(b.topCount!.method).toBe('every_group');
    expect(b.topCount!.fellBack).toMatch(/Int64 may be negative/);
    // The next query over the same expressions on the same coordinator skips round 1: its types are known to be unfit.
    const d = depsFor(topo, cluster.shards, { memory });
    const again = await expectExact(d, ref(), `SELECT user, sum(delta) AS s FROM ${T} GROUP BY user ORDER BY s DESC, user LIMIT 7`, {
      ch_scatter_top_count: 'tput',
    });
    expect(again.topCount!.fellBack).toMatch(/seen by an earlier query's round 1/);
    expect(again.topCount!.rounds).toBeUndefined();
    expect(d.sent.some((p) => p.sql.includes('_tput_'))).toBe(false);
  });

  it('queries TPUT leaves alone: HAVING, the sharding key, non-additive scores', async () => {
    await load(cluster.shards, cluster.oracle!, events(1000, 'skewed', 4), (_, i) => i % 3);
    const having = await expectExact(
      depsFor(topo, cluster.shards),
      ref(),
      `SELECT user, count() AS c FROM ${T} GROUP BY user HAVING c > 2 ORDER BY c DESC, user LIMIT 5`,
    );
    expect(having.topCount).toMatchObject({ method: 'every_group', notTput: expect.stringMatching(/HAVING/) });
    const byKey = await expectExact(depsFor(topo, cluster.shards), ref(), `SELECT id, count() AS c FROM ${T} GROUP BY id ORDER BY c DESC, id LIMIT 5`);
    expect(byKey.topCount).toBeUndefined();
    // A WHERE whose rows may change between the rounds (now(), rand()): one round, every group.
    const now = await expectExact(
      depsFor(topo, cluster.shards),
      ref(),
      `SELECT user, count() AS c FROM ${T} WHERE ts < now() GROUP BY user ORDER BY c DESC, user LIMIT 5`,
    );
    expect(now.topCount).toMatchObject({ method: 'every_group', notTput: expect.stringMatching(/now\(\)/) });
    const avg = await expectExact(depsFor(topo, cluster.shards), ref(), `SELECT user, avg(amount) AS a FROM ${T} GROUP BY user ORDER BY a DESC, user LIMIT 5`);
    expect(avg.topCount).toBeUndefined();
  });

  it('/explain names the method and shows the round SQL', async () => {
    const d = depsFor(topo, cluster.shards);
    const r = await runExplain({ sql: QUERIES[0]! }, d);
    expect(r.status).toBe(200);
    const top = (r.body as { topCount: { description: string; roundSql: string[] } }).topCount;
    expect(top.description).toBe('exact, TPUT: two rounds');
    expect(top.roundSql[0]).toContain('FROM (SELECT user AS _tput_k0, count() AS _tput_s FROM default.tput_ev_dist GROUP BY user))');
    expect(top.roundSql[0]).toContain('_tput_s >= intDiv(_tput_ss[10], {shards:UInt64})');
    expect(top.roundSql[1]).toContain('WHERE user IN ({candidates:Set}) GROUP BY user');
    const every = await runExplain({ sql: QUERIES[0]!, settings: { ch_scatter_top_count: 'every_group' } }, d);
    expect((every.body as { topCount: { description: string } }).topCount.description).toBe('exact, every group');
    const approx = await runExplain({ sql: QUERIES[0]!, settings: { ch_scatter_top_count: 'shard_size' } }, d);
    expect((approx.body as { topCount: { description: string } }).topCount.description).toMatch(/^shard_size, approximate/);
    // The CLI's text: the method and the rounds (explain), what ran (query).
    expect(renderExplainText(r.body as ExplainResponse)).toMatch(/top count: exact, TPUT: two rounds\n {2}round 1 .*\n {2}round 2 /);
    const ran = await runQuery({ sql: QUERIES[0]! }, d);
    expect(renderSummary(ran.body as QueryResponse)).toMatch(/top count: exact, TPUT: two rounds\n {4}round 1: 3 shard\(s\)/);
    const bad = await runQuery({ sql: QUERIES[0]!, settings: { ch_scatter_top_count: 'most' } }, d);
    expect(bad.status).toBe(400);
  });
});

describe('TPUT: a shard missing in a round', () => {
  // Round 1: the pre-pass; round 2: the query over the candidates (or the query itself, after a fallback).
  const round = (req: { sql: string }) => (!req.sql.includes('_tput_s') ? 2 : 1);

  for (const lost of [1] as const) {
    it(`missing in round ${lost}: the bounds are not trusted, every group answers, exactly`, async () => {
      await load(cluster.shards, cluster.oracle!, events(3000, 'skewed', 8), (_, i) => i % 3);
      const d = depsFor(topo, cluster.shards, {
        fail: (s, req) => (s === 1 && round(req) === lost ? new InvokeError('unavailable', 'shard 1 is down for this round') : undefined),
      });
      const b = await expectExact(d, ref(), QUERIES[0]!, { ch_scatter_top_count: 'tput' });
      expect(b.topCount!.method).toBe('every_group');
      expect(b.topCount!.fellBack).toMatch(new RegExp(`round ${lost}: shard 1 did not answer`));
      expect(b.topCount!.rounds).toHaveLength(lost);
    });
  }

  it('a shard that does not answer round 1 in time: round 1 stops at half the budget, every group answers in the rest', async () => {
    await load(cluster.shards, cluster.oracle!, events(3000, 'skewed', 8), (_, i) => i % 3);
    const d = depsFor(topo, cluster.shards, { delay: (s, req) => (s === 1 && round(req) === 1 ? 4000 : 0) });
    const t0 = Date.now();
    const r = await runQuery({ sql: QUERIES[0]!, settings: { ch_scatter_top_count: 'tput' }, timeoutMs: 3000 }, d);
    const took = Date.now() - t0;
    expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(200);
    const b = r.body as QueryResponse;
    expect(b.partial).toBe(false);
    expect(b.data).toEqual(await ref()(QUERIES[0]!));
    expect(b.topCount!.fellBack).toMatch(/round 1: shard 1 did not answer \(timeout/);
    // Round 1 gave up near half of the 3 s budget; the answer came well before the deadline.
    expect(b.topCount!.rounds![0]!.elapsedMs).toBeGreaterThan(1200);
    expect(b.topCount!.rounds![0]!.elapsedMs).toBeLessThan(1800);
    expect(took).toBeLessThan(3000);
  });

  it('missing in round 2: partial with the shard named, or 504 when completeness is required', async () => {
    await load(cluster.shards, cluster.oracle!, events(3000, 'skewed', 8), (_, i) => i % 3);
    const fail = (s: number, req: { sql: string }) => (s === 2 && round(req) === 2 ? new InvokeError('unavailable', 'shard 2 is down') : undefined);
    const r = await runQuery({ sql: QUERIES[0]!, settings: { ch_scatter_top_count: 'tput' } }, depsFor(topo, cluster.shards, { fail }));
    expect(r.status).toBe(200);
    const b = r.body as QueryResponse;
    expect(b.partial).toBe(true);
    expect(b.shards.missing.map((m) => m.shard)).toEqual([2]);
    expect(b.topCount!.method).toBe('tput');
    const strict = await runQuery(
      { sql: QUERIES[0]!, settings: { ch_scatter_top_count: 'tput' }, requireComplete: true },
      depsFor(topo, cluster.shards, { fail }),
    );
    expect(strict.status).toBe(504);
  });
});

describe('TPUT property: any split of the rows, any arrival order', () => {
  it('equals one engine holding every row', async () => {
    const queries = [
      (k: number, m: number) => `SELECT user, count() AS c, sum(amount) AS s FROM ${T} GROUP BY user ORDER BY c DESC, user LIMIT ${k} OFFSET ${m}`,
      (k: number, m: number) => `SELECT name, user % 3 AS u3, count() AS c FROM ${T} GROUP BY name, u3 ORDER BY c DESC, name, u3 DESC LIMIT ${k} OFFSET ${m}`,
      (k: number, m: number) => `SELECT user, countIf(flag = 1) AS c FROM ${T} GROUP BY user ORDER BY c DESC, user LIMIT ${k} OFFSET ${m}`,
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          n: fc.integer({ min: 0, max: 400 }),
          kind: fc.constantFrom('skewed' as const, 'uniform' as const),
          dataSeed: fc.integer({ min: 1, max: 1_000_000 }),
          split: fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 1, maxLength: 17 }),
          delays: fc.array(fc.integer({ min: 0, max: 15 }), { minLength: 9, maxLength: 9 }),
          k: fc.integer({ min: 1, max: 12 }),
          m: fc.integer({ min: 0, max: 4 }),
          q: fc.integer({ min: 0, max: queries.length - 1 }),
        }),
        async ({ n, kind, dataSeed, split, delays, k, m, q }) => {
          const rows = events(n, kind, dataSeed).map((r) => (kind === 'uniform' ? { ...r, user: r.user % 25 } : r));
          await load(cluster.shards, cluster.oracle!, rows, (_, i) => split[i % split.length]!);
          let call = 0;
          const d = depsFor(topo, cluster.shards, { delay: (s) => delays[(s * 3 + call++) % delays.length]! });
          const sql = queries[q]!(k, m);
          const r = await runQuery({ sql, settings: { ch_scatter_top_count: 'tput' } }, d);
          expect(r.status, JSON.stringify(r.body).slice(0, 400)).toBe(200);
          const b = r.body as QueryResponse;
          expect(b.data, sql).toEqual(await ref()(sql));
          if (n > 0) expect(b.topCount?.fellBack, sql).toBeUndefined();
        },
      ),
      { numRuns: 25 },
    );
  }, 300_000);
});
