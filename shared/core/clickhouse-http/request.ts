// A request to ClickHouse's HTTP interface, read as ClickHouse reads it: the query from `?query=`
// and/or the POST body (both: the URL part, a newline, then the body), the database for unqualified
// names, the default output format (`default_format`, else the X-ClickHouse-Format header, else
// TabSeparated; a FORMAT clause still wins), the query id, `param_<name>` values, and every other URL
// parameter as a setting, by its fate (shared/core/plan/setting-fate.ts):
//  - read here: max_execution_time (the deadline), skip_unavailable_shards (partial answers),
//    enable_http_compression and http_zlib_compression_level (the answer's compression);
//  - result settings: `limit` / `offset` applied to the statement's LIMIT; the result caps and the
//    format settings given to the engine that renders the answer;
//  - client, connection and logging settings: accepted, no effect;
//  - forwarded and planner settings: the planner's (allowlist, ch-scatter's knobs);
//  - a protection: 164; another setting ClickHouse knows: 452; a name ClickHouse does not know: 115.
import { settingFate } from '../plan/setting-fate.js';
import { fileSettingError } from '../plan/file-access.js';
import { isFileSetting } from '../clickhouse/file-names.js';
import { ChHttpError } from './exception.js';
import { multipartBoundary, parseMultipart } from './multipart.js';
import { clientRevision } from './native-revision.js';
import { declaredExternal, isExternalParam, type DeclaredExternal } from './external-data.js';

export interface HttpInput {
  method: string;
  path: string;
  /** URL parameters (the last value wins for a repeated name, as in ClickHouse). */
  query: URLSearchParams;
  /** Lower-cased header names. */
  headers: Readonly<Record<string, string | undefined>>;
  /** The body after its Content-Encoding was undone. */
  body: Buffer;
}

export interface ChRequest {
  /** The statement text (for INSERT, the data follows the FORMAT name in `text`). */
  text: string;
  /** `text` as the bytes sent, which need not be UTF-8 (an INSERT's data); absent for a multipart body. */
  bytes?: Buffer;
  database?: string;
  defaultFormat: string;
  queryId?: string;
  params: Record<string, string>;
  /** For the planner (allow-listed, validated there). */
  settings: Record<string, string>;
  /** For the engine that renders the answer (format settings, max_result_rows / result_overflow_mode). */
  formatSettings: Record<string, string>;
  /** The `limit` and `offset` settings: applied to the statement's own LIMIT (result-limit.ts). */
  resultLimit: { limit?: number; offset?: number };
  /** max_execution_time in ms (0 or absent: the configured deadline). */
  maxExecutionTimeMs?: number;
  skipUnavailableShards: boolean;
  compression: { enabled: boolean; level?: number };
  /** The HTTP layer's own settings: buffer the whole answer, and progress headers at an interval. */
  http: { waitEndOfQuery: boolean; sendProgress: boolean; progressIntervalMs: number };
  /** `compress=1`: the answer in ClickHouse's compressed blocks; `client_protocol_version`: Native's framing. */
  wire: { compressBlocks: boolean; revision: number };
  /** External data: a multipart file part per table, with its `<name>_format` / `_structure` / `_types`. */
  external: DeclaredExternal[];
}

/** URL parameters that are not settings. */
const NOT_SETTINGS = new Set([
  'query',
  'database',
  'default_format',
  'query_id',
  'session_id',
  'session_timeout',
  'session_check',
  'compress',
  'decompress',
  'user',
  'password',
  'quota_key',
  'buffer_size',
  'wait_end_of_query',
  'role',
  'stacktrace',
  'client_protocol_version',
  'with_stacktrace',
]);

const truthy = (v: string) => !['0', 'false', ''].includes(v.trim().toLowerCase());

function rowCount(name: string, v: string): number {
  const n = Number(v);
  if (!/^\s*\d+\s*$/.test(v) || !Number.isSafeInteger(n)) throw new ChHttpError(72, `Cannot parse '${v}' as a number of rows for setting ${name}`);
  return n;
}

function seconds(name: string, v: string): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new ChHttpError(72, `Cannot parse '${v}' as a number of seconds for setting ${name}`);
  return n;
}

/** The statement's bytes as ClickHouse reads them: the URL's query, a newline, then the body. */
function textBytes(fromUrl: string | null, body: Buffer): Buffer {
  if (fromUrl === null) return body;
  return body.length > 0 ? Buffer.concat([Buffer.from(`${fromUrl}\n`), body]) : Buffer.from(fromUrl);
}

