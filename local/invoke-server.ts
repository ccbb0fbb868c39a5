// A local Lambda Invoke endpoint: the subset of the Lambda API the coordinator uses, so the
// real @aws-sdk/client-lambda runs unchanged against the local stack (endpoint = this URL).
//
//   POST /2015-03-31/functions/{name}/invocations                    Invoke (buffered)
//   POST /2021-11-15/functions/{name}/response-streaming-invocations InvokeWithResponseStream
//   (name, ARN or partial ARN, URL-encoded)
//
// Answers as AWS does (checked with the SDK in test/integration/local-invoke):
// - 200 + the function's JSON result; X-Amz-Executed-Version: $LATEST.
// - the function threw: 200 + `X-Amz-Function-Error: Unhandled` + {errorMessage, errorType, stackTrace: []}.
//   A crashed runtime (shard host process exited) is reported the same way, errorType
//   Runtime.ExitError (the host restarts the process; see shard-host.ts).
// - unknown function: 404, `x-amzn-errortype: ResourceNotFoundException`.
// - concurrency cap reached: 429, `x-amzn-errortype: TooManyRequestsException`
//   (Reason ReservedFunctionConcurrentInvocationLimitExceeded).
// - request payload over 6 MB: 413 RequestEntityTooLargeException; a result over 6 MB:
//   Unhandled with errorType Function.ResponseSizeTooLarge (as Lambda does).
// - X-Amz-Invocation-Type: Event -> 202 and the function runs detached; DryRun -> 204.
// The streaming route (the wire: shared/adapters/aws/response-stream-wire.ts): 200 with the
// function's stream content type, PayloadChunk events as the function writes (a buffered function's
// JSON result is one chunk), then InvokeComplete; a function error, or a stream over the response
// cap (200 MB, Lambda's), ends it with InvokeComplete {ErrorCode: errorType, ErrorDetails: message}.
// Past the first 6 MB a stream is held to Lambda's 2 MB/s. A caller that goes away cancels the
// function's stream (its writes fail): locally a shard sees it at once. A streaming function invoked
// on the buffered route answers its bytes whole, within the 6 MB.
// Differs from AWS: no auth (any credentials are accepted), no versions/aliases (a qualifier is
// ignored), no timeout of its own (ch-scatter sim enforces each function's), and a function is an
// in-process callback, which may serve overlapping invocations (the concurrency cap is the only
// limit), where Lambda runs one request per environment.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { encodeInvokeComplete, encodePayloadChunk, RESPONSE_STREAM_PATH, type InvokeCompleteEvent } from '../shared/adapters/aws/response-stream-wire.js';
import { collectStreamed, isStreamed, type StreamedResponse } from './response-stream.mjs';

/** A function: its JSON result, or a StreamedResponse (a streaming handler: local/response-stream.mjs). */
/** `callerLeft`: fires when the caller of a streaming invocation goes away (a streaming handler's stream closes then). */
export type LocalFunction = (payload: unknown, callerLeft?: AbortSignal) => Promise<unknown>;

export interface InvokeServerOptions {
  port?: number;
  host?: string;
  functions: Record<string, LocalFunction>;
  /** Max in-flight invocations per function (a number for all, or per name). Unlimited if unset. */
  concurrency?: number | Record<string, number>;
  /** Max request and response payload, bytes (Lambda: 6 MB). */
  maxPayloadBytes?: number;
  /** Max streamed response, bytes (Lambda: 200 MB). */
  maxStreamBytes?: number;
  /** Bytes a stream may send at full speed before the bandwidth cap applies (Lambda: 6 MB). */
  streamBurstBytes?: number;
  /** The streaming bandwidth after the burst, bytes per second (Lambda: 2 MB/s); 0 for none. */
  streamBytesPerSecond?: number;
}

export interface InvokeServer {
  url: string;
  port: number;
  /** In-flight invocations per function name (for tests and health). */
  inFlight(name: string): number;
  close(): Promise<void>;
}

const PATH = /^\/2015-03-31\/functions\/([^/]+)\/invocations\/?$/;
const SIX_MB = 6 * 1024 * 1024;
/** Lambda's response streaming limits: the payload cap, the full-speed burst, the rate after it. */
export const STREAM_LIMITS = { maxBytes: 200 * 1024 * 1024, burstBytes: SIX_MB, bytesPerSecond: 2 * 1024 * 1024 } as const;

