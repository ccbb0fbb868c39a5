// The coordinator's QUERY fan-out invoker: Lambda Invoke as a SigV4-signed node:http POST, without
// the AWS SDK's per-call middleware stack. Through InvokeCommand a wide fan-out costs several times
// the coordinator CPU per call of a raw POST (docs/benchmarks.md#2-fan-out-overhead-fanout); this
// path signs (sigv4.ts) and posts, nothing else.
//
// It behaves exactly as createLambdaInvoker (lambda-invoker.ts), which stays for everything else
// (tree invocations, tools) and stays selectable (CH_SCATTER_INVOKER=sdk):
//  - the same request: POST /2015-03-31/functions/<name>/invocations (the name encoded as the SDK
//    encodes a path label), X-Amz-Invocation-Type RequestResponse, the SDK's content-type, no retries;
//  - the same classification of answers (invoke-result.ts, shared with the SDK invoker);
//  - abort on the signal: the request (and its socket) is destroyed -> InvokeError 'aborted';
//  - a keep-alive agent (http or https by the endpoint's scheme), 256 sockets by default;
//  - credentials: in AWS what the SDK's default provider chain gives. Where the environment alone
//    decides it (Lambda: the role's keys in AWS_ACCESS_KEY_ID/...; env-resolution.ts) they are read
//    from there and the SDK is never loaded; otherwise (a profile, container or instance credentials,
//    or a LambdaClient given in the options) from a LambdaClient's resolved config (memoized,
//    refreshed before expiry), asked per request (cheap when cached), the SDK loaded on first use;
//    with an explicit/local endpoint the same dummy static credentials as createLambdaClient;
//  - the endpoint: the explicit one, else resolved ONCE as the SDK's endpoint settings and rules
//    would (from the environment where it decides alone, else by the SDK: lambda-sdk-target.ts).
// Not carried over from the SDK: its AWS X-Ray subsegment per invoke (captureAWSv3Client wraps SDK
// clients only; in Lambda the Tracer's node:http/https capture still makes each invoke an HTTP
// subsegment and sends the trace header: test/unit/scatter/signed-http-invoker-xray.test.ts) and
// clock-skew correction (the SDK shifts its clock after a skew error; Lambda's clocks and the
// coordinator's are NTP-synced).
import http from 'node:http';
import https from 'node:https';
import type { LambdaClient } from '@aws-sdk/client-lambda';
import { InvokeError, type ShardInvoker } from '../../core/scatter/invoker.js';
import { credentialsFromEnv, endpointFromEnv, LAMBDA } from './env-resolution.js';
import { functionError, payloadJson, serviceError, shardInvokerOver, streamChunks, type StreamedInvoke } from './invoke-result.js';
import { decodeResponseStream, responseStreamPath } from './response-stream-wire.js';
import { shardFunctionNames } from './shard-function-names.js';
import { signPost, uriEncode, type SigV4Credentials } from './sigv4.js';

export interface SignedHttpInvokerOptions {
  /** Function name (or ARN) per shard, in shard order. Default: env CH_SCATTER_SHARD_FUNCTIONS or ch-scatter-shard-<i>. */
  functionNames?: string[];
  /** Default: env CH_SCATTER_LAMBDA_ENDPOINT (the local stack's Invoke endpoint); else AWS's for the region. */
  endpoint?: string;
  /** Default: the client's region, else AWS_REGION, else us-east-1. */
  region?: string;
  /** Sockets per agent; default 256 (>= query.maxConcurrency with hedges). */
  maxSockets?: number;
  /** Where credentials (and, without an endpoint, the endpoint) come from in AWS: a LambdaClient's resolved config. Default: the environment where it decides alone, else a LambdaClient of the invoker's own. */
  client?: LambdaClient;
  /** Signing clock, ms since the epoch (tests sign at a given instant). */
  now?: () => number;
}

/** The Invoke path: the name encoded as the SDK encodes a path label (encodeURIComponent plus !'()*). */
export function invocationPath(functionName: string): string {
  return `/2015-03-31/functions/${uriEncode(functionName)}/invocations`;
}

const LOCAL_CREDENTIALS: SigV4Credentials = { accessKeyId: 'local', secretAccessKey: 'local' }; // the local endpoint checks no signature

