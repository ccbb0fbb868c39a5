// The HTTP API (API Gateway v2) of a simulated assembly: its routes, each a Lambda proxy integration
// invoked through the local Invoke endpoint with a payload format 2.0 event, as API Gateway does.
//
// Emulated: route matching (`METHOD /path`, `ANY`, `$default`); the 10 MB request limit (413); the
// stage's default throttling (token bucket, 429); the integration timeout (503 Service Unavailable);
// a function error or throttle (500 Internal Server Error); the 2.0 response mapping (statusCode,
// headers, cookies, body, isBase64Encoded; a bare value becomes a 200 JSON body).
// Authorization, honoured per route but NOT verified cryptographically:
// - AWS_IAM: the request must carry a SigV4 Authorization header for execute-api (shape checked,
//   403 otherwise); the signature and the caller's IAM policy are not evaluated.
// - JWT: a bearer token whose `iss` is the authorizer's issuer, whose `aud` (or `client_id`) is one
//   of its audiences and that has not expired (401 otherwise); the signature is not checked against
//   the issuer's JWKS. The claims reach the function as requestContext.authorizer.jwt.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import type { SimRoute } from './assembly.js';
import { toHttpApiEvent } from '../http-api-event.js';

export const API_MAX_BODY_BYTES = 10 * 1024 * 1024;

export interface HttpApiOptions {
  routes: SimRoute[];
  throttle?: { rateLimit: number; burstLimit: number };
  invokeUrl: string;
  port?: number;
  /** Extra handlers (the simulation's admin routes), tried before the API's routes. */
  admin?: (req: http.IncomingMessage, body: Buffer, url: URL) => Promise<{ status: number; body: unknown } | undefined>;
}

export interface HttpApi {
  url: string;
  close(): Promise<void>;
}

type Json = Record<string, unknown>;

function matchRoute(routes: SimRoute[], method: string, path: string): SimRoute | undefined {
  return (
    routes.find((r) => r.path === path && r.method === method) ??
    routes.find((r) => r.path === path && r.method === 'ANY') ??
    routes.find((r) => r.path === '$default')
  );
}

function base64urlJson(part: string | undefined): Json | undefined {
  if (!part) return undefined;
  try {
    return JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Json;
  } catch {
    return undefined;
  }
}

/** requestContext.authorizer for the route, or the status API Gateway answers with. */
export function authorize(
  route: SimRoute,
  headers: Record<string, string>,
  nowS = Date.now() / 1000,
): { authorizer?: Json } | { status: number; message: string } {
  const a = route.authorization;
  if (a.type === 'NONE') return {};
  if (a.type === 'AWS_IAM') {
    const m = /^AWS4-HMAC-SHA256 Credential=([^/,\s]+)\/\d{8}\/[^/]+\/execute-api\/aws4_request,\s*SignedHeaders=[^,]+,\s*Signature=[0-9a-f]{64}$/.exec(
      headers.authorization ?? '',
    );
    if (!m || !(headers['x-amz-date'] || headers.date)) return { status: 403, message: 'Forbidden' };
    return {
      authorizer: { iam: { accessKey: m[1], accountId: '000000000000', callerId: m[1], userArn: `arn:aws:iam::000000000000:user/${m[1]}`, userId: m[1] } },
    };
  }
  const source = a.identitySource[0] ?? '$request.header.Authorization';
  const header = /^\$request\.header\.(.+)$/.exec(source)?.[1]?.toLowerCase() ?? 'authorization';
  const token = (headers[header] ?? '').replace(/^Bearer\s+/i, '');
  const [h, p] = token.split('.');
  const claims = base64urlJson(p);
  if (!base64urlJson(h) || !claims) return { status: 401, message: 'Unauthorized' };
  const aud = Array.isArray(claims.aud) ? claims.aud.map(String) : claims.aud !== undefined ? [String(claims.aud)] : [];
  if (claims.client_id !== undefined) aud.push(String(claims.client_id));
  const expired = typeof claims.exp === 'number' && claims.exp <= nowS;
  const early = typeof claims.nbf === 'number' && claims.nbf > nowS;
  if (claims.iss !== a.issuer || !aud.some((x) => a.audience.includes(x)) || expired || early) return { status: 401, message: 'Unauthorized' };
  const scopes = typeof claims.scope === 'string' ? claims.scope.split(' ') : null;
  return { authorizer: { jwt: { claims, scopes } } };
}

