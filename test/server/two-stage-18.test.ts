// The general path on three Debian clickhouse-server 18.16 shards: the shard functions' real
// HTTP adapter (stage one as TabSeparatedWithNamesAndTypes, the final stage's temporary tables in
// a session under readonly=2), compared with the same servers' Distributed table. States written
// by 18.16 are merged by 18.16 (the final stage runs on one of the shards).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTopology } from '../../shared/core/config/load.js';
import type { Topology } from '../../shared/core/config/schema.js';
import { explainPlan, planQuery } from '../../shared/core/plan/index.js';
import type { ShardRequest } from '../../shared/core/protocol/shard-wire.js';
import { createHedgeState } from '../../shared/core/scatter/hedge.js';
import { InvokeError, type ShardInvoker } from '../../shared/core/scatter/invoker.js';
import { runExplain, runQuery, type PlanFn, type RunDeps } from '../../shared/core/scatter/run-query.js';
import { initiatorOrder } from '../../shared/core/scatter/two-stage/final-stage.js';
import { planTwoStage } from '../../shared/core/plan/two-stage/plan.js';
import { createShardHandler, envShardDeps } from '../../functions/shard/handler.js';
import { CASES, JSON_SETTINGS, casePlanner, expectSameAnswer, planOf, sqlOf } from '../integration/two-stage/cases.js';
import { chHttp, useChServers } from '../support/ch-servers.js';

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
process.env.POWERTOOLS_METRICS_DISABLED = 'true';

const servers = useChServers({ n: 3, portBase: 19970 });
const T = 'default.ev_dist';
const ROWS = 30_000;
const cases = CASES.filter((c) => !c.chdbOnly);
let topo: Topology;
let fns: Array<(e: unknown) => Promise<any>>;

beforeAll(async () => {
  const urls = servers.current.urls;
  for (const [i, url] of urls.entries()) {
    await chHttp(
      url,
      'CREATE TABLE default.ev (id UInt64, sensor String, site String, metric String, value Float64, status UInt16) ENGINE = MergeTree() ORDER BY id',
    );
    await chHttp(url, 'CREATE TABLE default.ev_dist AS default.ev ENGINE = Distributed(scatter, default, ev, id)');
    // Weights 1,1,1 and an identity key: id % 3 is the shard (the Distributed table's own rule).
    await chHttp(
      url,
      `INSERT INTO default.ev SELECT number, concat('s-', toString(number % 5000)), ['ams', 'fra', 'iad', 'sfo', 'syd'][number % 5 + 1],
        ['temp', 'humidity', 'pressure'][intDiv(number, 7) % 3 + 1], round((number % 1000) / 10 + sin(number), 3), toUInt16(if(number % 97 = 0, 500, 200))
       FROM system.numbers WHERE number % 3 = ${i} LIMIT ${ROWS / 3}`,
    );
  }
  topo = parseTopology({
    cluster: 'scatter',
    shards: urls.map((url) => ({ replicas: [{ url }, { url }] })),
    tables: { [T]: { local: 'default.ev', shardingKey: { column: 'id', type: 'UInt64', function: 'identity' } } },
    query: { hedge: { enabled: false } },
  });
  fns = urls.map(
    (url, i) =>
      createShardHandler(envShardDeps({ CH_SCATTER_SHARD: JSON.stringify({ shard: i, replicas: [{ url }, { url }] }) })) as (e: unknown) => Promise<any>,
  );
}, 120_000);
afterAll(() => undefined);

