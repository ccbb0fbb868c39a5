import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Topology } from '../../../shared/core/config/schema.js';
import { explainPlan, planQuery } from '../../../shared/core/plan/index.js';
import type { ShardRequest } from '../../../shared/core/protocol/shard-wire.js';
import { createHedgeState } from '../../../shared/core/scatter/hedge.js';
import { InvokeError, type ShardInvoker } from '../../../shared/core/scatter/invoker.js';
import { runQuery, type PlanFn, type RunDeps } from '../../../shared/core/scatter/run-query.js';
import { initiatorOrder } from '../../../shared/core/scatter/two-stage/final-stage.js';
import { planTwoStage } from '../../../shared/core/plan/two-stage/plan.js';
import { computeDeadline } from '../../../shared/core/scatter/deadline.js';
import { runGeneralQuery } from '../../../shared/core/scatter/two-stage/index.js';
import type { createShardHandler } from '../../../functions/shard/shard-function.js';
import { DEMO_LOCAL, DEMO_TABLE } from '../../../local/demo.js';
import type { EmbeddedCluster } from '../../support/embedded-cluster.js';
import { startDemoChdb } from '../../support/demo-chdb.js';
import { CASES, JSON_SETTINGS, casePlanner, expectSameAnswer, planOf, sqlOf } from './cases.js';

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
const ROWS = 30_000;
let cluster: EmbeddedCluster;
let topo: Topology;
let fns: ReturnType<typeof createShardHandler>[];

beforeAll(async () => {
  // Two "replicas" per shard, both the shard's engine: failover is about the functions, not the data.
  ({ cluster, topo, fns } = await startDemoChdb({ rows: ROWS, replicasPerShard: 2 }));
}, 120_000);
afterAll(async () => {
  await cluster?.stop();
});

function deps(edit?: (shard: number, p: ShardRequest) => Promise<never> | undefined, queryId = 'q-chdb'): RunDeps & { sent: ShardRequest[] } {
  const sent: ShardRequest[] = [];
  const invoker: ShardInvoker = {
    invoke: async (shard, payload) => {
      sent.push(payload);
      const over = edit?.(shard, payload);
      if (over) return over;
      return fns[shard]!(payload);
    },
  };
  return {
    sent,
    topo,
    invoker,
    planQuery: planQuery as PlanFn,
    explainPlan,
    hedgeState: createHedgeState(),
    queryId,
    behindApiGateway: false,
    planTwoStage: casePlanner(CASES, DEMO_TABLE),
  };
}

async function reference(sql: string): Promise<{ meta: unknown; data: Record<string, unknown>[]; totals?: Record<string, unknown> }> {
  const r = await cluster.oracle!.queryRaw(sql.replaceAll(DEMO_TABLE, DEMO_LOCAL), { format: 'JSON', settings: JSON_SETTINGS });
  const doc = JSON.parse(r.bytes.toString('utf8'));
  return { meta: doc.meta, data: doc.data, ...(doc.totals ? { totals: doc.totals } : {}) };
}

const hang = (signal?: AbortSignal) =>
  new Promise<never>((_, reject) => signal?.addEventListener('abort', () => reject(new InvokeError('aborted', 'aborted')), { once: true }));

describe('general path on chdb shards = one engine holding every row', () => {
  for (const c of CASES) {
    it(c.name, async () => {
      const sql = sqlOf(c, DEMO_TABLE);
      const d = deps();
      const r = await runQuery({ sql, settings: { ch_scatter_path: 'general' } }, d);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      const b = r.body as Record<string, any>;
      expect(b.path).toBe('general');
      expect(b.partial).toBe(false);
      expectSameAnswer(b, await reference(sql), c);
      // Stage one went out as TabSeparatedWithNamesAndTypes to every shard, the final stage once.
      const finals = d.sent.filter((p) => p.tables);
      expect(finals).toHaveLength(1);
      // (TPUT's rounds before a top count, shared/core/scatter/tput/, ask for rows: not stage one.)
      expect(d.sent.filter((p) => !p.tables && !p.sql.includes('_tput_')).every((p) => p.format === 'TabSeparatedWithNamesAndTypes')).toBe(true);
      expect(b.statistics.finalStage.inputRows).toBeGreaterThan(0);
    });
  }

  it('with the real planner (path auto): every case equals one engine', async () => {
    for (const c of CASES) {
      const sql = sqlOf(c, DEMO_TABLE);
      const d = deps();
      d.planTwoStage = planTwoStage;
      const r = await runQuery({ sql }, d);
      expect(r.status, `${c.name}: ${JSON.stringify(r.body).slice(0, 300)}`).toBe(200);
      const b = r.body as Record<string, any>;
      // What the fast path covers stays there (the row query); everything else is general.
      expect(b.path, c.name).toBe(c.name.startsWith('rows:') ? 'fast' : 'general');
      expectSameAnswer(b, await reference(sql), c);
    }
  });

  it('auto: exact top count by default, the same rows as one engine', async () => {
    const c = CASES[1]!;
    const r = await runQuery({ sql: sqlOf(c, DEMO_TABLE) }, deps());
    const b = r.body as Record<string, any>;
    expect(b.path).toBe('general');
    expect(b.approximate).toBeUndefined();
    expectSameAnswer(b, await reference(sqlOf(c, DEMO_TABLE)), c);
  });
});

