// The coordinator in a process of its own, so its peak memory is its own (bench/_peak-memory.ts):
// runQuery on the general path with the query invoker AWS runs (signed node:http) pointed at the
// local Invoke endpoint of spec.invokeUrl, and the exchange's cleaner on spec.exchange, as the
// coordinator's deps hold them. Message {id, sql, topo} (a topology config) -> {id, body} or {id, error}.
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { createQueryInvoker } from '../functions/coordinator/deps.js';
import type { ExchangeEnv } from '../functions/shard/exchange-env.js';
import { shardFunctionNames } from '../shared/adapters/aws/shard-function-names.js';
import { createS3ExchangeCleaner } from '../shared/adapters/aws/s3-exchange.js';
import { parseTopology } from '../shared/core/config/load.js';
import { planQuery } from '../shared/core/plan/index.js';
import { planTwoStage } from '../shared/core/plan/two-stage/plan.js';
import { createHedgeState } from '../shared/core/scatter/hedge.js';
import { runQuery, type PlanFn } from '../shared/core/scatter/run-query.js';

const spec = JSON.parse(process.argv[2] ?? '{}') as { shards: number; invokeUrl: string; exchange?: ExchangeEnv };
setMaxListeners(0);
const invoker = await createQueryInvoker('http', spec.shards, { endpoint: spec.invokeUrl, functionNames: shardFunctionNames(spec.shards, {}) });
const exchange = spec.exchange ? createS3ExchangeCleaner(spec.exchange) : undefined;
const hedgeState = createHedgeState();

process.on('message', (m: { id: number; sql: string; topo: unknown }) => {
  void runQuery(
    { sql: m.sql, settings: { ch_scatter_path: 'general' } },
    {
      topo: parseTopology(m.topo),
      invoker,
      planQuery: planQuery as PlanFn,
      planTwoStage,
      hedgeState,
      queryId: randomUUID(),
      behindApiGateway: false,
      ...(exchange ? { exchange } : {}),
    },
  ).then(
    (r) => process.send!({ id: m.id, status: r.status, body: r.body }),
    (e: unknown) => process.send!({ id: m.id, error: e instanceof Error ? e.message : String(e) }),
  );
});
process.on('SIGTERM', () => {
  invoker.close();
  process.exit(0);
});
process.on('disconnect', () => process.exit(0));
process.send!({ ready: { pid: process.pid } });