/** `name`, `name:qualifier`, `123:function:name`, or a full ARN -> the function name. */
export function functionNameOf(raw: string): string {
  const decoded = decodeURIComponent(raw);
  const arn = /^arn:[^:]+:lambda:[^:]*:[^:]*:function:([^:]+)(?::.+)?$/.exec(decoded);
  if (arn) return arn[1]!;
  const partial = /^\d{12}:function:([^:]+)(?::.+)?$/.exec(decoded);
  if (partial) return partial[1]!;
  return decoded.split(':')[0]!;
}

/** An error as Lambda names it: errorType from the error's name (Runtime.ExitError, Sandbox.Timedout, ...). */
function lambdaError(e: unknown): { errorMessage: string; errorType: string } {
  const err = e instanceof Error ? e : new Error(String(e));
  return { errorMessage: err.message, errorType: err.name && err.name !== 'Error' ? err.name : 'Error' };
}

/** A stream's bytes for a buffered answer, read no further than `limit` (the stream is cancelled there). */
async function collectUpTo(s: StreamedResponse, limit: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const c of s.body) {
    parts.push(Buffer.from(c));
    size += c.byteLength;
    if (size >= limit) {
      s.cancel();
      break;
    }
  }
  return Buffer.concat(parts);
}

/** The response took what was written, or its caller went away. */
function drainedOrClosed(res: http.ServerResponse): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

const sizeExceeded = (limit: number) => ({
  errorMessage: `Response payload size exceeded maximum allowed payload size (${limit} bytes).`,
  errorType: 'Function.ResponseSizeTooLarge',
});

