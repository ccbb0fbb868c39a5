// The invoker port: the only way the scatter runtime reaches a shard. In AWS (and in the local
// stack) the adapter is lambda-invoker.ts; unit tests pass fakes. An adapter resolves with the
// shard's own answer (ShardSuccess or ShardFailure: the shard ran and said so) and REJECTS with an
// InvokeError when the invocation itself failed (throttled, crashed runtime, bad payload, ...),
// so the runtime can tell "the shard said no" from "we never got a usable answer".
import type { ShardAdminRequest, ShardCancelRequest, ShardRequest, ShardResponse } from '../protocol/shard-wire.js';

export type InvokeFailureKind =
  | 'throttled' // Lambda 429 TooManyRequestsException: concurrency exhausted
  | 'unhandled' // the function threw (X-Amz-Function-Error: Unhandled), e.g. a crashed runtime
  | 'malformed' // the payload is not a ShardResponse
  | 'unavailable' // function missing, endpoint unreachable, service error
  | 'aborted'; // our own AbortSignal fired (deadline or a hedge loser)

export class InvokeError extends Error {
  readonly kind: InvokeFailureKind;
  /** Lambda's errorType for 'unhandled' (e.g. Runtime.ExitError), the AWS error name otherwise. */
  readonly errorType?: string;
  constructor(kind: InvokeFailureKind, message: string, errorType?: string) {
    super(message);
    this.name = 'InvokeError';
    this.kind = kind;
    this.errorType = errorType;
  }
}

export interface ShardInvoker {
  /** Send one query request to shard `shard` (the replica is inside the payload). */
  invoke(shard: number, payload: ShardRequest, signal: AbortSignal): Promise<ShardResponse>;
  /**
   * Stop an attempt's work on a replica (shard-wire.ts ShardCancelRequest). Invokers without it
   * (test fakes) leave losers to their deadline.
   */
  cancel?(shard: number, payload: ShardCancelRequest, signal: AbortSignal): Promise<unknown>;
  /** Admin statements (local stack only); resolves with the raw response. */
  invokeAdmin?(shard: number, payload: ShardAdminRequest, signal: AbortSignal): Promise<unknown>;
}