function tokenBucket(t: { rateLimit: number; burstLimit: number } | undefined): () => boolean {
  if (!t) return () => true;
  let tokens = t.burstLimit;
  let last = Date.now();
  return () => {
    const now = Date.now();
    tokens = Math.min(t.burstLimit, tokens + ((now - last) / 1000) * t.rateLimit);
    last = now;
    if (tokens < 1) return false;
    tokens -= 1;
    return true;
  };
}

export async function startHttpApi(o: HttpApiOptions): Promise<HttpApi> {
  const take = tokenBucket(o.throttle);
  const server = http.createServer((req, res) => {
    const requestId = randomUUID();
    const send = (status: number, body: string, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', 'apigw-requestid': requestId, ...headers });
      res.end(body);
    };
    const message = (status: number, text: string) => send(status, JSON.stringify({ message: text }));
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= API_MAX_BODY_BYTES) chunks.push(c);
    });
    req.on('end', () => {
      void (async () => {
        const url = new URL(req.url ?? '/', 'http://localhost');
        const body = Buffer.concat(chunks);
        const admin = o.admin ? await o.admin(req, body, url) : undefined;
        if (admin) return send(admin.status, JSON.stringify(admin.body));
        if (size > API_MAX_BODY_BYTES) return message(413, 'Request Entity Too Large');
        const method = (req.method ?? 'GET').toUpperCase();
        const route = matchRoute(o.routes, method, url.pathname);
        if (!route) return message(404, 'Not Found');
        if (!take()) return message(429, 'Too Many Requests');
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && k !== 'cookie') headers[k] = Array.isArray(v) ? v.join(',') : v;
        const auth = authorize(route, headers);
        if ('status' in auth) return message(auth.status, auth.message);
        const routeKey = route.path === '$default' ? '$default' : `${route.method} ${route.path}`;
        const event = toHttpApiEvent(req, url, body, { apiId: 'sim', requestId, routeKey, authorizer: auth.authorizer });
        let r: Response;
        try {
          r = await fetch(`${o.invokeUrl}/2015-03-31/functions/${encodeURIComponent(route.functionName)}/invocations`, {
            method: 'POST',
            body: JSON.stringify(event),
            signal: AbortSignal.timeout(route.integrationTimeoutMs),
          });
        } catch (e) {
          if ((e as Error).name === 'TimeoutError') return message(503, 'Service Unavailable');
          return message(500, 'Internal Server Error');
        }
        const out = await r.text();
        if (r.status !== 200 || r.headers.get('x-amz-function-error')) return message(500, 'Internal Server Error');
        let result: unknown;
        try {
          result = JSON.parse(out);
        } catch {
          return message(500, 'Internal Server Error');
        }
        const structured = result as { statusCode?: number; headers?: Record<string, string>; cookies?: string[]; body?: string; isBase64Encoded?: boolean };
        if (result && typeof result === 'object' && typeof structured.statusCode === 'number') {
          const h: Record<string, string | string[]> = { ...(structured.headers ?? {}) };
          if (structured.cookies?.length) h['set-cookie'] = structured.cookies;
          res.writeHead(structured.statusCode, { 'apigw-requestid': requestId, ...h });
          return res.end(structured.body === undefined ? '' : structured.isBase64Encoded ? Buffer.from(structured.body, 'base64') : structured.body);
        }
        // Payload 2.0 without a statusCode: API Gateway answers 200 with the value as JSON.
        send(200, typeof result === 'string' ? result : JSON.stringify(result));
      })().catch((e: unknown) => {
        if (!res.headersSent) message(500, 'Internal Server Error');
        else res.destroy(e as Error);
      });
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