/** The HTTP layer's settings the streaming front door honours (the buffered interface answers whole anyway). */
function httpSetting(h: ChRequest['http'], name: string, value: string): void {
  if (name === 'wait_end_of_query' || name === 'http_wait_end_of_query') h.waitEndOfQuery = truthy(value);
  else if (name === 'send_progress_in_http_headers') h.sendProgress = truthy(value);
  else if (name === 'http_headers_progress_interval_ms') h.progressIntervalMs = Math.max(1, Number(value) || 100);
}

export function parseChRequest(input: HttpInput): ChRequest {
  const h = input.headers;
  // A multipart body carries the query and parameters as form fields: they join the URL's.
  const boundary = input.method === 'POST' ? multipartBoundary(h['content-type']) : undefined;
  const multipart = boundary ? parseMultipart(input.body, boundary) : undefined;
  const form = multipart?.fields;
  // One pass: the URL's parameters the form does not name, then the form's (URLSearchParams.set per
  // field would scan the whole list each time: quadratic in the number of parts).
  const q = form
    ? new URLSearchParams([...[...input.query].filter(([k]) => !form.has(k) || k === 'query'), ...[...form].filter(([k]) => k !== 'query')])
    : new URLSearchParams(input.query);
  const files = multipart?.files ?? new Map<string, Buffer>();
  const fromUrl = q.get('query');
  const body = form ? (form.get('query') ?? '') : input.method === 'POST' ? input.body.toString('utf8') : '';
  const text = fromUrl !== null ? (body.length > 0 ? `${fromUrl}\n${body}` : fromUrl) : body;
  if (text.trim() === '') throw new ChHttpError(62, 'Empty query');

  const out: ChRequest = {
    text,
    ...(form ? {} : { bytes: textBytes(fromUrl, input.method === 'POST' ? input.body : Buffer.alloc(0)) }),
    defaultFormat: q.get('default_format') || h['x-clickhouse-format'] || 'TabSeparated',
    params: {},
    settings: {},
    formatSettings: {},
    resultLimit: {},
    skipUnavailableShards: false,
    compression: { enabled: false },
    http: { waitEndOfQuery: false, sendProgress: false, progressIntervalMs: 100 },
    wire: { compressBlocks: truthy(q.get('compress') ?? '0'), revision: clientRevision(q.get('client_protocol_version')) },
    external: declaredExternal(files, q),
  };
  const db = q.get('database') || h['x-clickhouse-database'];
  if (db) out.database = db;
  const qid = q.get('query_id') || h['x-clickhouse-query-id'];
  if (qid) out.queryId = qid;

  for (const [name, value] of q) {
    if (name.startsWith('param_')) {
      out.params[name.slice('param_'.length)] = value;
      continue;
    }
    if (NOT_SETTINGS.has(name)) {
      httpSetting(out.http, name, value); // wait_end_of_query
      continue;
    }
    if (isExternalParam(name, files)) continue;
    switch (name) {
      case 'max_execution_time':
        out.maxExecutionTimeMs = seconds(name, value) * 1000;
        continue;
      case 'skip_unavailable_shards':
        out.skipUnavailableShards = truthy(value);
        continue;
      case 'enable_http_compression':
        out.compression.enabled = truthy(value);
        continue;
      case 'http_zlib_compression_level':
        out.compression.level = Number(value);
        continue;
      case 'readonly':
        // Clients of read-only users send readonly=1 or 2; everything ch-scatter runs is read-only anyway.
        if (!['1', '2'].includes(value)) throw new ChHttpError(164, `Cannot modify 'readonly' setting in readonly mode`);
        continue;
    }
    switch (settingFate(name)) {
      case 'interface':
      case 'ignored':
        // The HTTP layer's own (progress headers, wait_end_of_query) are read for the streaming door;
        // add_http_cors_header: the CORS allowlist decides (cors.ts).
        httpSetting(out.http, name, value);
        continue;
      case 'result':
        if (name === 'limit' || name === 'offset') out.resultLimit[name] = rowCount(name, value);
        // The rest (result caps, format settings) take effect on the engine that renders the answer.
        else out.formatSettings[name] = value;
        continue;
      case 'refused':
        if (isFileSetting(name)) throw fileSettingError(name, 'a URL parameter');
        throw new ChHttpError(164, `Cannot modify '${name}' setting in readonly mode: ch-scatter's runtime sets it for every query`);
      case 'fixed':
        throw new ChHttpError(452, `Setting ${name} should not be changed: ch-scatter does not apply it (system.settings lists it with readonly = 1)`);
      case 'unknown':
        throw new ChHttpError(115, `Unknown setting ${name}`);
      case 'planner':
        // ch-scatter's fast-path choices: this interface always takes the general path.
        if (name === 'ch_scatter_path' || name === 'ch_scatter_approximate') throw new ChHttpError(115, `Unknown setting ${name}`);
        break;
      case 'forwarded':
        break;
    }
    out.settings[name] = value;
  }
  return out;
}
