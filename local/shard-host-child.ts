// A shard host: one process per (shard, replica) in the local stack, the local stand-in for a
// warm shard Lambda. It runs the SAME shard handler code (functions/shard/handler.ts) with the
// replica's adapter (embedded chdb dir opened in this process, or HTTP), and applies the
// replica's `fault` config: delayMs (with delayProbability), error (with errorProbability),
// crash (the process exits mid-invoke; the parent answers Runtime.ExitError and restarts it).
import { createAccess } from '../shared/adapters/clickhouse/factory.js';
import type { ClickHouseAccess } from '../shared/core/clickhouse/port.js';
import { createExchangeStore } from '../functions/shard/exchange-env.js';
import { createShardHandler, createStreamingShardHandler } from '../functions/shard/shard-function.js';
import { asksStream } from './in-process-host.js';
import { collectStreamed, runStreamingHandler } from './response-stream.mjs';
import type { HostReply, HostRequest, ShardHostSpec } from './shard-host-protocol.js';
import { applyFault } from './shard-fault.js';

const send = (m: HostReply) => {
  if (process.connected) process.send!(m);
};

/** The shard function's exchange, created once per host as a warm Lambda keeps it. */
function exchangeOf(spec: ShardHostSpec) {
  const env = spec.exchange;
  if (!env) return {};
  const store = createExchangeStore(env);
  return { exchange: () => store };
}

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? '') as ShardHostSpec;
  const access: ClickHouseAccess = await createAccess(spec.config);
  const deps = { getAccess: async () => access, shard: spec.shard, replicaCount: spec.replicaCount, allowAdmin: spec.allowAdmin, ...exchangeOf(spec) };
  const handle = createShardHandler(deps);
  const streaming = createStreamingShardHandler(deps);
  const fault = spec.faults ? spec.config.fault : undefined;

  process.on('disconnect', () => {
    void access.close().finally(() => process.exit(0));
  });
  process.on('message', (request: HostRequest) => {
    void (async () => {
      try {
        if (fault?.crash) {
          // Mid-invoke: the request has arrived, nothing will answer it.
          process.exit(1);
        }
        await applyFault(fault);
        if (asksStream(request.payload)) {
          const s = await runStreamingHandler(streaming, request.payload);
          send({ id: request.id, ok: true, streamed: { contentType: s.contentType, data: await collectStreamed(s) } });
          return;
        }
        const result = await handle(request.payload);
        send({ id: request.id, ok: true, result });
      } catch (e) {
        const err = e instanceof Error ? e : new Error(String(e));
        send({ id: request.id, ok: false, error: { name: err.name, message: err.message } });
      }
    })();
  });
  send({ ready: true, pid: process.pid });
}

main().catch((e: unknown) => {
  send({ fatal: e instanceof Error ? e.message : String(e) });
  setImmediate(() => process.exit(1));
});
