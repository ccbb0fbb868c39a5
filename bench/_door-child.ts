// The streaming front door in a process of its own, so its peak memory is the coordinator's alone
// (bench/_peak-memory.ts): the local stack's door (startStreamingDoor, the coordinator's stream
// handler) over the shard functions behind spec.invokeUrl, read through their streaming hop as in AWS.
import { setMaxListeners } from 'node:events';
import { createTools } from '../functions/coordinator/handler.js';
import { parseTopology } from '../shared/core/config/load.js';
import { coordinatorEnv, startStreamingDoor } from '../local/stack.js';

const spec = JSON.parse(process.argv[2] ?? '{}') as { topo: unknown; invokeUrl: string; lambdaTimeoutMs: number };
setMaxListeners(0);
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
const topo = parseTopology(spec.topo);
const env = coordinatorEnv(topo, { invokeUrl: spec.invokeUrl, invokerKind: 'http' });
const door = await startStreamingDoor(env, createTools({ logLevel: 'SILENT' }), topo, 0, spec.lambdaTimeoutMs);
process.on('SIGTERM', () => {
  void door.close().finally(() => process.exit(0));
});
process.on('disconnect', () => process.exit(0));
process.send!({ ready: { url: door.url, pid: process.pid } });
