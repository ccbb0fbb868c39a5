// The exchange (shared/core/shard/exchange.ts) over S3's REST API: one signed PUT, GET or DELETE
// per object over node:http(s), signed by the hand-written SigV4 signer (sigv4.ts) rather than
// @aws-sdk/client-s3, which would add its middleware stack and XML parsers to the shard bundle for
// three calls. Objects are compressed by `codec` (zstd); the coordinator's cleaner only deletes, so
// it takes no codec. The same code talks to S3 in AWS (virtual host addressing, the function role's
// credentials from its environment) and to a local S3-compatible server (path-style, `endpoint` set).
import http from 'node:http';
import https from 'node:https';
import { createHash } from 'node:crypto';
import type { ExchangeCleaner, ExchangeStore } from '../../core/shard/exchange.js';
import { credentialsFromEnv } from './env-resolution.js';
import { EMPTY_PAYLOAD_SHA256, signS3, uriEncode, type SigV4Credentials } from './sigv4.js';
import type { Codec } from './zstd-codec.js';
import { STALE_SOCKET_RETRIES, failedOnStaleSocket } from '../http/stale-socket.js';

export interface S3ExchangeConfig {
  bucket: string;
  region: string;
  /** A local S3-compatible server (path-style URLs); absent, AWS_ENDPOINT_URL_S3 (path-style too), else S3's regional endpoint. */
  endpoint?: string;
  /** Absent: the function's own (AWS_ACCESS_KEY_ID, ...), read per request so rotated keys apply. */
  credentials?: SigV4Credentials;
}

const agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };

type S3Method = 'GET' | 'PUT' | 'DELETE';
interface S3Answer {
  status: number;
  body: Buffer;
}
type S3Send = (method: S3Method, key: string, body?: { data: Buffer; encoding: string }, signal?: AbortSignal) => Promise<S3Answer>;

export function createS3Exchange(config: S3ExchangeConfig, codec: Codec, now: () => number = Date.now): ExchangeStore {
  const send = s3Requests(config, now);
  return {
    async put(key, data, signal) {
      const body = codec.compress(data);
      const r = await send('PUT', key, { data: body, encoding: codec.name }, signal);
      if (r.status !== 200) throw failed(`PUT ${key}`, r);
      return { storedBytes: body.length };
    },
    async get(key, signal) {
      const r = await send('GET', key, undefined, signal);
      if (r.status !== 200) throw failed(`GET ${key}`, r);
      try {
        return codec.decompress(r.body);
      } catch (e) {
        throw new Error(`${key} does not decompress (${codec.name}): ${(e as Error).message}`);
      }
    },
    delete: (keys) => deleteObjects(send, keys),
  };
}

/** Deletes only (the coordinator's cleanup of a query's objects): no codec, so its bundle carries none. */
export function createS3ExchangeCleaner(config: S3ExchangeConfig, now: () => number = Date.now): ExchangeCleaner {
  const send = s3Requests(config, now);
  return { delete: (keys) => deleteObjects(send, keys) };
}

async function deleteObjects(send: S3Send, keys: readonly string[]): Promise<void> {
  await Promise.all(
    keys.map(async (key) => {
      const r = await send('DELETE', key);
      if (r.status !== 204 && r.status !== 200 && r.status !== 404) throw failed(`DELETE ${key}`, r);
    }),
  );
}

const failed = (what: string, r: S3Answer) => new Error(`${what}: HTTP ${r.status} ${/<Code>([^<]*)<\/Code>/.exec(r.body.toString('utf8'))?.[1] ?? ''}`.trim());

/** Signed requests to one bucket. */
function s3Requests(config: S3ExchangeConfig, now: () => number): S3Send {
  // An endpoint set in the environment is the simulation's S3 (as AWS_ENDPOINT_URL_LAMBDA is its Lambda).
  const configured = config.endpoint ?? process.env.AWS_ENDPOINT_URL_S3;
  const base = new URL(configured ?? `https://${config.bucket}.s3.${config.region}.amazonaws.com`);
  const pathStyle = configured !== undefined;
  const pathOf = (key: string) => `${pathStyle ? `/${uriEncode(config.bucket)}` : ''}/${key.split('/').map(uriEncode).join('/')}`;
  const credentials = () => {
    const c = config.credentials ?? credentialsFromEnv();
    if (!c) throw new Error('no AWS credentials in the environment for the exchange bucket');
    return c;
  };

  /**
   * One request, sent again while it fails on a kept-alive socket the server had closed before it read
   * the request (stale-socket.ts), and once when the server answers 500 or 503, which S3 asks clients
   * to retry (s3rver answers 500 to deletes racing in one prefix): each request is idempotent.
   */
  async function send(method: S3Method, key: string, body?: { data: Buffer; encoding: string }, signal?: AbortSignal): Promise<S3Answer> {
    const once = async () => {
      for (let retries = STALE_SOCKET_RETRIES; ; retries--) {
        try {
          return await sendOnce(method, key, body, signal);
        } catch (e) {
          if (!(e instanceof StaleSocket) || retries === 0 || signal?.aborted) throw e instanceof StaleSocket ? e.cause : e;
        }
      }
    };
    const r = await once();
    return r.status === 500 || r.status === 503 ? once() : r;
  }

  function sendOnce(method: S3Method, key: string, body: { data: Buffer; encoding: string } | undefined, signal?: AbortSignal): Promise<S3Answer> {
    const path = pathOf(key);
    const extra: Record<string, string> = body ? { 'content-length': String(body.data.length), 'content-encoding': body.encoding } : {};
    const headers = signS3({
      method,
      host: base.host,
      path,
      payloadHash: body ? createHash('sha256').update(body.data).digest('hex') : EMPTY_PAYLOAD_SHA256,
      headers: extra,
      region: config.region,
      credentials: credentials(),
      now: now(),
    });
    const client = base.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const req = client.request(
        {
          protocol: base.protocol,
          hostname: base.hostname,
          port: base.port,
          method,
          path,
          headers,
          agent: base.protocol === 'https:' ? agents.https : agents.http,
          signal,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
          // A response cut mid-way (the server died): an error, never a short object.
          res.on('error', reject);
          res.on('aborted', () => reject(new Error(`the ${method} of ${key} was cut mid-way`)));
        },
      );
      req.on('error', (e: NodeJS.ErrnoException) => reject(failedOnStaleSocket(req, e) ? new StaleSocket(e) : e));
      req.end(body?.data);
    });
  }
  return send;
}

/** A request's failure on a kept-alive socket the server had closed: `cause` is the socket's error. */
class StaleSocket extends Error {
  constructor(override readonly cause: Error) {
    super(cause.message);
  }
}
