// One statement POSTed to ClickHouse over node:http: the URL (query id, database, settings, external
// tables' structure), the body (the SQL, data after a statement in the URL, or multipart/form-data
// with external tables) and the request, sent again on a fresh socket where a kept-alive one was closed by the server.
// Reads do not go through @clickhouse/client: its request path (1.23, socket_pool.js) awaits
// `sleep(0)` - a setTimeout, so at least 1 ms - before every request (clickhouse-js#294, to let idle
// socket timers run), which is a large share of a small shard query
// (docs/benchmarks.md#the-machine-and-the-run). exec/insert/KILL stay on the client.
import http from 'node:http';
import https from 'node:https';
import { randomUUID } from 'node:crypto';
import { ClickHouseError, type ExternalTable, type SettingValue } from '../../core/clickhouse/port.js';
import { externalIsEmpty, externalJsonEachRow, structureOf } from '../../core/clickhouse/sql-text.js';
import { stringBytes } from '../../core/surrogate-escape.js';
import { abortedError, serverDiedError, serverError, toClickHouseError } from './errors.js';
import { STALE_SOCKET_RETRIES, failedOnStaleSocket } from '../http/stale-socket.js';

/** The server one access talks to, and how. */
export interface HttpTarget {
  base: URL;
  username?: string;
  password?: string;
  database?: string;
  agent: http.Agent;
  /** Upper bound for one HTTP request. */
  timeoutMs: number;
}

export interface PostRequest {
  sql: string;
  queryId: string;
  settings: Record<string, string>;
  /** Shipped GLOBAL sets and scalars, sent as form parts beside the SQL. */
  external?: readonly ExternalTable[];
  signal?: AbortSignal;
  /** Data after the statement: the statement goes in the URL then (INSERT ... FORMAT x with binary rows). */
  data?: Buffer;
}

export interface PostAnswer {
  body: Buffer;
  /** X-ClickHouse-Summary, when the server sends it. */
  summary?: string;
}

const ALWAYS: Record<string, SettingValue> = { output_format_json_quote_64bit_integers: 1 };

/** Settings as URL parameters; `always` adds what every JSON read needs (64-bit integers quoted). */
export function urlSettings(s: Record<string, SettingValue> | undefined, always = true): Record<string, string> {
  const all = { ...(s ?? {}), ...(always ? ALWAYS : {}) };
  return Object.fromEntries(Object.entries(all).map(([k, v]) => [k, typeof v === 'boolean' ? (v ? '1' : '0') : String(v)]));
}

export function postQuery(target: HttpTarget, req: PostRequest): Promise<PostAnswer> {
  return post(target, req, (res, resolve, reject, failed) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('error', (e) => reject(failed(e, true)));
    res.on('end', () => {
      const buf = Buffer.concat(chunks);
      if ((res.statusCode ?? 500) >= 400) reject(serverError(buf.toString('utf8')));
      else {
        const summary = res.headers['x-clickhouse-summary'];
        resolve({ body: buf, ...(typeof summary === 'string' ? { summary } : {}) });
      }
    });
  });
}

/** An answer read as it arrives: the body's chunks (they reject as the connection fails). */
export interface PostStream {
  chunks: AsyncIterable<Buffer>;
  summary?: string;
}

/**
 * The same request, its answer resolved at the response's headers: an error status is still a
 * ClickHouseError here; the body then streams (abort on the signal destroys it).
 */
export function postQueryStream(target: HttpTarget, req: PostRequest): Promise<PostStream> {
  return post(target, req, (res, resolve, reject, failed) => {
    if ((res.statusCode ?? 500) >= 400) {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('error', (e) => reject(failed(e, true)));
      res.on('end', () => reject(serverError(Buffer.concat(parts).toString('utf8'))));
      return;
    }
    const summary = res.headers['x-clickhouse-summary'];
    const chunks = (async function* () {
      try {
        for await (const c of res) yield c as Buffer;
      } catch (e) {
        throw failed(e, true);
      }
      // A body cut without its last chunk: the server went away mid-answer.
      if (!res.complete) throw failed(new Error('the answer was cut before its end'), true);
    })();
    resolve({ chunks, ...(typeof summary === 'string' ? { summary } : {}) });
  });
}