describe('general path on chdb: any FORMAT, bytes passed through (the ClickHouse HTTP interface)', () => {
  for (const format of ['TabSeparatedWithNamesAndTypes', 'CSVWithNames', 'JSONEachRow']) {
    it(`${format}: the final stage's bytes are the single engine's bytes`, async () => {
      const c = CASES[0]!; // WITH TOTALS and ORDER BY: one deterministic answer
      const d = deps();
      const r = await runGeneralQuery({ topo, invoker: d.invoker, hedgeState: d.hedgeState, queryId: 'q-format' }, planOf(c, DEMO_TABLE), {
        deadline: computeDeadline({ now: Date.now(), requestTimeoutMs: 5000, configTimeoutMs: 5000, behindApiGateway: false }),
        format,
        requireComplete: true,
        hedge: { enabled: false, afterQuantile: 0.95, maxExtraPercent: 5 },
      });
      expect(r.partial).toBe(false);
      expect(r.data).toBeUndefined();
      const want = (await cluster.oracle!.queryRaw(sqlOf(c, DEMO_TABLE).replaceAll(DEMO_TABLE, DEMO_LOCAL), { format })).bytes;
      // The same bytes, up to the last digits of the float column (stddevPop merged from states).
      const digits = (b: Buffer) => b.toString('utf8').replace(/\d+\.\d+(e[-+]?\d+)?/g, (x) => Number(x).toPrecision(9));
      expect(digits(r.bytes!)).toBe(digits(want));
      expect(r.bytes!.length).toBeGreaterThan(100);
    });
  }
});

