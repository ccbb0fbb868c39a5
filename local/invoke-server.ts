// A local Lambda Invoke endpoint: the subset of the Lambda API the coordinator uses, so the
// real @aws-sdk/client-lambda runs unchanged against the local stack (endpoint = this URL).
//
//   POST /2015-03-31/functions/{name}/invocations      (name, ARN or partial ARN, URL-encoded)
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
// Differs from AWS: no auth (any credentials are accepted), no versions/aliases (a qualifier is
// ignored), and a function is an in-process callback, which may serve overlapping invocations
// (the concurrency cap is the only limit), where Lambda runs one request per environment.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type LocalFunction = (payload: unknown) => Promise<unknown>;

export interface InvokeServerOptions {
  port?: number;
  host?: string;
  functions: Record<string, LocalFunction>;
  /** Max in-flight invocations per function (a number for all, or per name). Unlimited if unset. */
  concurrency?: number | Record<string, number>;
  /** Max request and response payload, bytes (Lambda: 6 MB). */
  maxPayloadBytes?: number;
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

/** `name`, `name:qualifier`, `123:function:name`, or a full ARN -> the function name. */
export function functionNameOf(raw: string): string {
  const decoded = decodeURIComponent(raw);
  const arn = /^arn:[^:]+:lambda:[^:]*:[^:]*:function:([^:]+)(?::.+)?$/.exec(decoded);
  if (arn) return arn[1]!;
  const partial = /^\d{12}:function:([^:]+)(?::.+)?$/.exec(decoded);
  if (partial) return partial[1]!;
  return decoded.split(':')[0]!;
}

export async function startInvokeServer(opts: InvokeServerOptions): Promise<InvokeServer> {
  const maxBytes = opts.maxPayloadBytes ?? SIX_MB;
  const inFlight = new Map<string, number>();
  const capOf = (name: string) => (typeof opts.concurrency === 'number' ? opts.concurrency : (opts.concurrency?.[name] ?? Number.POSITIVE_INFINITY));

  const server = http.createServer((req, res) => {
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      const text = typeof body === 'string' ? body : JSON.stringify(body ?? null);
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
      res.end(text);
    };
    const awsError = (status: number, type: string, message: string, extra: Record<string, unknown> = {}) =>
      send(status, { Type: 'User', message, ...extra }, { 'x-amzn-errortype': type });

    const url = new URL(req.url ?? '/', 'http://local');
    const m = PATH.exec(url.pathname);
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
      if (tooBig) {
        return awsError(413, 'RequestEntityTooLargeException', `Request must be smaller than ${maxBytes} bytes for the InvokeFunction operation`);
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
      const n = inFlight.get(name) ?? 0;
      if (n >= capOf(name)) {
        return awsError(429, 'TooManyRequestsException', 'Rate Exceeded.', { Reason: 'ReservedFunctionConcurrentInvocationLimitExceeded' });
      }
      inFlight.set(name, n + 1);
      const done = () => inFlight.set(name, (inFlight.get(name) ?? 1) - 1);
      const run = Promise.resolve().then(() => fn(payload));
      if (type === 'Event') {
        run.catch(() => undefined).finally(done);
        return send(202, '');
      }
      run.then(
        (result) => {
          done();
          const text = JSON.stringify(result === undefined ? null : result);
          if (Buffer.byteLength(text) > maxBytes) {
            return send(
              200,
              { errorMessage: `Response payload size exceeded maximum allowed payload size (${maxBytes} bytes).`, errorType: 'Function.ResponseSizeTooLarge' },
              { 'x-amz-function-error': 'Unhandled', 'x-amz-executed-version': '$LATEST' },
            );
          }
          send(200, text, { 'x-amz-executed-version': '$LATEST' });
        },
        (e: unknown) => {
          done();
          const err = e instanceof Error ? e : new Error(String(e));
          send(
            200,
            { errorMessage: err.message, errorType: err.name && err.name !== 'Error' ? err.name : 'Error', stackTrace: [] },
            { 'x-amz-function-error': 'Unhandled', 'x-amz-executed-version': '$LATEST' },
          );
        },
      );
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