interface Target {
  url: URL;
  /** Fixed credentials (the local endpoint's, or the environment's), else asked per request. */
  credentials: SigV4Credentials | (() => Promise<SigV4Credentials>);
  /** The endpoint's own path prefix ('' for Lambda's), put before each Invoke path as the SDK does. */
  basePath: string;
  region: string;
  agent: http.Agent;
  request: typeof http.request;
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** The AWS error name of a non-2xx answer, as the SDK reads it: x-amzn-errortype, else the body's code/__type. */
function errorNameOf(headers: http.IncomingHttpHeaders, body: { code?: unknown; __type?: unknown } | undefined): string {
  const raw = headers['x-amzn-errortype'] ?? body?.code ?? body?.__type;
  if (typeof raw !== 'string' || raw === '') return 'Unknown';
  const name = raw.split(':')[0]!; // "TooManyRequestsException:http://internal.amazon.com/..."
  return name.includes('#') ? name.split('#')[1]! : name; // "com.amazon.coral#Name"
}

function classify(answer: Answer): unknown {
  const { status, headers, text } = answer;
  if (status < 200 || status >= 300) {
    let body: { code?: unknown; __type?: unknown; message?: unknown; Message?: unknown } | undefined;
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      /* an HTML error page from a proxy: no name in it */
    }
    const message = body?.message ?? body?.Message;
    throw serviceError(status, errorNameOf(headers, body), typeof message === 'string' ? message : text ? text.slice(0, 200) : `HTTP ${status}`);
  }
  const fnError = headers['x-amz-function-error'];
  if (typeof fnError === 'string') throw functionError(fnError, text);
  return payloadJson(text);
}

