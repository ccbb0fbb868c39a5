import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Topology } from '../../../shared/core/config/schema.js';
import { explainPlan, planQuery } from '../../../shared/core/plan/index.js';
import { planTwoStage } from '../../../shared/core/plan/two-stage/plan.js';
import type { ShardBatchRequest, ShardRequest, ShardResponse } from '../../../shared/core/protocol/shard-wire.js';
import { createHedgeState } from '../../../shared/core/scatter/hedge.js';
import type { ShardInvoker } from '../../../shared/core/scatter/invoker.js';
import { runQuery, type PlanFn, type RunDeps } from '../../../shared/core/scatter/run-query.js';
import type { createShardHandler } from '../../../functions/shard/shard-function.js';
import { DEMO_LOCAL, DEMO_TABLE } from '../../../local/demo.js';
import type { EmbeddedCluster } from '../../support/embedded-cluster.js';
import { startDemoChdb } from '../../support/demo-chdb.js';
import { JSON_SETTINGS } from './cases.js';

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
const ROWS = 9_000;
let cluster: EmbeddedCluster;
let topo: Topology;
let fns: ReturnType<typeof createShardHandler>[];

const UNION3 =
  `SELECT 'ams' AS what, count() AS c FROM ${DEMO_TABLE} WHERE site = 'ams' ` +
  `UNION ALL SELECT 'alarm', count() FROM ${DEMO_TABLE} WHERE status = 500 ` +
  `UNION ALL SELECT 'temp', count() FROM ${DEMO_TABLE} WHERE metric = 'temp'`;

beforeAll(async () => {
  ({ cluster, topo, fns } = await startDemoChdb({ rows: ROWS, replicasPerShard: 2 }));
}, 120_000);
afterAll(async () => {
  await cluster?.stop();
});

interface Counted {
  single: ShardRequest[];
  batches: ShardBatchRequest[];
}

/** An invoker over the shard functions that counts invocations; `editBatch` may rewrite a batch's answer. */
function deps(batching: boolean, editBatch?: (p: ShardBatchRequest, r: ShardResponse) => ShardResponse): RunDeps & Counted {
  const single: ShardRequest[] = [];
  const batches: ShardBatchRequest[] = [];
  const invoker: ShardInvoker = {
    invoke: async (shard, payload) => {
      single.push(payload);
      return fns[shard]!(payload);
    },
    ...(batching
      ? {
          invokeBatch: async (shard: number, payload: ShardBatchRequest) => {
            batches.push(payload);
            const r = (await fns[shard]!(payload)) as ShardResponse;
            return editBatch ? editBatch(payload, r) : r;
          },
        }
      : {}),
  };
  return {
    single,
    batches,
    topo,
    invoker,
    planQuery: planQuery as PlanFn,
    explainPlan,
    hedgeState: createHedgeState(),
    queryId: 'q-batch',
    behindApiGateway: false,
    planTwoStage,
  };
}

async function reference(sql: string): Promise<Record<string, unknown>[]> {
  const r = await cluster.oracle!.queryRaw(sql.replaceAll(DEMO_TABLE, DEMO_LOCAL), { format: 'JSON', settings: JSON_SETTINGS });
  return sorted(JSON.parse(r.bytes.toString('utf8')).data);
}
const sorted = (rows: Record<string, unknown>[]) => [...rows].sort((a, b) => String(a.what).localeCompare(String(b.what)));