export async function startInvokeServer(opts: InvokeServerOptions): Promise<InvokeServer> {
  const maxBytes = opts.maxPayloadBytes ?? SIX_MB;
  const maxStream = opts.maxStreamBytes ?? STREAM_LIMITS.maxBytes;
  const burst = opts.streamBurstBytes ?? STREAM_LIMITS.burstBytes;
  const rate = opts.streamBytesPerSecond ?? STREAM_LIMITS.bytesPerSecond;
  const inFlight = new Map<string, number>();
  const capOf = (name: string) => (typeof opts.concurrency === 'number' ? opts.concurrency : (opts.concurrency?.[name] ?? Number.POSITIVE_INFINITY));

  /** A stream's events onto the response: chunks as they come (with backpressure), then InvokeComplete. */
  async function writeStream(res: http.ServerResponse, streamed: StreamedResponse): Promise<void> {
    let sent = 0;
    let burstEndedAt: number | undefined;
    let complete: InvokeCompleteEvent = {};
    const gone = () => res.destroyed || res.writableEnded;
    const iterator = streamed.body[Symbol.asyncIterator]();
    try {
      for (;;) {
        const next = await iterator.next();
        if (next.done) break;
        if (gone()) return;
        const chunk = next.value;
        if (sent + chunk.byteLength > maxStream) {
          const e = sizeExceeded(maxStream);
          complete = { ErrorCode: e.errorType, ErrorDetails: e.errorMessage };
          streamed.cancel(Object.assign(new Error(e.errorMessage), { name: e.errorType }));
          break;
        }
        sent += chunk.byteLength;
        if (!res.write(encodePayloadChunk(chunk))) await drainedOrClosed(res);
        // Past the burst the stream is held to the bandwidth cap, as Lambda holds it.
        if (rate > 0 && sent > burst) {
          burstEndedAt ??= Date.now();
          const due = burstEndedAt + ((sent - burst) / rate) * 1000;
          const wait = due - Date.now();
          if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        }
      }
    } catch (e) {
      const err = lambdaError(e);
      complete = { ErrorCode: err.errorType, ErrorDetails: err.errorMessage };
    }
    if (!gone()) res.end(encodeInvokeComplete(complete));
  }

  const server = http.createServer((req, res) => {
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      const text = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body ?? null);
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
      res.end(text);
    };
    const awsError = (status: number, type: string, message: string, extra: Record<string, unknown> = {}) =>
      send(status, { Type: 'User', message, ...extra }, { 'x-amzn-errortype': type });
    const unhandled = (e: { errorMessage: string; errorType: string }) =>
      send(200, { ...e, stackTrace: [] }, { 'x-amz-function-error': 'Unhandled', 'x-amz-executed-version': '$LATEST' });

    const url = new URL(req.url ?? '/', 'http://local');
    const buffered = PATH.exec(url.pathname);
    const streaming = buffered ? null : RESPONSE_STREAM_PATH.exec(url.pathname);
    const m = buffered ?? streaming;
    if (req.method !== 'POST' || !m) {
      req.resume();
      return awsError(404, 'UnknownOperationException', `unknown operation ${req.method} ${url.pathname}`);
    }
    const name = functionNameOf(m[1]!);
    const fn = Object.hasOwn(opts.functions, name) ? opts.functions[name] : undefined;
    if (!fn) {
      req.resume();
      return awsError(404, 'ResourceNotFoundException', `Function not found: arn:aws:lambda:local:000000000000:function:${name}`);
    }

    const chunks: Buffer[] = [];
    let size = 0;
    let tooBig = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > maxBytes) tooBig = true;
      else chunks.push(c);
    });
    req.on('end', () => {
      const operation = streaming ? 'InvokeWithResponseStream' : 'InvokeFunction';
      if (tooBig) {
        return awsError(413, 'RequestEntityTooLargeException', `Request must be smaller than ${maxBytes} bytes for the ${operation} operation`);
      }
      const raw = Buffer.concat(chunks).toString('utf8');
      let payload: unknown = null;
      if (raw.trim() !== '') {
        try {
          payload = JSON.parse(raw);
        } catch {
          return awsError(400, 'InvalidRequestContentException', 'Could not parse request body into json');
        }
      }
      const type = String(req.headers['x-amz-invocation-type'] ?? 'RequestResponse');
      if (type === 'DryRun') return send(204, '');
      if (streaming && type !== 'RequestResponse') {
        return awsError(400, 'InvalidParameterValueException', `Unsupported invocation type ${type} for ${operation}`);
      }
      const n = inFlight.get(name) ?? 0;
      if (n >= capOf(name)) {
        return awsError(429, 'TooManyRequestsException', 'Rate Exceeded.', { Reason: 'ReservedFunctionConcurrentInvocationLimitExceeded' });
      }
      inFlight.set(name, n + 1);
      let counted = true;
      const done = () => {
        if (!counted) return;
        counted = false;
        inFlight.set(name, (inFlight.get(name) ?? 1) - 1);
      };
      const callerLeft = new AbortController();
      const run = Promise.resolve().then(() => fn(payload, streaming ? callerLeft.signal : undefined));
      if (type === 'Event') {
        run
          .then((r) => (isStreamed(r) ? collectStreamed(r) : r))
          .catch(() => undefined)
          .finally(done);
        return send(202, '');
      }
      if (streaming) {
        // A caller that leaves before the function's first write (a query still computing): the
        // function is told at once (its handler's stream closes), and its stream, once there, cancelled.
        let left = false;
        const leftEarly = () => {
          left = true;
          callerLeft.abort();
        };
        res.once('close', leftEarly);
        run.then(
          (result) => {
            res.off('close', leftEarly);
            const streamed = isStreamed(result) ? result : undefined;
            if (left) {
              if (streamed) {
                streamed.cancel();
                void collectStreamed(streamed).catch(() => undefined); // its failure read, not left unhandled
              }
              return done();
            }
            res.writeHead(200, {
              'content-type': streamed ? streamed.contentType : 'application/json',
              'x-amz-executed-version': '$LATEST',
            });
            // The caller went away: the function's stream is cancelled (its writes fail).
            res.once('close', () => {
              if (!res.writableFinished) streamed?.cancel();
            });
            if (!streamed) {
              res.write(encodePayloadChunk(Buffer.from(JSON.stringify(result === undefined ? null : result), 'utf8')));
              res.end(encodeInvokeComplete({}));
              return done();
            }
            writeStream(res, streamed).finally(done);
          },
          (e: unknown) => {
            done();
            const err = lambdaError(e);
            res.writeHead(200, { 'content-type': 'application/json', 'x-amz-executed-version': '$LATEST' });
            res.end(encodeInvokeComplete({ ErrorCode: err.errorType, ErrorDetails: err.errorMessage }));
          },
        );
        return;
      }
      run
        .then(async (result) => {
          const bytes = isStreamed(result)
            ? await collectUpTo(result, maxBytes + 1)
            : Buffer.from(JSON.stringify(result === undefined ? null : result), 'utf8');
          done();
          if (bytes.length > maxBytes) return unhandled(sizeExceeded(maxBytes));
          send(200, bytes, { 'x-amz-executed-version': '$LATEST' });
        })
        .catch((e: unknown) => {
          done();
          unhandled(lambdaError(e));
        });
    });
  });
  server.keepAliveTimeout = 60_000;
  server.headersTimeout = 65_000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const addr = server.address() as AddressInfo;
  return {
    url: `http://${opts.host ?? '127.0.0.1'}:${addr.port}`,
    port: addr.port,
    inFlight: (name) => inFlight.get(name) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 1000).unref();
      }),
  };
}