export function createSignedHttpInvoker(shardCount: number, opts: SignedHttpInvokerOptions = {}): ShardInvoker & { close(): void } {
  const names = opts.functionNames ?? shardFunctionNames(shardCount);
  const maxSockets = opts.maxSockets ?? 256;
  const now = opts.now ?? Date.now;
  const explicit = opts.endpoint ?? process.env.CH_SCATTER_LAMBDA_ENDPOINT;
  const agents: http.Agent[] = [];
  /** Closes the LambdaClient made for credentials and the endpoint, if one was made. */
  let closeSdk: (() => void) | undefined;
  let closed = false;
  /** The Invoke path per function name, encoded once (the endpoint's base path does not change). */
  const paths = new Map<string, string>();

  function withAgent(url: URL, region: string, credentials: Target['credentials']): Target {
    const secure = url.protocol === 'https:';
    const agent = secure ? new https.Agent({ keepAlive: true, maxSockets }) : new http.Agent({ keepAlive: true, maxSockets });
    agents.push(agent);
    return { url, basePath: url.pathname.replace(/\/+$/, ''), region, credentials, agent, request: secure ? https.request : http.request };
  }

  async function resolveTarget(): Promise<Target> {
    const envRegion = process.env.AWS_REGION ?? 'us-east-1';
    if (explicit) return withAgent(new URL(explicit), opts.region ?? envRegion, LOCAL_CREDENTIALS);
    if (!opts.client) {
      // Only AWS needs the SDK's credential chain and endpoint rules, and Lambda's environment answers both.
      const region = opts.region ?? envRegion;
      const url = region ? endpointFromEnv(LAMBDA, region) : undefined;
      const credentials = url && credentialsFromEnv();
      if (url && credentials) return withAgent(url, region, credentials);
    }
    const { sdkLambdaTarget } = await import('./lambda-sdk-target.js');
    const sdk = await sdkLambdaTarget({ client: opts.client, region: opts.region });
    if (closed) sdk.close();
    else closeSdk = sdk.close;
    return withAgent(sdk.url, sdk.region, sdk.credentials);
  }

  let target: Target | undefined;
  let targetP: Promise<Target> | undefined;
  const getTarget = (): Target | Promise<Target> => {
    if (target) return target;
    targetP ??= resolveTarget().then(
      (t) => (target = t),
      (e: unknown) => {
        targetP = undefined; // a later call may succeed (a transient credential/config failure)
        throw new InvokeError('unavailable', `cannot resolve the Lambda endpoint: ${(e as Error).message}`);
      },
    );
    return targetP;
  };

  function post(t: Target, path: string, headers: Record<string, string>, body: string, signal: AbortSignal): Promise<Answer> {
    return new Promise<Answer>((resolve, reject) => {
      let settled = false;
      const finish = (err: InvokeError | undefined, answer?: Answer) => {
        if (settled) return;
        settled = true;
        signal.removeEventListener('abort', onAbort);
        if (err) reject(err);
        else resolve(answer!);
      };
      // A socket error is 'unavailable' as with the SDK; named by its code (ECONNRESET, ECONNREFUSED),
      // where the SDK's handler says TimeoutError or Error (only the kind drives the runtime).
      const fail = (e: Error & { code?: string }) =>
        finish(signal.aborted ? new InvokeError('aborted', 'invoke aborted') : serviceError(undefined, e.code ?? e.name, e.message));
      // Headers as an object, not node:http's cheaper flat [name, value, ...] form: the X-Ray capture
      // (in Lambda) adds its trace header to the options' headers object.
      const req = t.request({ protocol: t.url.protocol, hostname: t.url.hostname, port: t.url.port, method: 'POST', path, headers, agent: t.agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          finish(undefined, {
            status: res.statusCode ?? 0,
            headers: res.headers,
            // An Invoke answer mostly arrives in one chunk: decode it without copying it first.
            text: chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', fail);
        res.on('aborted', () => fail(new Error('response aborted')));
      });
      // Destroying the request closes its socket, as the SDK's handler does on abort: a hedge loser
      // or a deadline stops holding a connection (and the function's answer is dropped).
      function onAbort() {
        finish(new InvokeError('aborted', 'invoke aborted'));
        req.destroy();
      }
      signal.addEventListener('abort', onAbort, { once: true });
      req.on('error', fail);
      req.end(body);
    });
  }

  /** The signed request of one invocation: the path (by `pathOf`), headers and body. */
  async function signed(shard: number, payload: unknown, signal: AbortSignal, pathOf: (fn: string) => string) {
    const fn = names[shard];
    if (!fn) throw new InvokeError('unavailable', `no shard function configured for shard ${shard}`);
    if (signal.aborted) throw new InvokeError('aborted', 'aborted before invoke');
    const t = target ?? (await getTarget());
    let creds: SigV4Credentials;
    if (typeof t.credentials === 'function') {
      try {
        creds = await t.credentials();
      } catch (e) {
        throw new InvokeError('unavailable', `no AWS credentials: ${(e as Error).message}`, (e as Error).name);
      }
      if (signal.aborted) throw new InvokeError('aborted', 'aborted before invoke');
    } else creds = t.credentials;
    const body = JSON.stringify(payload);
    const path = pathOf(fn);
    const headers = signPost({
      host: t.url.host,
      path,
      headers: {
        // What the SDK sends for InvokeCommand (Payload is a blob); Lambda reads the body as JSON either way.
        'content-type': 'application/octet-stream',
        'content-length': String(Buffer.byteLength(body)),
        'x-amz-invocation-type': 'RequestResponse',
      },
      body,
      region: t.region,
      service: 'lambda',
      credentials: creds,
      now: now(),
    });
    return { t, path, headers, body };
  }

  const bufferedPath = (fn: string) => {
    let path = paths.get(fn);
    if (path === undefined) {
      path = target!.basePath + invocationPath(fn);
      paths.set(fn, path);
    }
    return path;
  };

  async function send(shard: number, payload: unknown, signal: AbortSignal): Promise<unknown> {
    const { t, path, headers, body } = await signed(shard, payload, signal, bufferedPath);
    return classify(await post(t, path, headers, body, signal));
  }

  /**
   * InvokeWithResponseStream: resolves when the answer's headers arrive; its chunks come as the
   * function writes them. Abort destroys the request (and its socket) at any point of the stream.
   */
  async function sendStream(shard: number, payload: unknown, signal: AbortSignal): Promise<StreamedInvoke> {
    const { t, path, headers, body } = await signed(shard, payload, signal, (fn) => target!.basePath + responseStreamPath(fn));
    return new Promise<StreamedInvoke>((resolve, reject) => {
      const aborted = () => new InvokeError('aborted', 'invoke aborted');
      const fail = (e: Error & { code?: string }) => (signal.aborted ? aborted() : serviceError(undefined, e.code ?? e.name, e.message));
      const req = t.request({ protocol: t.url.protocol, hostname: t.url.hostname, port: t.url.port, method: 'POST', path, headers, agent: t.agent }, (res) => {
        const status = res.statusCode ?? 0;
        if (status < 200 || status >= 300) {
          const parts: Buffer[] = [];
          res.on('data', (c: Buffer) => parts.push(c));
          res.on('end', () => {
            try {
              classify({ status, headers: res.headers, text: Buffer.concat(parts).toString('utf8') });
            } catch (e) {
              reject(e);
            }
          });
          res.on('error', (e) => reject(fail(e)));
          return;
        }
        const contentType = String(res.headers['content-type'] ?? 'application/octet-stream');
        const chunks = (async function* () {
          try {
            yield* streamChunks(decodeResponseStream(res), (e) => fail(e as Error));
          } finally {
            signal.removeEventListener('abort', onAbort);
            if (!res.complete) req.destroy();
          }
        })();
        resolve({ contentType, chunks });
      });
      function onAbort() {
        reject(aborted());
        req.destroy(aborted());
      }
      signal.addEventListener('abort', onAbort, { once: true });
      req.on('error', (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(fail(e));
      });
      req.end(body);
    });
  }

  return shardInvokerOver(
    send,
    () => {
      closed = true;
      for (const a of agents) a.destroy();
      closeSdk?.();
    },
    sendStream,
  );
}
