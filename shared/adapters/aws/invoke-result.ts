// What both Lambda invokers (lambda-invoker.ts over the SDK, signed-http-invoker.ts over node:http)
// make of an Invoke answer, in ONE place so the two classify every outcome alike:
//   200 + X-Amz-Function-Error  -> 'unhandled' with Lambda's errorType (Runtime.ExitError, ...)
//   429 / throttling error name -> 'throttled' (the runtime retries on another replica)
//   any other service error      -> 'unavailable' with the AWS error name
//   a body that is not JSON      -> 'malformed'; a JSON body that is not a ShardResponse -> 'malformed'
import type { ShardAdminRequest, ShardCancelRequest, ShardRequest, ShardResponse } from '../../core/protocol/shard-wire.js';
import { InvokeError, type ShardInvoker } from '../../core/scatter/invoker.js';
import { parseShardResponse } from '../../core/protocol/shard-response-schema.js';

/** The function threw: Lambda's error payload is {errorMessage, errorType}; a crashed runtime says Runtime.ExitError. */
export function functionError(functionErrorHeader: string, text: string): InvokeError {
  let errorType = functionErrorHeader;
  let message = text.slice(0, 500);
  try {
    const p = JSON.parse(text) as { errorMessage?: string; errorType?: string };
    errorType = p.errorType ?? errorType;
    message = p.errorMessage ?? message;
  } catch {
    /* keep the raw text */
  }
  return new InvokeError('unhandled', `shard function failed (${errorType}): ${message}`, errorType);
}

/** A non-2xx answer of the Invoke API itself (status, the AWS error name, its message). */
export function serviceError(status: number | undefined, name: string, message: string | undefined): InvokeError {
  if (status === 429 || name === 'TooManyRequestsException' || name === 'ThrottlingException') {
    return new InvokeError('throttled', `throttled: ${message ?? name}`, name);
  }
  return new InvokeError('unavailable', `${name}: ${message ?? 'invoke failed'}`, name);
}

/** The function's result as JSON, or 'malformed'. */
export function payloadJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new InvokeError('malformed', `shard response is not JSON: ${JSON.stringify(text.slice(0, 80))}`);
  }
}

/** One invocation of shard `shard`'s function with `payload`: its JSON result, or an InvokeError. */
export type InvokeSend = (shard: number, payload: unknown, signal: AbortSignal) => Promise<unknown>;

/** The ShardInvoker port over a send function: query answers are validated, admin answers passed through. */
export function shardInvokerOver(send: InvokeSend, close: () => void): ShardInvoker & { close(): void } {
  return {
    async invoke(shard: number, payload: ShardRequest, signal: AbortSignal): Promise<ShardResponse> {
      const parsed = parseShardResponse(await send(shard, payload, signal));
      if (!parsed.ok) throw new InvokeError('malformed', `malformed shard response: ${parsed.problem}`);
      return parsed.value;
    },
    async cancel(shard: number, payload: ShardCancelRequest, signal: AbortSignal): Promise<unknown> {
      return send(shard, payload, signal);
    },
    async invokeAdmin(shard: number, payload: ShardAdminRequest, signal: AbortSignal): Promise<unknown> {
      return send(shard, payload, signal);
    },
    close,
  };
}
