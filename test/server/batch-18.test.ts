// Batching per shard on four Debian clickhouse-server 18.16 shards through the real shard function
// and its HTTP adapter: a 3-branch UNION ALL sends one stage-one invocation per shard instead of
// one per (leaf, shard), each batch's answer passes the coordinator's response schema, and the
// answer equals the Distributed table's. Also prints what batching saves (invocations, time).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTopology } from '../../shared/core/config/load.js';
import type { Topology } from '../../shared/core/config/schema.js';
import { explainPlan, planQuery } from '../../shared/core/plan/index.js';
import { planTwoStage } from '../../shared/core/plan/two-stage/plan.js';
import type { ShardBatchRequest, ShardRequest } from '../../shared/core/protocol/shard-wire.js';
import { parseShardResponse } from '../../shared/core/protocol/shard-response-schema.js';
import { createHedgeState } from '../../shared/core/scatter/hedge.js';
import { InvokeError, type ShardInvoker } from '../../shared/core/scatter/invoker.js';
import { runQuery, type PlanFn, type RunDeps } from '../../shared/core/scatter/run-query.js';
import { createShardHandler, envShardDeps } from '../../functions/shard/handler.js';
import { JSON_SETTINGS } from '../integration/two-stage/cases.js';
import { chHttp, useChServers } from '../support/ch-servers.js';

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
process.env.POWERTOOLS_METRICS_DISABLED = 'true';

const servers = useChServers({ n: 4, portBase: 21200 });
const T = 'default.bt_dist';
const ROWS = 40_000;
const UNION3 =
  `SELECT 'ams' AS what, count() AS c FROM ${T} WHERE site = 'ams' ` +
  `UNION ALL SELECT 'alarm', count() FROM ${T} WHERE status = 500 ` +
  `UNION ALL SELECT 'big', count() FROM ${T} WHERE value > 50`;
let topo: Topology;
let fns: Array<(e: unknown) => Promise<unknown>>;

beforeAll(async () => {
  const urls = servers.current.urls;
  for (const [i, url] of urls.entries()) {
    await chHttp(url, 'CREATE TABLE default.bt (id UInt64, site String, value Float64, status UInt16) ENGINE = MergeTree() ORDER BY id');
    await chHttp(url, 'CREATE TABLE default.bt_dist AS default.bt ENGINE = Distributed(scatter, default, bt, id)');
    await chHttp(
      url,
      `INSERT INTO default.bt SELECT number, ['ams', 'fra', 'iad', 'sfo', 'syd'][number % 5 + 1], (number % 1000) / 10, toUInt16(if(number % 97 = 0, 500, 200))
       FROM system.numbers WHERE number % 4 = ${i} LIMIT ${ROWS / 4}`,
    );
  }
  topo = parseTopology({
    cluster: 'scatter',
    shards: urls.map((url) => ({ replicas: [{ url }] })),
    tables: { [T]: { local: 'default.bt', shardingKey: { column: 'id', type: 'UInt64', function: 'identity' } } },
    query: { hedge: { enabled: false } },
  });
  fns = urls.map(
    (url, i) => createShardHandler(envShardDeps({ CH_SCATTER_SHARD: JSON.stringify({ shard: i, replicas: [{ url }] }) })) as (e: unknown) => Promise<unknown>,
  );
}, 120_000);
afterAll(() => undefined);

/** Through the shard functions, counting invocations; every answer is read as the wire adapter reads it. */
function deps(batching: boolean): RunDeps & { invocations: (ShardRequest | ShardBatchRequest)[] } {
  const invocations: (ShardRequest | ShardBatchRequest)[] = [];
  const parsed = async (shard: number, payload: ShardRequest | ShardBatchRequest) => {
    invocations.push(payload);
    const r = parseShardResponse(JSON.parse(JSON.stringify(await fns[shard]!(payload))));
    if (!r.ok) throw new InvokeError('malformed', r.problem);
    return r.value;
  };
  const invoker: ShardInvoker = { invoke: parsed, ...(batching ? { invokeBatch: parsed } : {}) };
  return {
    invocations,
    topo,
    invoker,
    planQuery: planQuery as PlanFn,
    explainPlan,
    hedgeState: createHedgeState(),
    queryId: `q-batch-${batching}`,
    behindApiGateway: false,
    planTwoStage,
  };
}

const sorted = (rows: Record<string, unknown>[]) => [...rows].sort((a, b) => String(a.what).localeCompare(String(b.what)));

describe('stage one batched per shard on 18.16', () => {
  it("3-branch UNION ALL over 4 shards: 4 stage-one invocations instead of 12, the Distributed table's answer", async () => {
    const want = sorted(JSON.parse(await chHttp(servers.current.urls[0]!, `${UNION3} FORMAT JSON`, JSON_SETTINGS)).data);
    const runs = { batched: [] as number[], alone: [] as number[] };
    const counts = { batched: 0, alone: 0 };
    for (let round = 0; round < 5; round++) {
      for (const mode of ['batched', 'alone'] as const) {
        const d = deps(mode === 'batched');
        const t0 = performance.now();
        const r = await runQuery({ sql: UNION3, settings: { ch_scatter_path: 'general' } }, d);
        runs[mode].push(performance.now() - t0);
        expect(r.status, JSON.stringify(r.body)).toBe(200);
        const b = r.body as Record<string, any>;
        expect(b.partial).toBe(false);
        expect(sorted(b.data)).toEqual(want);
        const stageOne = d.invocations.filter((p) => p.type === 'batch' || !p.tables);
        counts[mode] = d.invocations.length;
        if (mode === 'batched') {
          expect(stageOne.map((p) => (p.type === 'batch' ? p.requests.length : 1))).toEqual([3, 3, 3, 3]);
        } else expect(stageOne).toHaveLength(12);
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    console.log(
      `batching (3-branch UNION ALL, 4 shards, 18.16, 5 runs each): invocations per query ${counts.alone} -> ${counts.batched}; ` +
        `median ${median(runs.alone).toFixed(1)} ms -> ${median(runs.batched).toFixed(1)} ms`,
    );
  });
});
