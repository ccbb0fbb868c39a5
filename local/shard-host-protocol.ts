// IPC between a shard host process (shard-host-child.ts) and the local stack (shard-host.ts).
import type { ReplicaConfig } from '../shared/core/config/schema.js';
import type { ExchangeEnv } from '../functions/shard/exchange-env.js';

export interface ShardHostSpec {
  shard: number;
  replica: number;
  replicaCount: number;
  config: ReplicaConfig;
  allowAdmin: boolean;
  /** Apply the replica's `fault` (delay, error, crash). */
  faults: boolean;
  /** The exchange bucket (the stack's s3rver), as CH_SCATTER_EXCHANGE says it in AWS. */
  exchange?: ExchangeEnv;
}

export type HostRequest = { id: number; payload: unknown };

export type HostReply =
  | { id: number; ok: true; result: unknown }
  /** A streamed answer, whole (the embedded engine answers whole anyway). */
  | { id: number; ok: true; streamed: { contentType: string; data: Uint8Array } }
  | { id: number; ok: false; error: { name: string; message: string } }
  | { ready: true; pid: number }
  | { fatal: string };
