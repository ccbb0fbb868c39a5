// Two invokers that exist only to locate the AWS SDK's per-call cost in the fanout bench
// (FIELD-NOTES: ~0.3 ms CPU per SDK call vs ~0.05 ms for raw node:http):
//   sdkCached  the same @aws-sdk/client-lambda client with `cacheMiddleware: true`: the
//              middleware stack is resolved once per command class instead of per send().
//              The SDK only uses the cache when send() gets NO options, so the per-call
//              abortSignal travels through AsyncLocalStorage to a wrapping request handler.
//   sigv4Http  SigV4-signed POSTs (the SDK's own @smithy/signature-v4 signer) over node:http:
//              what an invoker without the middleware stack would cost. It is signed like the
//              SDK, so it would work against AWS as well as the local endpoint.
// Neither is wired into the runtime; they are measurements (see docs/benchmarks.md).
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash, createHmac } from 'node:crypto';
import { Agent } from 'node:http';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import type { NodeHttpHandler } from '@smithy/node-http-handler';
import { postJson } from './_http.js';

export interface LeanInvoker {
  invoke(fn: string, body: string, signal: AbortSignal): Promise<unknown>;
  close(): void;
}

const CREDS = { accessKeyId: 'local', secretAccessKey: 'local' };

/**
 * Undefined when @smithy/node-http-handler (a transitive dependency of the SDK, not in
 * package.json) cannot be loaded: the bench then skips this path rather than failing.
 */
export async function sdkCachedInvoker(endpoint: string, maxSockets: number): Promise<LeanInvoker | undefined> {
  let Handler: typeof NodeHttpHandler;
  try {
    ({ NodeHttpHandler: Handler } = await import('@smithy/node-http-handler'));
  } catch {
    return undefined;
  }
  const als = new AsyncLocalStorage<AbortSignal>();
  const inner = new Handler({ httpAgent: new Agent({ keepAlive: true, maxSockets }) });
  const handler = {
    metadata: { handlerProtocol: 'http/1.1' },
    handle: (req: Parameters<NodeHttpHandler['handle']>[0], o?: Parameters<NodeHttpHandler['handle']>[1]) =>
      inner.handle(req, { ...o, abortSignal: als.getStore() ?? o?.abortSignal }),
    destroy: () => inner.destroy(),
    updateHttpClientConfig: () => undefined,
    httpHandlerConfigs: () => ({}),
  };
  const client = new LambdaClient({ maxAttempts: 1, region: 'us-east-1', endpoint, credentials: CREDS, cacheMiddleware: true, requestHandler: handler as unknown as NodeHttpHandler });
  const enc = new TextEncoder();
  const dec = new TextDecoder();
  return {
    async invoke(fn, body, signal) {
      const out = await als.run(signal, () => client.send(new InvokeCommand({ FunctionName: fn, Payload: enc.encode(body) })));
      return JSON.parse(dec.decode(out.Payload));
    },
    close: () => client.destroy(),
  };
}

/** node:crypto behind the Checksum interface SignatureV4 expects. */
class Sha256 {
  private h: ReturnType<typeof createHash> | ReturnType<typeof createHmac>;
  constructor(private readonly secret?: string | Uint8Array) {
    this.h = secret ? createHmac('sha256', secret) : createHash('sha256');
  }
  update(d: string | Uint8Array): void {
    this.h.update(typeof d === 'string' ? Buffer.from(d) : d);
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.h.digest());
  }
  reset(): void {
    this.h = this.secret ? createHmac('sha256', this.secret) : createHash('sha256');
  }
}

/** Undefined when @smithy/signature-v4 (a transitive dependency of the SDK) cannot be loaded. */
export async function sigv4HttpInvoker(endpoint: string, maxSockets: number): Promise<LeanInvoker | undefined> {
  let SignatureV4: (typeof import('@smithy/signature-v4'))['SignatureV4'];
  try {
    ({ SignatureV4 } = await import('@smithy/signature-v4'));
  } catch {
    return undefined;
  }
  const signer = new SignatureV4({ service: 'lambda', region: 'us-east-1', credentials: CREDS, sha256: Sha256 as never });
  const agent = new Agent({ keepAlive: true, maxSockets });
  const u = new URL(endpoint);
  return {
    async invoke(fn, body, signal) {
      const path = `/2015-03-31/functions/${encodeURIComponent(fn)}/invocations`;
      const signed = await signer.sign({
        method: 'POST', protocol: u.protocol, hostname: u.hostname, port: Number(u.port), path, query: {},
        headers: { host: u.host, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
        body,
      });
      return postJson(agent, u, path, signed.headers, body, signal);
    },
    close: () => agent.destroy(),
  };
}
