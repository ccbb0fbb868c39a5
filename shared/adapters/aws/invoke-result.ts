// What both Lambda invokers (lambda-invoker.ts over the SDK, signed-http-invoker.ts over node:http)
// make of an Invoke answer, in ONE place so the two classify every outcome alike:
//   200 + X-Amz-Function-Error  -> 'unhandled' with Lambda's errorType (Runtime.ExitError, ...)
//   429 / throttling error name -> 'throttled' (the runtime retries on another replica)
//   any other service error      -> 'unavailable' with the AWS error name
//   a body that is not JSON      -> 'malformed'; a JSON body that is not a ShardResponse -> 'malformed'
import type { ShardAdminRequest, ShardBatchRequest, ShardCancelRequest, ShardRequest, ShardResponse } from '../../core/protocol/shard-wire.js';
import { InvokeError, type ShardInvoker, type ShardStreamAnswer } from '../../core/scatter/invoker.js';
import { parseShardResponse } from '../../core/protocol/shard-response-schema.js';
import { oneChunk } from '../../core/protocol/byte-chunks.js';
import { FRAMED_CONTENT_TYPE, readFrames, StreamFrameError, type ShardProgress } from '../../core/protocol/stream-frames.js';
import type { ResponseStreamEvent } from './response-stream-wire.js';

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

/** A streaming invocation's answer: the function's stream content type and its bytes as they come. */
export interface StreamedInvoke {
  contentType: string;
  /** Rejects with an InvokeError: 'unhandled' for an InvokeComplete with ErrorCode, 'unavailable' for a cut stream, 'aborted'. */
  chunks: AsyncIterable<Uint8Array>;
}

/**
 * A stream's bytes out of its events: the completion's error surfaced as an InvokeError, a stream
 * ending without InvokeComplete (cut on the way) too, and `failure(e)` naming what else broke it.
 */
export async function* streamChunks(events: AsyncIterable<ResponseStreamEvent>, failure: (e: unknown) => InvokeError): AsyncGenerator<Uint8Array> {
  let completed = false;
  try {
    for await (const e of events) {
      if ('PayloadChunk' in e) {
        if (e.PayloadChunk.byteLength > 0) yield e.PayloadChunk;
        continue;
      }
      completed = true;
      const { ErrorCode, ErrorDetails } = e.InvokeComplete;
      if (ErrorCode) throw new InvokeError('unhandled', `shard function failed mid-stream (${ErrorCode}): ${ErrorDetails ?? ''}`.trim(), ErrorCode);
      break;
    }
  } catch (e) {
    throw e instanceof InvokeError ? e : failure(e);
  }
  if (!completed) throw new InvokeError('unavailable', 'the response stream ended without InvokeComplete (cut on the way)', 'TruncatedStream');
}

async function collect(chunks: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of chunks) parts.push(Buffer.from(c));
  return Buffer.concat(parts);
}

/** A whole ShardResponse where a streamed answer was asked: its failure, or its raw bytes as one chunk. */
function wholeAnswer(json: unknown): ShardStreamAnswer {
  const parsed = parseShardResponse(json);
  if (!parsed.ok) throw new InvokeError('malformed', `malformed shard response: ${parsed.problem}`);
  const r = parsed.value;
  if (!r.ok) return r;
  if (r.raw === undefined) throw new InvokeError('malformed', 'a streamed shard answer carries rows, not the raw bytes asked for');
  return { ok: true, shard: r.shard, replica: r.replica, chunks: oneChunk(Buffer.from(r.raw, 'base64')) };
}

/**
 * A framed answer (stream-frames.ts): progress frames go to `onProgress` as they come; the answer
 * starts at its first data frame (its bytes then follow as they come) or is its response frame.
 */
async function framedAnswer(
  shard: number,
  replica: number,
  chunks: AsyncIterable<Uint8Array>,
  onProgress?: (p: ShardProgress) => void,
): Promise<ShardStreamAnswer> {
  const frames = readFrames(chunks);
  const malformed = (e: unknown) =>
    e instanceof StreamFrameError || e instanceof SyntaxError ? new InvokeError('malformed', `malformed shard stream: ${e.message}`) : e;
  let first: Uint8Array | undefined;
  try {
    for (;;) {
      const f = await frames.next();
      if (f.done) throw new InvokeError('malformed', 'the shard stream ended without an answer');
      if (f.value.kind === 'progress') onProgress?.(f.value.progress);
      else if (f.value.kind === 'response') {
        // The last frame: the stream is let go (its request released) before the answer is read.
        await frames.return(undefined).catch(() => undefined);
        return wholeAnswer(f.value.json);
      } else {
        first = f.value.bytes;
        break;
      }
    }
  } catch (e) {
    await frames.return(undefined).catch(() => undefined);
    throw malformed(e);
  }
  async function* rest(): AsyncGenerator<Uint8Array> {
    try {
      yield first!;
      for (;;) {
        const f = await frames.next();
        if (f.done) return;
        if (f.value.kind === 'data') yield f.value.bytes;
        else if (f.value.kind === 'progress') onProgress?.(f.value.progress);
        else throw new InvokeError('malformed', 'a response frame after the answer started');
      }
    } catch (e) {
      throw malformed(e);
    } finally {
      await frames.return(undefined).catch(() => undefined);
    }
  }
  return { ok: true, shard, replica, chunks: rest() };
}

/**
 * A shard's streamed answer: raw bytes (any content type but JSON or frames) pass through as they
 * come; a JSON stream is the shard's ShardResponse whole (its failure before the first byte, or a
 * buffered answer); a framed one carries the shard's progress beside its bytes.
 */
export async function shardStreamAnswer(
  shard: number,
  replica: number,
  s: StreamedInvoke,
  onProgress?: (p: ShardProgress) => void,
): Promise<ShardStreamAnswer> {
  if (s.contentType.startsWith(FRAMED_CONTENT_TYPE)) return framedAnswer(shard, replica, s.chunks, onProgress);
  if (!s.contentType.startsWith('application/json')) return { ok: true, shard, replica, chunks: s.chunks };
  return wholeAnswer(payloadJson((await collect(s.chunks)).toString('utf8')));
}

/** The ShardInvoker port over a send function: query answers are validated, admin answers passed through. */
export function shardInvokerOver(
  send: InvokeSend,
  close: () => void,
  sendStream?: (shard: number, payload: unknown, signal: AbortSignal) => Promise<StreamedInvoke>,
): ShardInvoker & { close(): void } {
  return {
    ...(sendStream
      ? {
          async invokeStream(shard: number, payload: ShardRequest, signal: AbortSignal, onProgress?: (p: ShardProgress) => void): Promise<ShardStreamAnswer> {
            return shardStreamAnswer(payload.shard, payload.replica, await sendStream(shard, { ...payload, stream: true }, signal), onProgress);
          },
        }
      : {}),
    async invoke(shard: number, payload: ShardRequest, signal: AbortSignal): Promise<ShardResponse> {
      const parsed = parseShardResponse(await send(shard, payload, signal));
      if (!parsed.ok) throw new InvokeError('malformed', `malformed shard response: ${parsed.problem}`);
      return parsed.value;
    },
    async invokeBatch(shard: number, payload: ShardBatchRequest, signal: AbortSignal): Promise<ShardResponse> {
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
