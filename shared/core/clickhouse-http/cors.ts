// CORS for ClickHouse's HTTP interface: a page from an origin on the configured allowlist
// (topology `clickhouseHttp.corsOrigins`) may call it from a browser. Its answers, errors included,
// carry Access-Control-Allow-Origin and expose the X-ClickHouse-* headers the clients read; its
// preflight OPTIONS is answered without credentials (a browser sends none there). An origin off the
// list gets no CORS header, whatever add_http_cors_header says: the operator's list decides.
import type { Topology } from '../config/schema.js';

/** The headers ClickHouse allows in a CORS request (its addHeaderCORS), plus what the JavaScript clients send. */
const ALLOW_HEADERS = 'origin, x-requested-with, x-clickhouse-format, x-clickhouse-user, x-clickhouse-key, Authorization, content-type';
/** The interface's headers a page on another origin may read (API Gateway's preflight exposes the same: cdk/constructs/query-api.ts). */
export const CORS_EXPOSE_HEADERS: readonly string[] = [
  'X-ClickHouse-Query-Id',
  'X-ClickHouse-Format',
  'X-ClickHouse-Timezone',
  'X-ClickHouse-Summary',
  'X-ClickHouse-Exception-Code',
  'X-ClickHouse-Server-Display-Name',
  'X-ClickHouse-Progress',
];
const EXPOSE_HEADERS = CORS_EXPOSE_HEADERS.join(', ');

/** The origin the request names when the allowlist admits it. */
export function allowedOrigin(topo: Topology, headers: Readonly<Record<string, string | undefined>>): string | undefined {
  const origin = headers.origin;
  if (!origin) return undefined;
  const list = topo.clickhouseHttp?.corsOrigins ?? [];
  return list.includes('*') || list.includes(origin) ? origin : undefined;
}

/** The CORS headers of an answer to a request from `origin` (none without one). */
export function corsHeaders(origin: string | undefined): Record<string, string> {
  if (!origin) return {};
  return { 'access-control-allow-origin': origin, 'access-control-expose-headers': EXPOSE_HEADERS, vary: 'Origin' };
}

/** A preflight's answer: 204, and for an allowed origin what it may send (ClickHouse's methods and max age). */
export function preflightHeaders(origin: string | undefined, headers: Readonly<Record<string, string | undefined>>): Record<string, string> {
  if (!origin) return {};
  return {
    ...corsHeaders(origin),
    'access-control-allow-methods': 'POST, GET, OPTIONS',
    'access-control-allow-headers': headers['access-control-request-headers'] || ALLOW_HEADERS,
    'access-control-max-age': '86400',
  };
}
