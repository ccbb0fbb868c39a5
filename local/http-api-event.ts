// An HTTP request as API Gateway's HTTP API hands it to a Lambda integration (payload format 2.0).
// The local stack and the cloud-assembly simulation both serve the coordinator this way, so the
// handler sees the same event shape locally as in AWS; one builder keeps the two from drifting.
import type { IncomingMessage } from 'node:http';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';

export interface HttpApiEventOptions {
  /** The matched route: `$default` or `METHOD /path`. Default: the request's own method and path. */
  routeKey?: string;
  /** `requestContext.apiId` and `domainPrefix`: who built the event (`local`, `sim`). */
  apiId: string;
  requestId: string;
  /** What an authorizer put in `requestContext.authorizer` (JWT claims, IAM identity). */
  authorizer?: unknown;
  now?: number;
}

export function toHttpApiEvent(req: IncomingMessage, url: URL, body: Buffer, o: HttpApiEventOptions): APIGatewayProxyEventV2 {
  // API Gateway joins repeated headers with commas and moves cookies to their own field.
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && k !== 'cookie') headers[k] = Array.isArray(v) ? v.join(',') : v;
  const method = (req.method ?? 'GET').toUpperCase();
  const routeKey = o.routeKey ?? `${method} ${url.pathname}`;
  const now = o.now ?? Date.now();
  // A body that is not valid UTF-8 arrives base64-encoded, as API Gateway sends binary payloads.
  const text = body.toString('utf8');
  const binary = body.length > 0 && !Buffer.from(text, 'utf8').equals(body);
  return {
    version: '2.0',
    routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.replace(/^\?/, ''),
    ...(req.headers.cookie ? { cookies: req.headers.cookie.split(/;\s*/) } : {}),
    headers,
    ...(url.search ? { queryStringParameters: Object.fromEntries(url.searchParams) } : {}),
    requestContext: {
      accountId: '000000000000',
      apiId: o.apiId,
      ...(o.authorizer ? { authorizer: o.authorizer } : {}),
      domainName: headers.host ?? url.host,
      domainPrefix: o.apiId,
      http: {
        method,
        path: url.pathname,
        protocol: `HTTP/${req.httpVersion}`,
        // API Gateway gives a plain IPv4/IPv6 address (the event schema checks it): no IPv6 zone id.
        sourceIp: (req.socket.remoteAddress ?? '127.0.0.1').replace(/%.*$/, ''),
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: o.requestId,
      routeKey,
      stage: '$default',
      time: new Date(now).toISOString(),
      timeEpoch: now,
    },
    ...(body.length ? { body: binary ? body.toString('base64') : text } : {}),
    isBase64Encoded: binary,
  } as APIGatewayProxyEventV2;
}
