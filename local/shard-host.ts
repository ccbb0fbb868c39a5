// The local stack's shard functions: one host process per (shard, replica) running the shard
// handler (shard-host-child.ts), exposed as `ch-scatter-shard-<i>` functions for the local
// Invoke endpoint. A call goes to the host of the replica named in the payload. Replicas reached
// over HTTP are served in this process instead (in-process-host.ts says why), unless they carry a
// `fault.crash` or `inProcessHttp` is false.
//
// Where this differs from AWS (say it where it shows):
// - Lambda runs one request per execution environment and scales out; an embedded shard cannot
//   (chdb: one data directory per process), so one host process serves overlapping invocations
//   itself (its engine runs their queries one at a time).
// - A crash (fault `crash`, or the process dying) fails EVERY invocation in flight on that host
//   with Runtime.ExitError, where Lambda would lose only the one in that environment. The host
//   is restarted (a cold start) and later invocations wait for it.
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import type { Topology, ReplicaConfig } from '../shared/core/config/schema.js';
import { forkModule, siblingModule } from './fork-module.js';
import type { ExchangeEnv } from '../functions/shard/exchange-env.js';
import type { HostReply, ShardHostSpec } from './shard-host-protocol.js';
import type { LocalFunction } from './invoke-server.js';
import { InProcessShardHost } from './in-process-host.js';
import { streamedResponse } from './response-stream.mjs';
import { cutStream } from './shard-fault.js';
import { oneChunk } from '../shared/core/protocol/byte-chunks.js';

export interface ShardHostsOptions {
  /** exec/insert admin requests allowed (the local stack's /admin routes). Default true. */
  allowAdmin?: boolean;
  /** Apply replicas' `fault` configs. Default true. */
  faults?: boolean;
  /** Relative `embedded` paths are resolved against this (default: process.cwd()). */
  baseDir?: string;
  /** Powertools log level inside the hosts (default: $CH_SCATTER_LOG_LEVEL or WARN). */
  logLevel?: string;
  /** Function name for shard i (default `ch-scatter-shard-<i>`). */
  functionName?: (shard: number) => string;
  startTimeoutMs?: number;
  /** Serve HTTP replicas (without fault.crash) in this process rather than a host process. Default true. */
  inProcessHttp?: boolean;
  /** The exchange bucket every shard function writes large stage-one answers to. */
  exchange?: ExchangeEnv;
}

/** What the stack needs of a host, in a process of its own or not. */
export type AnyShardHost = ShardHost | InProcessShardHost;

export interface ShardHosts {
  functions: Record<string, LocalFunction>;
  /** hosts[shard][replica] */
  hosts: AnyShardHost[][];
  stop(): Promise<void>;
}

/** The error a crashed runtime gives (errorType on the Invoke answer, as AWS reports it). */
export class RuntimeExitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'Runtime.ExitError';
  }
}

export function shardFunctionName(shard: number): string {
  return `ch-scatter-shard-${shard}`;
}

export async function startShardHosts(topo: Pick<Topology, 'shards'>, opts: ShardHostsOptions = {}): Promise<ShardHosts> {
  const hosts: AnyShardHost[][] = topo.shards.map((s, i) =>
    s.replicas.map((r, j) => {
      const spec: ShardHostSpec = {
        shard: i,
        replica: j,
        replicaCount: s.replicas.length,
        config: resolveReplica(r, opts.baseDir),
        allowAdmin: opts.allowAdmin ?? true,
        faults: opts.faults ?? true,
        ...(opts.exchange ? { exchange: opts.exchange } : {}),
      };
      const inProcess = (opts.inProcessHttp ?? true) && r.url !== undefined && !(spec.faults && r.fault?.crash);
      return inProcess ? new InProcessShardHost(spec, hostLogLevel(opts)) : new ShardHost(spec, opts);
    }),
  );
  const all = hosts.flat();
  const started = await Promise.allSettled(all.map((h) => h.start()));
  const stop = async () => {
    await Promise.all(all.map((h) => h.stop()));
  };
  const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) {
    await stop();
    throw failed.reason;
  }
  const name = opts.functionName ?? shardFunctionName;
  const functions: Record<string, LocalFunction> = {};
  hosts.forEach((replicas, i) => {
    functions[name(i)] = (payload, callerLeft) => {
      const r = (payload as { replica?: unknown } | null)?.replica;
      // An unknown replica goes to replica 0, whose handler refuses it with a typed failure.
      const host = typeof r === 'number' && Number.isInteger(r) && r >= 0 && r < replicas.length ? replicas[r]! : replicas[0]!;
      return host.invoke(payload, callerLeft);
    };
  });
  return { functions, hosts, stop };
}