describe('general path on chdb: missing shards, failover, deadline, limits', () => {
  const c = CASES[0]!;
  const sql = sqlOf(c, DEMO_TABLE);

  it('a shard that does not answer: partial with the shard listed, and the answer over the other shards', async () => {
    const d = deps((shard, p) => (shard === 1 && !p.tables ? hang() : undefined));
    // 10 s leaves the final stage a 1 s reserve (a tenth of the budget): 150 ms at 1.5 s, and 500 ms at
    // 5 s, were too little for its engine on a loaded machine (load average 11), and the answer missed the deadline.
    const r = await runQuery({ sql, settings: { ch_scatter_path: 'general' }, timeoutMs: 10_000 }, d);
    expect(r.status).toBe(200);
    const b = r.body as Record<string, any>;
    expect(b.partial).toBe(true);
    expect(b.shards.missing).toEqual([expect.objectContaining({ shard: 1, reason: 'timeout' })]);
    // slots [0,1,2] (weights 1): shard 1 holds xxHash64(sensor) % 3 = 1.
    const want = await reference(sql.replace('GROUP BY', 'WHERE xxHash64(sensor) % 3 != 1 GROUP BY'));
    expectSameAnswer(b, want, c);
  });

  it('a GLOBAL subquery missing a shard: partial on either path, with the shard listed; 504 with requireComplete', async () => {
    // The set lacks shard 1's sensors, so IN pruning skips shard 1 in the main query: without the
    // subquery's missing shard in the verdict, the general path's answer would look complete.
    const q = `SELECT site, count() AS n FROM ${DEMO_TABLE} WHERE sensor GLOBAL IN (SELECT sensor FROM ${DEMO_TABLE} WHERE status = 200) GROUP BY site ORDER BY site`;
    const subqueryOnShard1 = (shard: number, p: ShardRequest) =>
      shard === 1 && p.sql.includes('DISTINCT sensor') ? Promise.reject(new InvokeError('unavailable', 'connection refused')) : undefined;
    for (const path of ['fast', 'general']) {
      const d = deps(subqueryOnShard1);
      d.planTwoStage = planTwoStage;
      const r = await runQuery({ sql: q, settings: { ch_scatter_path: path } }, d);
      expect(r.status, path).toBe(200);
      const b = r.body as Record<string, any>;
      expect(b.path).toBe(path);
      expect(b.partial, path).toBe(true);
      expect(b.shards.missing, path).toEqual([expect.objectContaining({ shard: 1, reason: 'unavailable', subquery: true })]);
      const strict = await runQuery({ sql: q, settings: { ch_scatter_path: path }, requireComplete: true }, { ...deps(subqueryOnShard1), planTwoStage });
      expect(strict.status, path).toBe(504);
      expect((strict.body as any).error.code).toBe('INCOMPLETE_RESULT');
    }
  });

  it('requireComplete: the same missing shard is 504 INCOMPLETE_RESULT', async () => {
    const d = deps((shard, p) => (shard === 2 && !p.tables ? Promise.reject(new InvokeError('unavailable', 'connection refused')) : undefined));
    const r = await runQuery({ sql, settings: { ch_scatter_path: 'general' }, requireComplete: true }, d);
    expect(r.status).toBe(504);
    expect((r.body as any).error.code).toBe('INCOMPLETE_RESULT');
    expect(d.sent.some((p) => p.tables)).toBe(false);
  });

  it("the final stage fails over when the chosen shard's functions are unavailable, and the answer is unchanged", async () => {
    const first = initiatorOrder('q-failover', [0, 1, 2]);
    const d = deps(
      (shard, p) => (p.tables && shard === first[0] ? Promise.reject(new InvokeError('unavailable', 'connection refused')) : undefined),
      'q-failover',
    );
    const r = await runQuery({ sql, settings: { ch_scatter_path: 'general' } }, d);
    expect(r.status).toBe(200);
    const b = r.body as Record<string, any>;
    // Both replicas of the first choice, then the next shard.
    const finals = d.sent.filter((p) => p.tables);
    expect(finals.map((p) => p.shard)).toEqual([first[0], first[0], first[1]]);
    expect(new Set(finals.slice(0, 2).map((p) => p.replica))).toEqual(new Set([0, 1]));
    expect(b.statistics.finalStage.shard).toBe(first[1]);
    expect(b.statistics.finalStage.failedOver).toEqual([expect.objectContaining({ shard: first[0], status: 'unavailable' })]);
    expectSameAnswer(b, await reference(sql), c);
  });

  it('a deadline that falls during the final stage: 504 TIMEOUT at the deadline (the engine stops the query)', async () => {
    const slow = planOf({ ...c, finalSql: 'SELECT _k0 AS site, countMerge(_a0) AS c, sleepEachRow(0.5) AS z FROM _stage0 GROUP BY _k0' }, DEMO_TABLE);
    const d = deps();
    d.planTwoStage = () => slow;
    const t0 = Date.now();
    const r = await runQuery({ sql, settings: { ch_scatter_path: 'general' }, timeoutMs: 1200 }, d);
    const took = Date.now() - t0;
    expect(r.status).toBe(504);
    expect((r.body as any).error.code).toBe('TIMEOUT');
    expect((r.body as any).error.message).toMatch(/final stage/);
    expect(took).toBeLessThan(1200 + 400);
  });

  it("maxRowsToTransfer over the shards' stage-one rows: 413 TRANSFER_LIMIT, no final stage", async () => {
    const rows = CASES[3]!; // 7 rows per shard
    const d = deps();
    const r = await runQuery({ sql: sqlOf(rows, DEMO_TABLE), settings: { ch_scatter_path: 'general', max_rows_to_transfer: 10 } }, d);
    expect(r.status).toBe(413);
    expect((r.body as any).error.code).toBe('TRANSFER_LIMIT');
    expect((r.body as any).error.message).toMatch(/maxRowsToTransfer/);
    expect(d.sent.some((p) => p.tables)).toBe(false);
  });
});

describe('general path on chdb: one shard holds every row the query reads', () => {
  it('runs both stages (a window over the groups included) in one request on that shard, the same answer as one engine', async () => {
    const sql =
      `SELECT metric, count() AS c, quantileExact(0.5)(value) AS q, arraySort(groupUniqArray(site)) AS sites, rank() OVER (ORDER BY count() DESC, metric) AS r ` +
      `FROM ${DEMO_TABLE} WHERE sensor = 's-17' GROUP BY metric ORDER BY metric`;
    const d = deps();
    d.planTwoStage = planTwoStage;
    const r = await runQuery({ sql, settings: { ch_scatter_path: 'general' } }, d);
    expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(200);
    const b = r.body as Record<string, any>;
    const want = await reference(sql);
    expect(b.meta).toEqual(want.meta);
    expect(b.data).toEqual(want.data);
    expect(want.data.length).toBeGreaterThan(1);
    expect(d.sent).toHaveLength(1);
    expect(d.sent[0]!.tables).toBeUndefined();
    expect(b.statistics.finalStage.oneShard).toBe(true);
  });
});
