// The runtime's half of response streaming, as Lambda's Node.js runtime plays it, for the local
// stack's hosts and `ch-scatter sim`'s runtime (plain JavaScript so the sim loads it unbuilt): a
// handler marked by awslambda.streamifyResponse is called with a response stream (a Writable with
// setContentType; HttpResponseStream's prelude goes before the first byte), and what it writes
// becomes a StreamedResponse that the Invoke endpoint frames. A buffered handler is awaited as ever.
import { PassThrough } from 'node:stream';
import { HANDLER_HIGHWATERMARK, HANDLER_STREAMING, STREAM_RESPONSE } from '../functions/common/awslambda-global.mjs';

/** What a streaming function's stream is unless it says otherwise (the runtime's default). */
export const DEFAULT_CONTENT_TYPE = 'application/octet-stream';
const STREAMED = Symbol.for('ch-scatter.local.streamed-response');

export function isStreamingHandler(fn) {
  return typeof fn === 'function' && fn[HANDLER_STREAMING] === STREAM_RESPONSE;
}

export function isStreamed(v) {
  return typeof v === 'object' && v !== null && v[STREAMED] === true;
}

/** A StreamedResponse over a content type and an async iterable of byte chunks (which throws the function's error). */
export function streamedResponse(contentType, body, cancel) {
  return { [STREAMED]: true, contentType, body, cancel: cancel ?? (() => undefined) };
}

/** A StreamedResponse's bytes, whole (a buffered Invoke of a streaming function). */
export async function collectStreamed(s) {
  const parts = [];
  for await (const c of s.body) parts.push(Buffer.from(c));
  return Buffer.concat(parts);
}

/**
 * Call a streaming handler. Resolves once the stream's content type is fixed (its first write, its
 * end, or the handler failing before either) with a StreamedResponse: its body yields what the handler
 * writes, ends when the stream ends, and throws the handler's error (a function error mid-stream).
 * `cancel(err)` ends the stream from the reader's side (the caller went away): the handler's further
 * writes fail and its stream emits 'error' and 'close'. `callerLeft` does the same before there is a
 * StreamedResponse to cancel (a caller that left before the handler's first write).
 */
export function runStreamingHandler(handler, event, context, callerLeft) {
  const highWaterMark = handler[HANDLER_HIGHWATERMARK];
  const stream = new PassThrough(typeof highWaterMark === 'number' ? { highWaterMark } : {});
  let contentType = DEFAULT_CONTENT_TYPE;
  let started = false;
  let markReady;
  const ready = new Promise((resolve) => {
    markReady = resolve;
  });
  const start = () => {
    if (started) return;
    started = true;
    const hook = stream._onBeforeFirstWrite;
    if (typeof hook === 'function') hook((chunk) => rawWrite(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk));
    markReady();
  };
  const rawWrite = stream.write.bind(stream);
  const rawEnd = stream.end.bind(stream);
  stream.setContentType = (type) => {
    if (started) throw Object.assign(new Error('Cannot set content-type, too late.'), { name: 'InvalidStreamingOperation' });
    contentType = String(type);
  };
  // Objects that are not bytes are written as JSON, as the runtime does.
  const bytes = (chunk) => (typeof chunk === 'string' || chunk instanceof Uint8Array ? chunk : JSON.stringify(chunk));
  stream.write = (chunk, encoding, cb) => {
    start();
    return rawWrite(bytes(chunk), encoding, cb);
  };
  stream.end = (chunk, encoding, cb) => {
    start();
    if (chunk !== undefined && chunk !== null && typeof chunk !== 'function') return rawEnd(bytes(chunk), encoding, cb);
    return rawEnd(chunk, encoding, cb);
  };
  // What was written before the failure still reaches the caller (the runtime sent it already),
  // then the failure ends the stream.
  let failure;
  const fail = (err) => {
    failure ??= err instanceof Error ? err : new Error(String(err));
    start();
    if (!stream.writableEnded && !stream.destroyed) rawEnd();
  };
  const leave = () => {
    // Without an error: nobody reads the stream yet to take one. The handler sees its stream close.
    if (!started && !stream.destroyed) stream.destroy();
  };
  if (callerLeft?.aborted) queueMicrotask(leave);
  else callerLeft?.addEventListener('abort', leave, { once: true });
  let result;
  try {
    result = handler(event, stream, context);
  } catch (e) {
    fail(e);
  }
  if (result !== undefined && typeof result?.then !== 'function') fail(new Error('Streaming does not support non-async handlers.'));
  else if (result) result.then(() => undefined, fail);
  async function* body() {
    for await (const c of stream) yield c;
    if (failure) throw failure;
  }
  return ready.then(() =>
    streamedResponse(contentType, body(), (err) => {
      if (!stream.destroyed) stream.destroy(err ?? Object.assign(new Error('the caller closed the response stream'), { name: 'ResponseStreamClosed' }));
    }),
  );
}

/** Call a handler as the Node runtime would: streaming ones with a response stream, others awaited. */
export function invokeHandler(handler, event, context) {
  return isStreamingHandler(handler) ? runStreamingHandler(handler, event, context) : Promise.resolve().then(() => handler(event, context));
}