function hostLogLevel(opts: ShardHostsOptions): string {
  return opts.logLevel ?? process.env.CH_SCATTER_LOG_LEVEL ?? 'WARN';
}

function resolveReplica(r: ReplicaConfig, baseDir = process.cwd()): ReplicaConfig {
  return r.embedded ? { ...r, embedded: path.resolve(baseDir, r.embedded) } : r;
}

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

/** One host process, restarted when it exits unexpectedly. */
export class ShardHost {
  private child?: ChildProcess;
  private ready?: Promise<void>;
  private pending = new Map<number, Pending>();
  private nextId = 1;
  private stopping = false;
  /** How many times the process was (re)started. */
  starts = 0;
  pid = 0;

  /** Invocations sent to the process and not answered yet. */
  get inFlight(): number {
    return this.pending.size;
  }

  constructor(
    readonly spec: ShardHostSpec,
    private readonly opts: ShardHostsOptions,
  ) {}

  start(): Promise<void> {
    this.ready = this.spawn();
    return this.ready;
  }

  private spawn(): Promise<void> {
    this.starts++;
    const child = forkModule(siblingModule(import.meta.url, 'shard-host-child'), [JSON.stringify(this.spec)], {
      env: { ...process.env, POWERTOOLS_LOG_LEVEL: hostLogLevel(this.opts), POWERTOOLS_METRICS_DISABLED: 'true' },
    });
    this.child = child;
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    child.on('error', () => undefined);
    child.on('message', (reply: HostReply) => {
      if (!('id' in reply)) return;
      const waiter = this.pending.get(reply.id);
      if (!waiter) return;
      this.pending.delete(reply.id);
      if (reply.ok && 'streamed' in reply) {
        const { contentType, data } = reply.streamed;
        waiter.resolve(cutStream(this.spec.faults ? this.spec.config.fault : undefined, streamedResponse(contentType, oneChunk(data))));
      } else if (reply.ok) waiter.resolve(reply.result);
      else {
        const e = new Error(reply.error.message);
        e.name = reply.error.name;
        waiter.reject(e);
      }
    });
    child.once('exit', (code, signal) => {
      if (this.child !== child) return;
      const why = signal ? `signal: ${signal}` : `exit status ${code}`;
      for (const p of this.pending.values()) p.reject(new RuntimeExitError(`Runtime exited with error: ${why}`));
      this.pending.clear();
      if (!this.stopping) {
        this.ready = exited.then(() => this.spawn()); // a cold start for the next invoke
        this.ready.catch(() => undefined); // a failed restart surfaces on the next invoke
      }
    });
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`shard host ${this.spec.shard}/${this.spec.replica} did not start in time`));
      }, this.opts.startTimeoutMs ?? 60_000);
      const onMsg = (m: HostReply) => {
        if ('ready' in m) {
          clearTimeout(timer);
          child.off('message', onMsg);
          this.pid = m.pid;
          resolve();
        } else if ('fatal' in m) {
          clearTimeout(timer);
          child.off('message', onMsg);
          reject(new Error(`shard host ${this.spec.shard}/${this.spec.replica} failed to start: ${m.fatal}`));
        }
      };
      child.on('message', onMsg);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`shard host ${this.spec.shard}/${this.spec.replica} exited during start (code ${code})`));
      });
    });
  }

  async invoke(payload: unknown, _callerLeft?: AbortSignal): Promise<unknown> {
    if (this.stopping) throw new RuntimeExitError('shard host is stopping');
    try {
      await this.ready;
    } catch {
      // The last (re)start failed: try once more for this invocation (a new cold start).
      if (this.stopping) throw new RuntimeExitError('shard host is stopping');
      this.ready = this.spawn();
      await this.ready;
    }
    const child = this.child!;
    return new Promise((resolve, reject) => {
      const id = this.nextId++;
      this.pending.set(id, { resolve, reject });
      try {
        child.send({ id, payload });
      } catch {
        // the 'exit' handler rejects it
      }
    });
  }

  /** SIGKILL the process (tests: a crash outside any invocation). */
  kill(): void {
    this.child?.kill('SIGKILL');
  }

  async stop(): Promise<void> {
    this.stopping = true;
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    child.disconnect();
    const t = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(t);
  }
}
