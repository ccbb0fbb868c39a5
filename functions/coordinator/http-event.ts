// API Gateway HTTP API (payload 2.0) requests in (validated by events.ts) and responses out. Routes are matched on the method and the
// end of the path so a named stage prefix (/prod/query) works as well as the $default stage.
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { stringifyAnswer } from '../../shared/core/protocol/answer-json.js';
import type { HttpEvent } from './events.js';

export type Route = 'query' | 'explain' | 'health' | 'play' | 'clickhouse' | 'unknown' | 'method';

export function routeOf(event: HttpEvent): Route {
  const method = event.requestContext?.http?.method?.toUpperCase() ?? 'GET';
  const path = (event.rawPath ?? event.requestContext?.http?.path ?? '/').replace(/\/+$/, '') || '/';
  const want: Record<string, [Route, string]> = {
    '/query': ['query', 'POST'],
    '/explain': ['explain', 'POST'],
    '/health': ['health', 'GET'],
    '/play': ['play', 'GET'],
  };
  // ClickHouse's HTTP interface: `/` (GET, HEAD, POST, a preflight OPTIONS), `/ping` and `/replicas_status`
  // (it answers other methods itself, as ClickHouse does).
  if (path === '/' || path === '/ping' || path === '/replicas_status') return 'clickhouse';
  for (const [suffix, [route, m]] of Object.entries(want)) {
    if (path === suffix || path.endsWith(suffix)) return method === m ? route : 'method';
  }
  return 'unknown';
}

export function bodyOf(event: HttpEvent): string {
  if (event.body === undefined || event.body === null) return '';
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): APIGatewayProxyStructuredResultV2 {
  return { statusCode: status, headers: { 'content-type': 'application/json', ...headers }, body: stringifyAnswer(body) };
}
