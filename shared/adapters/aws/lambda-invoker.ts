// The invoker port over @aws-sdk/client-lambda. Used in AWS and, with CH_SCATTER_LAMBDA_ENDPOINT
// pointing at the local Invoke endpoint, by the local stack: the same code path either way.
//  - maxAttempts 1: the SDK's own retries turn one 429 into about a second of backoff, which a
//    deadline-bound fan-out cannot afford; the runtime retries on ANOTHER replica instead.
//  - a keep-alive agent with as many sockets as the fan-out is wide: a fresh TCP+TLS handshake per
//    shard per query is most of the cost of a small query.
//  - abortSignal: the runtime aborts at the deadline and aborts hedge losers.
//  - per-call SDK cost (docs/benchmarks.md#2-fan-out-overhead-fanout), which is most of a wide fan-out's CPU:
//    * cacheMiddleware: the SDK otherwise re-resolves its middleware stack on every send(). It uses
//      the cache only for send() WITHOUT options, so the per-call abort signal cannot go in
//      `{ abortSignal }`: it is keyed to the command's input, picked up by a middleware next to the
//      HTTP handler and given to the client's own request handler exactly as the option would be
//      (the socket is destroyed on abort). Not AsyncLocalStorage: its promise hooks tax every promise.
//    * the SigV4 signer: the SDK builds a new SignatureV4 (a copy of the whole config, and so a
//      fresh signing-key derivation) per call; one per signing scheme/region is reused instead.
//    * no user-agent middleware: it formats the same header on every call; Lambda needs none (a
//      pass-through keeps its name, which Powertools' tracer positions its own middleware by).
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import {
  InvokeCommand,
  InvokeWithResponseStreamCommand,
  LambdaClient,
  type InvokeCommandOutput,
  type InvokeWithResponseStreamCommandOutput,
} from '@aws-sdk/client-lambda';
import { InvokeError, type ShardInvoker } from '../../core/scatter/invoker.js';
import { functionError, payloadJson, serviceError, shardInvokerOver, streamChunks, type StreamedInvoke } from './invoke-result.js';
import type { ResponseStreamEvent } from './response-stream-wire.js';
import { shardFunctionNames } from './shard-function-names.js';

export interface LambdaInvokerOptions {
  /** Function name (or ARN) per shard, in shard order. Default: env CH_SCATTER_SHARD_FUNCTIONS or ch-scatter-shard-<i>. */
  functionNames?: string[];
  /** Default: env CH_SCATTER_LAMBDA_ENDPOINT (the local stack's Invoke endpoint). */
  endpoint?: string;
  region?: string;
  /** Sockets per agent; default 256 (>= query.maxConcurrency with hedges). */
  maxSockets?: number;
  /** Preconstructed client (tests with aws-sdk-client-mock). */
  client?: LambdaClient;
}

export { shardFunctionNames };

/** The abort signal of each send() in progress, by command input, then by the HTTP request built from it. */
const inputSignals = new WeakMap<object, AbortSignal>();
const requestSignals = new WeakMap<object, AbortSignal>();
/** Clients whose request handler reads those maps (made by createLambdaClient). */
const signalAware = new WeakSet<LambdaClient>();

type Handler = { handle(req: unknown, opts?: { abortSignal?: AbortSignal; requestTimeout?: number }): Promise<unknown> };
type Signer = (authScheme?: { name?: string; signingName?: string; signingRegion?: string }) => Promise<unknown>;

export function createLambdaClient(opts: { endpoint?: string; region?: string; maxSockets?: number } = {}): LambdaClient {
  const endpoint = opts.endpoint ?? process.env.CH_SCATTER_LAMBDA_ENDPOINT;
  const maxSockets = opts.maxSockets ?? 256;
  const client = new LambdaClient({
    maxAttempts: 1,
    cacheMiddleware: true,
    region: opts.region ?? process.env.AWS_REGION ?? 'us-east-1',
    ...(endpoint
      ? { endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } // the local endpoint checks no signature
      : {}),
    requestHandler: {
      httpAgent: new HttpAgent({ keepAlive: true, maxSockets }),
      httpsAgent: new HttpsAgent({ keepAlive: true, maxSockets }),
    },
  });
  // The terminal handler captures config.requestHandler when the (cached) stack is first resolved,
  // so all of this is in place before the first send(). The wrapper overrides handle() only;
  // destroy(), metadata and the rest stay the SDK's own handler's.
  const inner = client.config.requestHandler as unknown as Handler;
  const wrapped = Object.create(inner) as Handler;
  wrapped.handle = (req, o) => {
    const signal = requestSignals.get(req as object);
    return inner.handle(req, signal ? { ...o, abortSignal: signal } : o);
  };
  (client.config as { requestHandler: unknown }).requestHandler = wrapped;
  // Innermost (deserialize step, low priority): args.request is the signed request the handler gets.
  client.middlewareStack.add(
    (next) => async (args) => {
      const signal = inputSignals.get(args.input as object);
      if (signal) requestSignals.set(args.request as object, signal);
      return next(args);
    },
    { step: 'deserialize', priority: 'low', name: 'chScatterAbortSignal' },
  );
  const baseSigner = (client.config as unknown as { signer: Signer }).signer;
  const signers = new Map<string, Promise<unknown>>();
  (client.config as unknown as { signer: Signer }).signer = (scheme) => {
    const key = `${scheme?.name}|${scheme?.signingName}|${scheme?.signingRegion}`;
    let s = signers.get(key);
    if (!s) {
      s = baseSigner(scheme);
      signers.set(key, s);
      s.catch(() => signers.delete(key));
    }
    return s;
  };
  // The user-agent header is not formatted per call, but the name stays in the stack as a
  // pass-through: Powertools (Tracer.captureAWSv3Client, which the coordinator applies whenever
  // X-Ray tracing is on, i.e. in Lambda) adds its own middleware *after* this one by name, and
  // every send() on the client would otherwise fail with "getUserAgentMiddleware is not found".
  client.middlewareStack.remove('getUserAgentMiddleware');
  client.middlewareStack.add((next) => (args) => next(args), { step: 'build', priority: 'low', name: 'getUserAgentMiddleware', override: true });
  signalAware.add(client);
  return client;
}

