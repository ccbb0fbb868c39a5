// The aggregation tree end to end (docs/benchmarks.md#5-aggregation-tree-tree): a local stack of six
// embedded (chdb) shards with query.treeFanoutAbove = 2, so the coordinator handler invokes ITSELF
// three times through the real @aws-sdk/client-lambda and the local Invoke endpoint (sub-coordinator
// requests), each sub-coordinator fanning out to its two shards (through the default query invoker, the
// lean signed HTTP one) and answering pre-merged or relayed partials. Every answer must equal the flat
// path's (runQuery without a tree, over the same shard functions and the same SDK invoker) and the
// single-node oracle's.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalStack, type LocalStack } from '../../local/stack.js';
import type { EngineProcess } from '../support/engine-process/engine-process.js';
import { createLambdaInvoker } from '../../shared/adapters/aws/lambda-invoker.js';
import { createHedgeState } from '../../shared/core/scatter/hedge.js';
import { runQuery, type PlanFn } from '../../shared/core/scatter/run-query.js';
import { planQuery } from '../../shared/core/plan/index.js';
import { e2eTopology, expectSameRows, post, startOracle, tempDir } from './support.js';

const ROWS = 20_000;
const SHARDS = 6;
const DIST = 'analytics.sensor_events_dist';
const LOCAL = 'analytics.sensor_events';
let dir: string;
let stack: LocalStack;
let oracle: EngineProcess;
let flat: ReturnType<typeof createLambdaInvoker>;

beforeAll(async () => {
  dir = tempDir('tree');
  const topo = e2eTopology(
    dir,
    Array.from({ length: SHARDS }, () => ({ replicas: [{}] })),
    { treeFanoutAbove: 2 },
  );
  [stack, oracle] = await Promise.all([startLocalStack({ topo, demo: true, demoRows: ROWS, logLevel: 'SILENT', invoker: 'http' }), startOracle(dir, ROWS)]);
  flat = createLambdaInvoker(SHARDS, { endpoint: stack.invokeUrl });
}, 120_000);

afterAll(async () => {
  flat?.close();
  await Promise.all([stack?.stop(), oracle?.close()]);
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The flat path over the same shard functions, serialized as the HTTP answer is. */
async function flatAnswer(sql: string): Promise<{ status: number; body: any }> {
  const topo = { ...stack.topo, query: { ...stack.topo.query, treeFanoutAbove: 0 } };
  const r = await runQuery({ sql }, { topo, invoker: flat, planQuery: planQuery as PlanFn, hedgeState: createHedgeState(), queryId: `flat-${Date.now()}` });
  return { status: r.status, body: JSON.parse(JSON.stringify(r.body)) };
}

const SKETCHES = " SETTINGS ch_scatter_approximate = 'sketches'";
const QUERIES: Array<[string, string]> = [
  ['full aggregate (pre-merged)', `SELECT count() AS c, sum(status) AS s, min(value) AS mn, max(value) AS mx FROM ${DIST}`],
  ['GROUP BY (pre-merged)', `SELECT site, count() AS c, sum(status) AS s FROM ${DIST} GROUP BY site ORDER BY site`],
  // The fast path's HyperLogLog (opted into: by default uniq takes the general path, ClickHouse's own states).
  ['approximate uniq + avg (relayed)', `SELECT metric, uniq(sensor) AS u, avg(value) AS a FROM ${DIST} GROUP BY metric ORDER BY metric${SKETCHES}`],
  [
    'uniqExact + top-k (relayed)',
    `SELECT sensor, count() AS errors, uniqExact(site) AS sites FROM ${DIST} WHERE status = 500 GROUP BY sensor ORDER BY errors DESC, sensor LIMIT 5`,
  ],
  ['row query (relayed)', `SELECT sensor, ts, value FROM ${DIST} WHERE status = 500 ORDER BY value DESC, sensor, ts LIMIT 7`],
];

describe(`local stack, ${SHARDS} shards, treeFanoutAbove 2: the tree answers what the flat path and the single node answer`, () => {
  for (const [name, sql] of QUERIES) {
    it(name, async () => {
      const before = stack.coordinatorInvocations();
      const r = await post(`${stack.url}/query`, { sql });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      // ceil(6 / 2) = 3 sub-coordinators, each the coordinator function invoked through the endpoint.
      expect(stack.coordinatorInvocations() - before).toBe(3);
      expect(r.body.partial).toBe(false);
      expect(r.body.shards).toMatchObject({ total: SHARDS, queried: SHARDS, succeeded: SHARDS, missing: [] });

      const f = await flatAnswer(sql);
      expect(f.status, JSON.stringify(f.body)).toBe(200);
      expect(r.body.meta).toEqual(f.body.meta);
      expect(r.body.approximate).toEqual(f.body.approximate);
      expectSameRows(r.body.data, f.body.data, 'tree vs flat');

      // uniq is a sketch (hll) here and a different approximation in ClickHouse: against the exact
      // count, within 4 standard errors (the tree and the flat path above agree exactly).
      const hll = r.body.approximate?.u as { method: string; relativeStdError: number } | undefined;
      if (sql.includes('uniq(')) expect(hll?.method).toBe('hll');
      const want = await oracle.query(sql.replaceAll(DIST, LOCAL).replaceAll('uniq(', 'uniqExact(').replace(SKETCHES, ''));
      expect(r.body.meta.map((m: { name: string }) => m.name)).toEqual(want.meta.map((m) => m.name));
      expectSameRows(r.body.data, want.rows, 'tree vs single node', hll ? { column: 'u', relativeError: 4 * hll.relativeStdError } : undefined);
      expect(r.body.data.length).toBeGreaterThan(0);
    });
  }

  it("a query error through the sub-coordinators is the query's: 400 QUERY_ERROR, as on the flat path", async () => {
    const sql = `SELECT sitee, count() AS c FROM ${DIST} GROUP BY sitee`;
    const r = await post(`${stack.url}/query`, { sql });
    const f = await flatAnswer(sql);
    expect([r.status, r.body.error?.code, r.body.clickhouse]).toEqual([400, 'QUERY_ERROR', { code: 47, name: 'UNKNOWN_IDENTIFIER' }]);
    expect([f.status, f.body.error?.code, f.body.clickhouse]).toEqual([400, 'QUERY_ERROR', { code: 47, name: 'UNKNOWN_IDENTIFIER' }]);
  });

  it('a query pruned to fewer shards than the fanout runs flat (no sub-coordinator)', async () => {
    const before = stack.coordinatorInvocations();
    const r = await post(`${stack.url}/query`, { sql: `SELECT count() AS c FROM ${DIST} WHERE sensor = 's-7'` });
    expect(r.status).toBe(200);
    expect(r.body.shards).toMatchObject({ queried: 1, skipped: SHARDS - 1 });
    expect(stack.coordinatorInvocations()).toBe(before);
    expect(r.body.data).toEqual((await oracle.query(`SELECT count() AS c FROM ${LOCAL} WHERE sensor = 's-7'`)).rows);
  });
});