describe('stage one batched per shard (chdb)', () => {
  it('a 3-branch UNION ALL over 3 shards: one stage-one invocation per shard, the same answer as one engine', async () => {
    const want = await reference(UNION3);
    const batched = deps(true);
    const r = await runQuery({ sql: UNION3, settings: { ch_scatter_path: 'general' } }, batched);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const b = r.body as Record<string, any>;
    expect(b.partial).toBe(false);
    expect(sorted(b.data)).toEqual(want);
    // Three batches of three leaves; only the final stage goes alone.
    expect(batched.batches.map((p) => [p.shard, p.requests.length]).sort()).toEqual([
      [0, 3],
      [1, 3],
      [2, 3],
    ]);
    expect(batched.single.filter((p) => !p.tables)).toHaveLength(0);

    const alone = deps(false);
    const r2 = await runQuery({ sql: UNION3, settings: { ch_scatter_path: 'general' } }, alone);
    expect(sorted((r2.body as Record<string, any>).data)).toEqual(want);
    expect(alone.single.filter((p) => !p.tables)).toHaveLength(9);
  });

  it("the shard answers each item on its own: an item it refuses fails alone, with the shard's code", async () => {
    const deadline = Date.now() + 10_000;
    const r = (await fns[0]!({
      type: 'batch',
      queryId: 'q-items',
      shard: 0,
      replica: 0,
      deadline,
      attempt: 'primary',
      requests: [
        { sql: `SELECT count() FROM ${DEMO_LOCAL}`, format: 'TabSeparated' },
        { sql: `SELECT count() FROM ${DEMO_LOCAL} SETTINGS readonly = 0`, format: 'TabSeparated' },
        { sql: 'SELECT no_such_column FROM system.one', format: 'TabSeparated' },
      ],
    })) as ShardResponse;
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.batch?.map((x) => x.ok)).toEqual([true, false, false]);
    const [ok, refused, fault] = r.batch!;
    expect(ok!.ok && Buffer.from(ok!.raw!, 'base64').toString()).toMatch(/^\d+\n$/);
    expect(!refused!.ok && refused!.error.code).toBe('BAD_REQUEST');
    expect(!fault!.ok && fault!.error.chCode).toBe(47);
  });

  it('an item that failed retryably is asked again alone: the answer is complete', async () => {
    const d = deps(true, (p, r) => {
      if (!r.ok || p.shard !== 1 || !r.batch) return r;
      const batch = [...r.batch];
      batch[1] = { ok: false, shard: 1, replica: p.replica, error: { kind: 'unavailable', code: 'UNAVAILABLE', message: 'connection refused' } };
      return { ...r, batch };
    });
    const r = await runQuery({ sql: UNION3, settings: { ch_scatter_path: 'general' } }, d);
    const b = r.body as Record<string, any>;
    expect(r.status, JSON.stringify(b)).toBe(200);
    expect(b.partial).toBe(false);
    expect(sorted(b.data)).toEqual(await reference(UNION3));
    const again = d.single.filter((p) => !p.tables);
    expect(again.map((p) => p.shard)).toEqual([1]);
    expect(again[0]!.sql).toBe(d.batches.find((x) => x.shard === 1)!.requests[1]!.sql);
  });

  it("an item's query fault fails the query with ClickHouse's code, as a lone request's would, and is not asked again", async () => {
    const d = deps(true, (p, r) => {
      if (!r.ok || p.shard !== 2 || !r.batch) return r;
      const batch = [...r.batch];
      batch[2] = { ok: false, shard: 2, replica: p.replica, error: { kind: 'error', code: 'SHARD_ERROR', chCode: 47, message: 'Missing columns' } };
      return { ...r, batch };
    });
    const r = await runQuery({ sql: UNION3, settings: { ch_scatter_path: 'general' } }, d);
    const b = r.body as Record<string, any>;
    expect(r.status, JSON.stringify(b)).toBe(400);
    expect(b.clickhouse.code).toBe(47);
    // Not asked again (another replica would say the same); the leaf is named on its shard.
    expect(d.single.filter((p) => !p.tables)).toHaveLength(0);
    expect(b.shards.missing).toEqual([{ shard: 2, reason: 'error', message: '_stage2: Missing columns' }]);
  });
});

describe("TPUT's pre-pass and the batches (chdb)", () => {
  const TOP = `SELECT site, count() AS c FROM ${DEMO_TABLE} GROUP BY site ORDER BY c DESC, site LIMIT 2`;
  const tput = { ch_scatter_top_count: 'tput' };

  it('the pre-pass is one invocation per shard, alone; round two, whose SQL carries its candidates, the next one', async () => {
    const d = deps(true);
    const r = await runQuery({ sql: TOP, settings: tput }, d);
    const b = r.body as Record<string, any>;
    expect(r.status, JSON.stringify(b)).toBe(200);
    expect(b.topCount.method).toBe('tput');
    const want = await cluster.oracle!.queryRaw(TOP.replaceAll(DEMO_TABLE, DEMO_LOCAL), { format: 'JSON', settings: JSON_SETTINGS });
    expect(b.data).toEqual(JSON.parse(want.bytes.toString()).data);
    const prepass = d.single.filter((p) => p.sql.includes('_tput_'));
    expect(prepass.map((p) => p.shard).sort()).toEqual([0, 1, 2]);
    // Nothing of the plan travels beside it: a top count TPUT takes is one SELECT over one table,
    // and round two is written from every shard's round one (the candidates), so it cannot go along.
    expect(d.batches.flatMap((x) => x.requests).some((q) => q.sql.includes('_tput_'))).toBe(false);
    const roundTwo = d.single.filter((p) => !p.sql.includes('_tput_') && !p.tables);
    expect(roundTwo.map((p) => p.shard).sort()).toEqual([0, 1, 2]);
    expect(roundTwo.every((p) => /\bIN\b/.test(p.sql))).toBe(true);
    // Three pre-pass invocations, three of round two's stage one, one final stage.
    expect(d.single.length + d.batches.length).toBe(7);
  });

  it('a UNION with a top-count branch runs no pre-pass (TPUT takes one SELECT): its leaves share one invocation per shard', async () => {
    const sql = `${TOP} UNION ALL SELECT 'all', count() FROM ${DEMO_TABLE}`;
    const d = deps(true);
    const r = await runQuery({ sql, settings: tput }, d);
    const b = r.body as Record<string, any>;
    expect(r.status, JSON.stringify(b)).toBe(200);
    const want = JSON.parse(
      (await cluster.oracle!.queryRaw(sql.replaceAll(DEMO_TABLE, DEMO_LOCAL), { format: 'JSON', settings: JSON_SETTINGS })).bytes.toString(),
    ).data;
    const bySite = (rows: Record<string, unknown>[]) => [...rows].sort((x, y) => String(x.site).localeCompare(String(y.site)));
    expect(bySite(b.data)).toEqual(bySite(want));
    expect([...d.single, ...d.batches.flatMap((x) => x.requests)].some((q) => q.sql.includes('_tput_'))).toBe(false);
    expect(d.batches.map((x) => [x.shard, x.requests.length]).sort()).toEqual([
      [0, 2],
      [1, 2],
      [2, 2],
    ]);
  });
});