type OnResponse<T> = (
  res: http.IncomingMessage,
  resolve: (v: T) => void,
  reject: (e: unknown) => void,
  failed: (e: unknown, held: boolean) => ClickHouseError,
) => void;

function post<T>(target: HttpTarget, req: PostRequest, onResponse: OnResponse<T>): Promise<T> {
  const { body, headers } = requestBody(target, req);
  const url = requestUrl(target, req);
  const mod = url.protocol === 'https:' ? https : http;
  const signal = req.signal;
  /**
   * A connection failure after the server took the request (a fresh socket that connected, a reused
   * one, or a retry after the server closed on us) means the server held the query when it went:
   * 'died', which no caller re-sends elsewhere. Refused before connecting stays 'connection'.
   */
  const failed = (e: unknown, held: boolean): ClickHouseError => {
    const err = toClickHouseError(e, signal);
    return held && !signal?.aborted && (err.kind === 'connection' || err.kind === 'aborted') ? serverDiedError(err.message) : err;
  };
  const attempt = (retriesLeft: number, closedOnUs: boolean): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      if (signal?.aborted) return reject(abortedError());
      let connected = closedOnUs;
      const r = mod.request(url, { method: 'POST', headers, agent: target.agent, timeout: target.timeoutMs, signal }, (res) =>
        onResponse(res, resolve, reject, failed),
      );
      r.on('socket', (s) => {
        if (r.reusedSocket) connected = true;
        else s.once('connect', () => (connected = true));
      });
      r.on('timeout', () => r.destroy(new ClickHouseError('ClickHouse request timed out', 'timeout')));
      r.on('error', (e: NodeJS.ErrnoException) => {
        // A kept-alive socket the server closed (18.16: keep_alive_timeout 3 s): sent again.
        if (failedOnStaleSocket(r, e) && retriesLeft > 0 && !signal?.aborted) {
          attempt(retriesLeft - 1, true).then(resolve, reject);
          return;
        }
        reject(failed(e, connected));
      });
      r.end(body);
    });
  return attempt(STALE_SOCKET_RETRIES, false);
}

function requestUrl(target: HttpTarget, req: PostRequest): URL {
  const url = new URL(target.base.href);
  if (req.data) url.searchParams.set('query', req.sql);
  url.searchParams.set('query_id', req.queryId);
  if (target.database) url.searchParams.set('database', target.database);
  for (const [k, v] of Object.entries(req.settings)) url.searchParams.set(k, v);
  for (const t of req.external ?? []) {
    url.searchParams.set(`${t.name}_structure`, structureOf(t));
    url.searchParams.set(`${t.name}_format`, t.data?.format ?? 'JSONEachRow');
  }
  return url;
}

function requestBody(target: HttpTarget, req: PostRequest): { body: Buffer; headers: http.OutgoingHttpHeaders } {
  const authorization = `Basic ${Buffer.from(`${target.username ?? 'default'}:${target.password ?? ''}`).toString('base64')}`;
  const external = req.external ?? [];
  const sized = (body: Buffer, contentType: string) => ({ body, headers: { 'content-type': contentType, 'content-length': body.length, authorization } });
  if (req.data) return sized(req.data, 'application/octet-stream');
  if (external.length === 0) return sized(Buffer.from(req.sql), 'text/plain; charset=utf-8');
  const boundary = `----chscatter${randomUUID().replace(/-/g, '')}`;
  const parts: Buffer[] = [];
  const field = (name: string, value: string | Buffer, filename?: string) => {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${filename ? `; filename="${filename}"` : ''}\r\n` +
          `Content-Type: ${filename ? 'application/octet-stream' : 'text/plain; charset=utf-8'}\r\n\r\n`,
      ),
      Buffer.from(value),
      Buffer.from('\r\n'),
    );
  };
  field('query', req.sql);
  for (const t of external) {
    // A client's external data goes as it came (any format, binary included); shipped sets as JSONEachRow lines.
    if (t.data) field(t.name, Buffer.from(t.data.base64, 'base64'), t.name);
    // Strings that are not UTF-8 are written as their bytes (surrogate escapes), as the engine reads them.
    else field(t.name, Buffer.from(stringBytes(externalIsEmpty(t) ? '' : externalJsonEachRow(t) + '\n')), `${t.name}.jsonl`);
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return sized(Buffer.concat(parts), `multipart/form-data; boundary=${boundary}`);
}
