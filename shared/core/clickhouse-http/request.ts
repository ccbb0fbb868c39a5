// A request to ClickHouse's HTTP interface, read as ClickHouse reads it: the query from `?query=`
// and/or the POST body (both: the URL part, a newline, then the body), the database for unqualified
// names, the default output format (`default_format`, else the X-ClickHouse-Format header, else
// TabSeparated; a FORMAT clause still wins), the query id, `param_<name>` values, and every other URL
// parameter as a setting. Settings fall in four groups:
//  - read here: max_execution_time (the deadline), skip_unavailable_shards (partial answers),
//    enable_http_compression and http_zlib_compression_level (the answer's compression);
//  - format settings (output_format_*, format_*, date_time_output_format...): given to the engine
//    that renders the answer;
//  - harmless to ignore here (progress headers, wait_end_of_query...): accepted, no effect;
//  - the rest: the planner's settings (allowlist, ch-scatter's knobs, ch_scatter_top_count); an unknown
//    name is 115.
import { FORWARDED_SETTINGS, KEEP_SETTING } from '../plan/settings.js';
import { PLANNER_KNOBS } from '../plan/nested-settings.js';
import { TOP_COUNT_SETTING } from '../plan/tput/method.js';
import { ChHttpError } from './exception.js';
import { multipartBoundary, parseMultipart } from './multipart.js';
import { clientRevision } from './native-revision.js';

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
  /** For the engine that renders the answer. */
  formatSettings: Record<string, string>;
  /** max_execution_time in ms (0 or absent: the configured deadline). */
  maxExecutionTimeMs?: number;
  skipUnavailableShards: boolean;
  compression: { enabled: boolean; level?: number };
  /** The HTTP layer's own settings: buffer the whole answer, and progress headers at an interval. */
  http: { waitEndOfQuery: boolean; sendProgress: boolean; progressIntervalMs: number };
  /** `compress=1`: the answer in ClickHouse's compressed blocks; `client_protocol_version`: Native's framing. */
  wire: { compressBlocks: boolean; revision: number };
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

/** Settings of the HTTP layer that change nothing in ch-scatter's answer. */
const IGNORED_SETTINGS = new Set([
  'send_progress_in_http_headers',
  'http_headers_progress_interval_ms',
  'http_wait_end_of_query',
  'http_response_buffer_size',
  'cancel_http_readonly_queries_on_client_close',
  'log_queries',
  'log_comment',
  'async_insert',
  'wait_for_async_insert',
  'insert_deduplicate',
  'date_time_input_format',
  'http_write_exception_in_output_format',
  'allow_experimental_analyzer',
  'enable_analyzer',
]);

const isFormatSetting = (n: string) =>
  n.startsWith('output_format_') || n.startsWith('format_') || n.startsWith('input_format_') || n === 'date_time_output_format' || n === 'extremes';

const truthy = (v: string) => !['0', 'false', ''].includes(v.trim().toLowerCase());

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
  const form = boundary ? parseMultipart(input.body, boundary) : undefined;
  // One pass: the URL's parameters the form does not name, then the form's (URLSearchParams.set per
  // field would scan the whole list each time: quadratic in the number of parts).
  const q = form
    ? new URLSearchParams([...[...input.query].filter(([k]) => !form.has(k) || k === 'query'), ...[...form].filter(([k]) => k !== 'query')])
    : new URLSearchParams(input.query);
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
    skipUnavailableShards: false,
    compression: { enabled: false },
    http: { waitEndOfQuery: false, sendProgress: false, progressIntervalMs: 100 },
    wire: { compressBlocks: truthy(q.get('compress') ?? '0'), revision: clientRevision(q.get('client_protocol_version')) },
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
    if (NOT_SETTINGS.has(name) || IGNORED_SETTINGS.has(name)) {
      httpSetting(out.http, name, value);
      continue;
    }
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
    if (isFormatSetting(name)) {
      out.formatSettings[name] = value;
      continue;
    }
    // ch-scatter's own settings that apply on this interface: how an exact top count is answered,
    // and whether the final stage's shard keeps its own rows (its other settings choose the fast
    // path, which this interface never takes).
    if (!FORWARDED_SETTINGS.has(name) && !PLANNER_KNOBS.has(name) && name !== TOP_COUNT_SETTING && name !== KEEP_SETTING)
      throw new ChHttpError(115, `Unknown setting ${name}: ch-scatter takes only the settings it forwards to shards and its own (docs/api.md)`);
    out.settings[name] = value;
  }
  return out;
}