/**
 * client.send(command) aborted by `signal`. On a client from createLambdaClient the signal goes
 * beside the options (keyed to command.input) so the SDK's middleware cache stays in use; any other client (a mock,
 * a caller's own) gets the ordinary `{ abortSignal }` option.
 */
export function sendWithSignal(client: LambdaClient, command: InvokeCommand, signal: AbortSignal): Promise<InvokeCommandOutput>;
export function sendWithSignal(
  client: LambdaClient,
  command: InvokeWithResponseStreamCommand,
  signal: AbortSignal,
): Promise<InvokeWithResponseStreamCommandOutput>;
export function sendWithSignal(
  client: LambdaClient,
  command: InvokeCommand | InvokeWithResponseStreamCommand,
  signal: AbortSignal,
): Promise<InvokeCommandOutput | InvokeWithResponseStreamCommandOutput> {
  if (signalAware.has(client)) {
    inputSignals.set(command.input, signal);
    return client.send(command as InvokeCommand);
  }
  return client.send(command as InvokeCommand, { abortSignal: signal });
}

function isAbort(e: unknown, signal: AbortSignal): boolean {
  const name = (e as { name?: string })?.name;
  return signal.aborted || name === 'AbortError';
}

function classifySdkError(e: unknown): InvokeError {
  const err = e as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  return serviceError(err.$metadata?.httpStatusCode, err.name ?? 'Error', err.message);
}

export function createLambdaInvoker(shardCount: number, opts: LambdaInvokerOptions = {}): ShardInvoker & { close(): void } {
  const names = opts.functionNames ?? shardFunctionNames(shardCount);
  const client = opts.client ?? createLambdaClient(opts);

  async function send(shard: number, payload: unknown, signal: AbortSignal): Promise<unknown> {
    const fn = names[shard];
    if (!fn) throw new InvokeError('unavailable', `no shard function configured for shard ${shard}`);
    if (signal.aborted) throw new InvokeError('aborted', 'aborted before invoke');
    let out: InvokeCommandOutput;
    try {
      out = await sendWithSignal(
        client,
        new InvokeCommand({ FunctionName: fn, InvocationType: 'RequestResponse', Payload: new TextEncoder().encode(JSON.stringify(payload)) }),
        signal,
      );
    } catch (e) {
      if (isAbort(e, signal)) throw new InvokeError('aborted', 'invoke aborted');
      throw classifySdkError(e);
    }
    const text = out.Payload ? new TextDecoder().decode(out.Payload) : '';
    if (out.FunctionError) throw functionError(out.FunctionError, text);
    return payloadJson(text);
  }

  /** InvokeWithResponseStream: the SDK's own event-stream reader, its events as the wire's (response-stream-wire.ts). */
  async function sendStream(shard: number, payload: unknown, signal: AbortSignal): Promise<StreamedInvoke> {
    const fn = names[shard];
    if (!fn) throw new InvokeError('unavailable', `no shard function configured for shard ${shard}`);
    if (signal.aborted) throw new InvokeError('aborted', 'aborted before invoke');
    let out: InvokeWithResponseStreamCommandOutput;
    try {
      out = await sendWithSignal(
        client,
        new InvokeWithResponseStreamCommand({
          FunctionName: fn,
          InvocationType: 'RequestResponse',
          Payload: new TextEncoder().encode(JSON.stringify(payload)),
        }),
        signal,
      );
    } catch (e) {
      if (isAbort(e, signal)) throw new InvokeError('aborted', 'invoke aborted');
      throw classifySdkError(e);
    }
    const stream = out.EventStream;
    const events = (async function* (): AsyncGenerator<ResponseStreamEvent> {
      if (!stream) return;
      for await (const e of stream) {
        if (e.PayloadChunk) yield { PayloadChunk: e.PayloadChunk.Payload ?? new Uint8Array(0) };
        else if (e.InvokeComplete) yield { InvokeComplete: e.InvokeComplete };
      }
    })();
    const fail = (e: unknown) => (isAbort(e, signal) ? new InvokeError('aborted', 'invoke aborted') : classifySdkError(e));
    return { contentType: out.ResponseStreamContentType ?? 'application/octet-stream', chunks: streamChunks(events, fail) };
  }

  return shardInvokerOver(send, () => client.destroy(), sendStream);
}
