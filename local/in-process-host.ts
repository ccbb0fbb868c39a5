// A shard function served inside the local stack's own process: for replicas reached over HTTP.
// Shard hosts are separate processes because an embedded (chdb) replica needs one: one data
// directory per process. An HTTP replica has no engine to isolate, so its shard handler (the same
// createShardHandler the Lambda runs) is called directly by the Invoke endpoint, with no IPC hop
// (serialize, pipe, wake the host process, and back: more than the whole ClickHouse query of a
// pruned point lookup; docs/benchmarks.md#the-machine-and-the-run).
// A replica with `fault.crash` still gets a process (only a process can die mid-invoke).
import { Logger } from '@aws-lambda-powertools/logger';
import { createAccess } from '../shared/adapters/clickhouse/factory.js';
import type { ClickHouseAccess } from '../shared/core/clickhouse/port.js';
import { createShardHandler, createStreamingShardHandler, type ShardHandlerFn } from '../functions/shard/shard-function.js';
import type { StreamingHandler } from '../functions/common/awslambda-global.mjs';
import { createExchangeStore } from '../functions/shard/exchange-env.js';
import { runStreamingHandler } from './response-stream.mjs';
import type { ShardHostSpec } from './shard-host-protocol.js';
import { applyFault, cutStream } from './shard-fault.js';

type LogLevel = ConstructorParameters<typeof Logger>[0] extends infer O ? (O extends { logLevel?: infer L } ? L : never) : never;

export class InProcessShardHost {
  /** Started once; never restarts (nothing to crash but the whole stack). */
  starts = 0;
  readonly pid = process.pid;
  private access?: ClickHouseAccess;
  private handle?: ShardHandlerFn;
  /** The same handler as a stream: requests asking for a streamed answer (`stream`). */
  private streaming?: StreamingHandler;
  private stopping = false;

  constructor(
    readonly spec: ShardHostSpec,
    private readonly logLevel: string,
  ) {}

  async start(): Promise<void> {
    this.starts++;
    const access = await createAccess(this.spec.config);
    this.access = access;
    const deps = {
      getAccess: async () => access,
      shard: this.spec.shard,
      replicaCount: this.spec.replicaCount,
      allowAdmin: this.spec.allowAdmin,
      ...(this.spec.exchange
        ? {
            exchange: (
              (store) => () =>
                store
            )(createExchangeStore(this.spec.exchange)),
          }
        : {}),
      logger: new Logger({ serviceName: 'ch-scatter-shard', logLevel: this.logLevel as LogLevel }),
    };
    this.handle = createShardHandler(deps);
    this.streaming = createStreamingShardHandler(deps);
  }

  async invoke(payload: unknown, callerLeft?: AbortSignal): Promise<unknown> {
    if (this.stopping || !this.handle) throw new Error('shard host is stopping');
    // `payload` is the Invoke endpoint's own parse of the request body: the handler may not share it with anyone.
    if (this.spec.faults) await applyFault(this.spec.config.fault);
    if (asksStream(payload))
      return cutStream(this.spec.faults ? this.spec.config.fault : undefined, await runStreamingHandler(this.streaming!, payload, undefined, callerLeft));
    return this.handle(payload);
  }

  /** Only a host process can be killed; an in-process host has no process of its own. */
  kill(): void {
    throw new Error(`shard ${this.spec.shard} replica ${this.spec.replica} is served in-process (HTTP replica): there is no host process to kill`);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.access?.close();
  }
}

/** A request for a streamed answer: served by the streaming handler (the other requests stay buffered). */
export function asksStream(payload: unknown): boolean {
  return typeof payload === 'object' && payload !== null && (payload as { stream?: unknown }).stream === true;
}
