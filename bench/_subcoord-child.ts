// A child process standing in for sub-coordinator Lambda environments in the tree bench: it
// serves `ch-scatter-sub` (createSubCoordinatorFunction: the real sub-coordinator over the
// coordinator's default shard invoker, signed node:http) behind its own local Invoke endpoint; its shards are the stub functions of
// _shard-stub-child.ts at spec.shardEndpoint.
import { setMaxListeners } from 'node:events';
import { startInvokeServer } from '../local/invoke-server.js';
import { createSignedHttpInvoker } from '../shared/adapters/aws/signed-http-invoker.js';
import { createHedgeState } from '../shared/core/scatter/hedge.js';
import { createSubCoordinatorFunction } from '../shared/adapters/aws/tree-lambda-invoker.js';
import { stubTopology } from './_stub-plan.js';

const spec = JSON.parse(process.argv[2] ?? '{}') as { shards: number; shardEndpoint: string; maxConcurrency: number };
setMaxListeners(0);
const topo = stubTopology(spec.shards, 1, { maxConcurrency: spec.maxConcurrency, hedge: { enabled: false } });
const names = Array.from({ length: spec.shards }, (_, i) => `ch-scatter-shard-${i}`);
const invoker = createSignedHttpInvoker(spec.shards, { endpoint: spec.shardEndpoint, functionNames: names, maxSockets: 512 });
const fn = createSubCoordinatorFunction({ topo, invoker, hedgeState: createHedgeState() });
const server = await startInvokeServer({ port: 0, functions: { 'ch-scatter-sub': fn } });
process.on('SIGTERM', () => {
  invoker.close();
  void server.close().finally(() => process.exit(0));
});
process.on('disconnect', () => process.exit(0));
process.send!({ ready: { url: server.url } });
