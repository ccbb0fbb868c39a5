// "params" on the JSON API's /explain and /query: bound as typed values before planning, so the
// explain shows the pruned shards and the shard SQL carries the value; a missing one is a 400 that
// names ClickHouse's code.
import { describe, expect, it } from 'vitest';
import { parseTopology } from '../../../shared/core/config/load.js';
import { planQuery, explainPlan } from '../../../shared/core/plan/index.js';
import { runExplain, runQuery, type PlanFn, type RunDeps } from '../../../shared/core/scatter/run-query.js';
import { createHedgeState } from '../../../shared/core/scatter/hedge.js';
import type { ShardInvoker } from '../../../shared/core/scatter/invoker.js';
import type { ShardRequest } from '../../../shared/core/protocol/shard-wire.js';
import { parseQueryRequest } from '../../../shared/core/protocol/api-request.js';

const topo = parseTopology({
  cluster: 'c',
  shards: [{ replicas: [{ url: 'http://a:8123' }] }, { replicas: [{ url: 'http://b:8123' }] }, { replicas: [{ url: 'http://c:8123' }] }],
  tables: { 'db.t_dist': { local: 'db.t', shardingKey: { column: 'k', type: 'UInt64', function: 'identity' } } },
});

function deps(sent: ShardRequest[]): RunDeps {
  const invoker: ShardInvoker = {
    async invoke(shard, req) {
      sent.push(req as ShardRequest);
      return {
        ok: true,
        shard,
        replica: 0,
        meta: [{ name: 'c', type: 'UInt64' }],
        rows: [{ c: '1' }],
        statistics: { elapsedMs: 1, rowsRead: 1, bytesRead: 8 },
      };
    },
  };
  return {
    topo,
    invoker,
    planQuery: planQuery as PlanFn,
    explainPlan: explainPlan as (p: unknown) => unknown,
    hedgeState: createHedgeState(),
    queryId: 'q',
  } as RunDeps;
}

describe('JSON API params', () => {
  it('the schema takes string, number, boolean and null values, nothing nested', () => {
    expect(parseQueryRequest({ sql: 'SELECT 1', params: { a: 'x', b: 1, c: true, d: null } }).params).toEqual({ a: 'x', b: 1, c: true, d: null });
    expect(() => parseQueryRequest({ sql: 'SELECT 1', params: { a: [1] } })).toThrow(/params/);
  });

  it('/explain prunes on a parameter as on the literal', async () => {
    const sql = 'SELECT count() AS c FROM db.t_dist WHERE k = {k:UInt64}';
    const byParam = (await runExplain({ sql, params: { k: 4 } }, deps([]))).body as { shards: { skipped: boolean }[] };
    const byLit = (await runExplain({ sql: 'SELECT count() AS c FROM db.t_dist WHERE k = 4' }, deps([]))).body as { shards: { skipped: boolean }[] };
    expect(byParam.shards.map((s) => s.skipped)).toEqual(byLit.shards.map((s) => s.skipped));
    expect(byParam.shards.filter((s) => !s.skipped)).toHaveLength(1);
  });

  it('/query sends the value to the one shard that can hold it', async () => {
    const sent: ShardRequest[] = [];
    const r = await runQuery({ sql: 'SELECT count() AS c FROM db.t_dist WHERE k = {k:UInt64}', params: { k: '5' } }, deps(sent));
    expect(r.status).toBe(200);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.sql).toContain("k = CAST(5, 'UInt64')");
  });

  it('a missing parameter is 400 BAD_REQUEST with ClickHouse code 456', async () => {
    const r = await runQuery({ sql: 'SELECT count() FROM db.t_dist WHERE k = {k:UInt64}' }, deps([]));
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({
      error: { code: 'BAD_REQUEST', message: 'Substitution `k` is not set' },
      clickhouse: { code: 456, name: 'UNKNOWN_QUERY_PARAMETER' },
    });
  });
});

describe('JSON API params on the general path', () => {
  it('a query the fast path refuses still binds its parameters (leaves and final stage alike)', async () => {
    const { planTwoStage } = await import('../../../shared/core/plan/two-stage/plan.js');
    const d = { ...deps([]), planTwoStage: (s: Parameters<typeof planTwoStage>[0], t: typeof topo) => planTwoStage(s, t) };
    const r = await runExplain(
      { sql: 'SELECT k, count() AS c FROM db.t_dist WHERE k = {k:UInt64} GROUP BY k WITH ROLLUP HAVING c > {min:UInt8}', params: { k: 4, min: 0 } },
      d as RunDeps,
    );
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const body = r.body as { path: string; shards: { skipped: boolean }[]; finalStage: { sql: string } };
    expect(body.path).toBe('general');
    expect(body.shards.filter((s) => !s.skipped)).toHaveLength(1);
    expect(body.finalStage.sql).toContain("CAST(0, 'UInt8')");
  });
});
