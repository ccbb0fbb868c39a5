// A child process serving N stand-in shard functions behind the project's local Lambda Invoke
// endpoint (local/invoke-server.ts), for the fanout, hedging and tree benches. The
// functions run no engine: they answer a valid ShardSuccess after an optional sleep.
//   spec.shards          function names ch-scatter-shard-0..N-1
//   spec.baseMs          sleep before answering (0 = answer on the next tick)
//   spec.slowMs/slowProb a straggler: with probability slowProb the sleep is slowMs instead
//                        (independently per request, so a hedge to the other replica is
//                        normally fast)
//   spec.rows            rows to put in every answer (payload size experiments)
import { startInvokeServer } from '../local/invoke-server.js';

interface Spec {
  shards: number;
  baseMs?: number;
  slowMs?: number;
  slowProb?: number;
  rows?: Record<string, unknown>[];
  meta?: { name: string; type: string }[];
}

const spec = JSON.parse(process.argv[2] ?? '{}') as Spec;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let slow = 0;
let calls = 0;

const fn = async (payload: unknown) => {
  const p = payload as { shard: number; replica: number };
  calls++;
  let ms = spec.baseMs ?? 0;
  if (spec.slowProb && Math.random() < spec.slowProb) {
    ms = spec.slowMs ?? ms;
    slow++;
  }
  if (ms > 0) await sleep(ms);
  return {
    ok: true,
    shard: p.shard,
    replica: p.replica,
    meta: spec.meta ?? [],
    rows: spec.rows ?? [],
    statistics: { elapsedMs: ms, rowsRead: 0, bytesRead: 0 },
  };
};

const functions: Record<string, typeof fn> = {};
for (let i = 0; i < spec.shards; i++) functions[`ch-scatter-shard-${i}`] = fn;

const server = await startInvokeServer({ port: 0, functions });
process.on('message', (m: { stats?: boolean }) => {
  if (m.stats) process.send!({ stats: { calls, slow } });
});
process.on('SIGTERM', () => {
  void server.close().finally(() => process.exit(0));
});
process.on('disconnect', () => process.exit(0));
process.send!({ ready: { url: server.url } });