function deps(edit?: (shard: number, p: ShardRequest) => Promise<never> | undefined, queryId = 'q-18'): RunDeps & { sent: ShardRequest[] } {
  const sent: ShardRequest[] = [];
  const invoker: ShardInvoker = {
    invoke: async (shard, payload) => {
      sent.push(payload);
      return edit?.(shard, payload) ?? fns[shard]!(payload);
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
    planTwoStage: casePlanner(cases, T),
  };
}

/** The Distributed table's own answer, in ClickHouse JSON. */
async function distributed(sql: string): Promise<{ meta: unknown; data: Record<string, unknown>[]; totals?: Record<string, unknown> }> {
  const doc = JSON.parse(await chHttp(servers.current.urls[0]!, `${sql} FORMAT JSON`, JSON_SETTINGS));
  return { meta: doc.meta, data: doc.data, ...(doc.totals ? { totals: doc.totals } : {}) };
}

const hang = () => new Promise<never>(() => undefined);

describe('general path on 18.16 shards = the Distributed table', () => {
  for (const c of cases) {
    it(c.name, async () => {
      const sql = sqlOf(c, T);
      const d = deps();
      const r = await runQuery({ sql, settings: { ch_scatter_path: 'general' } }, d);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      const b = r.body as Record<string, any>;
      expect(b.path).toBe('general');
      expect(b.partial).toBe(false);
      expectSameAnswer(b, await distributed(sql), c);
      expect(d.sent.filter((p) => p.tables)).toHaveLength(1);
    });
  }
});

describe('general path on 18.16 with the real planner', () => {
  it('every case (path auto) equals the Distributed table', async () => {
    for (const c of cases) {
      const sql = sqlOf(c, T);
      const d = deps();
      d.planTwoStage = planTwoStage;
      const r = await runQuery({ sql }, d);
      expect(r.status, `${c.name}: ${JSON.stringify(r.body).slice(0, 300)}`).toBe(200);
      expect((r.body as Record<string, unknown>).path, c.name).toBe(c.name.startsWith('rows:') ? 'fast' : 'general');
      expectSameAnswer(r.body as Record<string, any>, await distributed(sql), c);
    }
  });
});

describe('general path on 18.16: missing shard, failover, deadline', () => {
  const c = cases[0]!;
  const sql = sqlOf(c, T);

  it('a shard that does not answer: partial, and the answer over the other shards', async () => {
    const d = deps((shard, p) => (shard === 1 && !p.tables ? hang() : undefined));
    const r = await runQuery({ sql, settings: { ch_scatter_path: 'general' }, timeoutMs: 1500 }, d);
    expect(r.status).toBe(200);
    const b = r.body as Record<string, any>;
    expect(b.partial).toBe(true);
    expect(b.shards.missing).toEqual([expect.objectContaining({ shard: 1, reason: 'timeout' })]);
    expectSameAnswer(b, await distributed(sql.replace('GROUP BY', 'WHERE id % 3 != 1 GROUP BY')), c);
  });

  it('requireComplete: 504 INCOMPLETE_RESULT', async () => {
    const d = deps((shard, p) => (shard === 0 && !p.tables ? Promise.reject(new InvokeError('unavailable', 'connection refused')) : undefined));
    const r = await runQuery({ sql, settings: { ch_scatter_path: 'general' }, requireComplete: true }, d);
    expect(r.status).toBe(504);
    expect((r.body as any).error.code).toBe('INCOMPLETE_RESULT');
  });

  it('the final stage fails over to the next shard', async () => {
    const first = initiatorOrder('q-18-failover', [0, 1, 2]);
    const d = deps(
      (shard, p) => (p.tables && shard === first[0] ? Promise.reject(new InvokeError('unavailable', 'connection refused')) : undefined),
      'q-18-failover',
    );
    const r = await runQuery({ sql, settings: { ch_scatter_path: 'general' } }, d);
    expect(r.status).toBe(200);
    const b = r.body as Record<string, any>;
    expect(b.statistics.finalStage.shard).toBe(first[1]);
    expectSameAnswer(b, await distributed(sql), c);
  });

  it('a deadline during the final stage: 504 TIMEOUT, and the server query is stopped', async () => {
    const slow = planOf({ ...c, finalSql: 'SELECT _k0 AS site, countMerge(_a0) AS c, sleepEachRow(0.5) AS z FROM _stage0 GROUP BY _k0' }, T);
    const d = deps();
    d.planTwoStage = () => slow;
    const t0 = Date.now();
    const r = await runQuery({ sql, settings: { ch_scatter_path: 'general' }, timeoutMs: 1500 }, d);
    expect(r.status).toBe(504);
    expect((r.body as any).error.message).toMatch(/final stage/);
    expect(Date.now() - t0).toBeLessThan(1500 + 500);
    // The shard KILLs its query at the deadline: nothing keeps sleeping on any server.
    const running = async () => {
      let n = 0;
      for (const url of servers.current.urls)
        n += Number(
          (await chHttp(url, "SELECT count() FROM system.processes WHERE query LIKE '%sleepEachRow%' AND query NOT LIKE '%system.processes%'")).trim(),
        );
      return n;
    };
    await expect.poll(running, { timeout: 2000, interval: 100 }).toBe(0);
  });
});

describe('general path on 18.16: the final stage shard keeps its own rows', () => {
  const c = cases[0]!;
  const sql = sqlOf(c, T);
  const rowsOf = (b64: string) => Buffer.from(b64, 'base64').toString('latin1').split('\n').length - 1;
  /** A session id of the right shape that no server knows. */
  const unknownSession = 'chs-00000000-0000-4000-8000-000000000000';

  it('the keeper answers stage one with its header only, and the final stage adds the others to its table', async () => {
    const keeper = initiatorOrder('q-18-keep', [0, 1, 2])[0]!;
    const d = deps(undefined, 'q-18-keep');
    const r = await runQuery({ sql, settings: { ch_scatter_path: 'general' } }, d);
    expect(r.status).toBe(200);
    const b = r.body as Record<string, any>;
    expectSameAnswer(b, await distributed(sql), c);
    const stageOne = d.sent.filter((p) => !p.tables);
    expect(stageOne.filter((p) => p.keep).map((p) => p.shard)).toEqual([keeper]);
    const fin = d.sent.filter((p) => p.tables);
    expect(fin).toHaveLength(1);
    expect(fin[0]!.shard).toBe(keeper);
    expect(fin[0]!.session).toMatch(/^chs-/);
    expect(fin[0]!.tables![0]!.kept).toBe(true);
    const kept = b.statistics.finalStage.kept;
    expect(kept).toEqual({ shard: keeper, rows: expect.any(Number) });
    expect(kept.rows).toBeGreaterThan(0);
    // The final request carries exactly the other shards' rows.
    expect(rowsOf(fin[0]!.tables![0]!.tsvBase64) + kept.rows).toBe(b.statistics.finalStage.inputRows);
  });

  it('ch_scatter_keep_initiator_rows = 0 ships every shard, with the same answer', async () => {
    const d = deps(undefined, 'q-18-keep');
    const r = await runQuery({ sql, settings: { ch_scatter_path: 'general', ch_scatter_keep_initiator_rows: 0 } }, d);
    expect(r.status).toBe(200);
    const b = r.body as Record<string, any>;
    expectSameAnswer(b, await distributed(sql), c);
    expect(d.sent.some((p) => p.keep || p.session)).toBe(false);
    expect(b.statistics.finalStage.kept).toBeUndefined();
  });

  it('a lost session (the real server says 372): the kept rows are fetched again, and the answer is the same', async () => {
    const keeper = initiatorOrder('q-18-lost', [0, 1, 2])[0]!;
    const d = deps((shard, p) => {
      if (p.session) return fns[shard]!({ ...p, session: unknownSession }) as Promise<never>;
      return undefined;
    }, 'q-18-lost');
    const r = await runQuery({ sql, settings: { ch_scatter_path: 'general' } }, d);
    expect(r.status).toBe(200);
    const b = r.body as Record<string, any>;
    expectSameAnswer(b, await distributed(sql), c);
    expect(b.partial).toBe(false);
    expect(b.statistics.finalStage.failedOver[0]).toEqual(expect.objectContaining({ shard: keeper, status: 'unavailable' }));
    expect(b.statistics.finalStage.failedOver[0].message).toMatch(/kept stage is gone/);
    expect(b.statistics.finalStage.kept).toBeUndefined();
    // Stage one asked the keeper twice: keeping, then for its rows.
    const toKeeper = d.sent.filter((p) => !p.tables && p.shard === keeper);
    expect(toKeeper.map((p) => Boolean(p.keep))).toEqual([true, false]);
    // The final stage went to the kept session once: a second try there could add the shipped rows
    // twice to the kept table. The answering final stage ran without a session.
    expect(d.sent.filter((p) => p.session)).toHaveLength(1);
    expect(d.sent.filter((p) => p.tables && !p.session)).toHaveLength(1);
  });

  it('the kept session unreachable (the invocation fails): never retried there, the rows fetched again, the same answer', async () => {
    const keeper = initiatorOrder('q-18-down', [0, 1, 2])[0]!;
    const d = deps((_shard, p) => (p.session ? Promise.reject(new InvokeError('unavailable', 'connection reset')) : undefined), 'q-18-down');
    const r = await runQuery({ sql, settings: { ch_scatter_path: 'general' } }, d);
    expect(r.status).toBe(200);
    const b = r.body as Record<string, any>;
    expectSameAnswer(b, await distributed(sql), c);
    expect(b.partial).toBe(false);
    expect(d.sent.filter((p) => p.session).map((p) => p.shard)).toEqual([keeper]);
  });

  it('the kept rows lost and the keeper down: partial without it, or 504 with requireComplete', async () => {
    const keeper = initiatorOrder('q-18-gone', [0, 1, 2])[0]!;
    const edit = (shard: number, p: ShardRequest) => {
      if (p.session) return fns[shard]!({ ...p, session: unknownSession }) as Promise<never>;
      if (shard === keeper && !p.tables && !p.keep) return Promise.reject(new InvokeError('unavailable', 'connection refused'));
      return undefined;
    };
    const r = await runQuery({ sql, settings: { ch_scatter_path: 'general' } }, deps(edit, 'q-18-gone'));
    expect(r.status).toBe(200);
    const b = r.body as Record<string, any>;
    expect(b.partial).toBe(true);
    expect(b.shards.missing).toEqual([expect.objectContaining({ shard: keeper, reason: 'unavailable' })]);
    expectSameAnswer(b, await distributed(sql.replace('GROUP BY', `WHERE id % 3 != ${keeper} GROUP BY`)), c);
    const strict = await runQuery({ sql, settings: { ch_scatter_path: 'general' }, requireComplete: true }, deps(edit, 'q-18-gone'));
    expect(strict.status).toBe(504);
    expect((strict.body as any).error.code).toBe('INCOMPLETE_RESULT');
  });
});

describe('general path on 18.16: one shard holds every row the query reads', () => {
  const sql = `SELECT site, count() AS c, uniq(sensor) AS u, max(value) AS mx FROM ${T} WHERE id IN (3, 6, 9, 30, 300, 3000) GROUP BY site ORDER BY site`;

  it("runs both stages in one request on that shard, with the Distributed table's answer", async () => {
    const d = deps();
    d.planTwoStage = planTwoStage;
    const r = await runQuery({ sql, settings: { ch_scatter_path: 'general' } }, d);
    expect(r.status).toBe(200);
    const b = r.body as Record<string, any>;
    const want = await distributed(sql);
    expect(b.meta).toEqual(want.meta);
    expect(b.data).toEqual(want.data);
    expect(want.data.length).toBeGreaterThan(1);
    expect(d.sent).toHaveLength(1);
    expect(d.sent[0]).toEqual(expect.objectContaining({ shard: 0, format: 'JSON' }));
    expect(d.sent[0]!.tables).toBeUndefined();
    expect(b.statistics.finalStage).toEqual(expect.objectContaining({ shard: 0, oneShard: true, inputRows: 0 }));
    expect(b.shards).toEqual(expect.objectContaining({ queried: 1, succeeded: 1, skipped: 2 }));
    // /explain says so, with the SQL that shard runs.
    const x = (await runExplain({ sql, settings: { ch_scatter_path: 'general' } }, d)).body as Record<string, any>;
    expect(x.finalStage.oneShard).toBe(0);
    expect(x.finalStage.runsOn).toMatch(/both stages in one request on shard 0/);
    expect(x.finalStage.sql).toBe(d.sent[0]!.sql);
  });

  it('that shard down: 502 SHARD_ERROR naming it (no shard answered), never an empty answer', async () => {
    const d = deps((shard) => (shard === 0 ? Promise.reject(new InvokeError('unavailable', 'connection refused')) : undefined));
    d.planTwoStage = planTwoStage;
    const r = await runQuery({ sql, settings: { ch_scatter_path: 'general' } }, d);
    expect(r.status).toBe(502);
    expect((r.body as any).error.message).toMatch(/shard 0/);
  });
});
