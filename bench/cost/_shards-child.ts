// The shard side of the cost bench, in a process of its own so the bench process's CPU is the
// coordinator's alone: the local stack's shard functions (startLocalShards: the real shard handler
// over the HTTP ClickHouse adapter) behind its Invoke endpoint, each invocation timed as Lambda would
// bill it (from the call to the answer). The functions log at INFO, Lambda's default for them; what
// they write to stdout and stderr is counted, not printed.
//   spec.topo      the topology (shard i's replica is real server i % servers)
//   spec.replay    the simulated scale: a request that the same server already answered with the same
//                  SQL, settings and shipped data gets that answer again after that execution's
//                  measured duration (one real execution per distinct request and server, timed the
//                  second time it runs, after the burst of the first query's requests; stage-one
//                  keeps and the sessions reading them always run for real)
//   spec.coordinatorUrl  where `ch-scatter-coordinator` (the tree's sub-coordinators) is served
// Message {report: true} -> {report: {invocations, cpuMs, logBytes}} since the previous report.
import { createHash } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { parseTopology } from '../../shared/core/config/load.js';
import type { ShardRequest, ShardResponse } from '../../shared/core/protocol/shard-wire.js';
import { startLocalShards, type LocalFunction } from '../../local/stack.js';
import { swallowOutput } from './logs.js';

interface Spec {
  topo: unknown;
  servers: number;
  replay: boolean;
  coordinatorUrl: string;
}

export interface ShardInvocation {
  shard: number;
  attempt: ShardRequest['attempt'];
  kind: 'query' | 'keep' | 'final';
  /** The invocation's duration: measured, or for a replayed answer the real execution's. */
  ms: number;
  replayed: boolean;
}

const spec = JSON.parse(process.argv[2] ?? '{}') as Spec;
setMaxListeners(0);
process.env.CH_SCATTER_LOG_LEVEL = 'INFO';
const output = swallowOutput();
let logBytes0 = 0;

const topo = parseTopology(spec.topo);
let invocations: ShardInvocation[] = [];
const replays = new Map<string, Promise<{ res: ShardResponse; ms: number }>>();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function kindOf(p: ShardRequest): ShardInvocation['kind'] {
  return p.tables?.length ? 'final' : p.keep ? 'keep' : 'query';
}

/** What makes two requests the same work on one server: everything but ids, deadline and attempt. */
function replayKey(shard: number, p: ShardRequest): string {
  const { queryId: _q, deadline: _d, shard: _s, replica: _r, attempt: _a, ...work } = p;
  return createHash('sha1')
    .update(`${shard % spec.servers}\n${JSON.stringify(work)}`)
    .digest('hex');
}

function meter(shard: number, fn: LocalFunction): LocalFunction {
  return async (payload) => {
    const p = payload as ShardRequest;
    const replayable = spec.replay && p.type === 'query' && !p.keep && !p.session;
    if (!replayable) {
      const t0 = performance.now();
      const res = await fn(payload);
      if (p.type === 'query') invocations.push({ shard, attempt: p.attempt, kind: kindOf(p), ms: performance.now() - t0, replayed: false });
      return res;
    }
    const key = replayKey(shard, p);
    let entry = replays.get(key);
    const first = !entry;
    if (!entry) {
      // Run twice, timing the second: the first meets the burst of every shard's request at once.
      entry = (async () => {
        await fn(payload);
        const t0 = performance.now();
        const res = (await fn(payload)) as ShardResponse;
        return { res, ms: performance.now() - t0 };
      })();
      replays.set(key, entry);
    }
    const { res, ms } = await entry;
    if (!res.ok) replays.delete(key); // a failure is not work to replay
    if (!first) await sleep(ms);
    invocations.push({ shard, attempt: p.attempt, kind: kindOf(p), ms, replayed: !first });
    return { ...res, shard: p.shard, replica: p.replica };
  };
}

const shards = await startLocalShards(topo, {
  invoker: 'http',
  wrapFunctions: (fns) => Object.fromEntries(Object.entries(fns).map(([name, fn]) => [name, meter(Number(name.split('-').pop()), fn)])),
});
// The tree's sub-coordinators: the coordinator function, served by the bench process.
shards.register('ch-scatter-coordinator', async (payload) => {
  const r = await fetch(`${spec.coordinatorUrl}/2015-03-31/functions/ch-scatter-coordinator/invocations`, {
    method: 'POST',
    body: JSON.stringify(payload),
  });
  if (!r.ok || r.headers.get('x-amz-function-error')) throw new Error(`sub-coordinator failed: ${r.status} ${await r.text()}`);
  return r.json();
});

let cpu0 = process.cpuUsage();
process.on('message', (m: { report?: boolean }) => {
  if (!m.report) return;
  const c = process.cpuUsage(cpu0);
  process.send!({ report: { invocations, cpuMs: (c.user + c.system) / 1000, logBytes: output.bytes() - logBytes0 } });
  invocations = [];
  logBytes0 = output.bytes();
  cpu0 = process.cpuUsage();
});
process.on('SIGTERM', () => {
  void shards.stop().finally(() => process.exit(0));
});
process.on('disconnect', () => process.exit(0));
process.send!({ ready: { url: shards.invokeUrl } });
