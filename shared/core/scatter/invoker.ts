// The invoker port: the only way the scatter runtime reaches a shard. In AWS (and in the local
// stack) the adapter is lambda-invoker.ts; unit tests pass fakes. An adapter resolves with the
// shard's own answer (ShardSuccess or ShardFailure: the shard ran and said so) and REJECTS with an
// InvokeError when the invocation itself failed (throttled, crashed runtime, bad payload, ...),
// so the runtime can tell "the shard said no" from "we never got a usable answer".
import type { ShardProgress } from '../protocol/stream-frames.js';
import type { ShardAdminRequest, ShardBatchRequest, ShardCancelRequest, ShardFailure, ShardRequest, ShardResponse } from '../protocol/shard-wire.js';

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

/**
 * A shard's raw answer as it streams (a request with `stream: true`): the engine's bytes in chunks as
 * the shard reads them, or the shard's typed failure when it said no before its first byte. The
 * chunks REJECT with an InvokeError when the hop fails after that (the function failed mid-stream,
 * the stream was cut, our signal fired): the answer is then missing, never a shorter one.
 */
export type ShardStreamAnswer = { ok: true; shard: number; replica: number; chunks: AsyncIterable<Uint8Array> } | ShardFailure;

export interface ShardInvoker {
  /** Send one query request to shard `shard` (the replica is inside the payload). */
  invoke(shard: number, payload: ShardRequest, signal: AbortSignal): Promise<ShardResponse>;
  /**
   * Several requests for one replica in one invocation (ShardBatchRequest), answered as one
   * ShardSuccess with `batch`. Invokers without it (test fakes) are asked request by request.
   */
  invokeBatch?(shard: number, payload: ShardBatchRequest, signal: AbortSignal): Promise<ShardResponse>;
  /**
   * Stop an attempt's work on a replica (shard-wire.ts ShardCancelRequest). Invokers without it
   * (test fakes) leave losers to their deadline.
   */
  cancel?(shard: number, payload: ShardCancelRequest, signal: AbortSignal): Promise<unknown>;
  /**
   * The same request over a streaming hop (Lambda's InvokeWithResponseStream): no 6 MB cap on the
   * answer. Invokers without it answer only buffered. A request with `progress` gets the shard's
   * progress readings on `onProgress` as they arrive, before its first byte and after.
   */
  invokeStream?(shard: number, payload: ShardRequest, signal: AbortSignal, onProgress?: (p: ShardProgress) => void): Promise<ShardStreamAnswer>;
  /** Admin statements (local stack only); resolves with the raw response. */
  invokeAdmin?(shard: number, payload: ShardAdminRequest, signal: AbortSignal): Promise<unknown>;
}
