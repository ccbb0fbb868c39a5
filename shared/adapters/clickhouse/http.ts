// The HTTP adapter: a ClickHouse server over HTTP (what the shard Lambdas use). Statements,
// inserts, KILL and ping go through @clickhouse/client; SELECTs are POSTed with node:http (postQuery
// below says why: the client's fixed wait before every request).
//
// Facts about Debian's clickhouse-server 18.16 it is built around (test/server checks them):
// - Errors arrive as plain Errors whose text is `Code: 60, e.displayText() = ...`; newer
//   servers say `Code: 60. DB::Exception: ...`. Both are parsed into ClickHouseError.
// - An error after the first block arrives INSIDE a 200 body (the JSON is cut and the
//   exception text appended), so bodies are read as text and checked before parsing.
// - Aborting the HTTP request does not stop the server query; `cancel(queryId)` sends
//   `KILL QUERY WHERE query_id = '...'` on a separate request.
// - External tables (shipped GLOBAL IN / JOIN data) go as multipart/form-data, which the
//   client does not do. The SQL travels as a form field
//   (`query`), since a long SQL in the URL gets a 400; `<name>_structure` / `<name>_format`
//   go in the URL so the server knows them before it reads the file part.
import http from 'node:http';
import https from 'node:https';
import { randomUUID } from 'node:crypto';
import { createClient, ClickHouseLogLevel, type ClickHouseClient } from '@clickhouse/client';
import { ClickHouseError } from '../../core/clickhouse/port.js';
import type {
  ClickHouseAccess,
  ExternalTable,
  InsertOptions,
  KeepOptions,
  KeptResult,
  QueryOptions,
  QueryResult,
  RawQueryOptions,
  RawResult,
  SettingValue,
} from '../../core/clickhouse/port.js';
import { abortedError, connectionError, parseClickHouseCode, serverDiedError, serverError } from './errors.js';
import { mayHaveReplacedBytes, parseEachRowRows, parseJsonResult, RAW_STRINGS_FORMAT } from './json-result.js';
import {
  checkedFormat,
  externalIsEmpty,
  externalJsonEachRow,
  lowCardinalityOf,
  STAGE_TABLE_NAME,
  structureOf,
  temporaryTableDdl,
  trimStatement,
} from '../../core/clickhouse/sql-text.js';
import { quoteStringLiteral } from '../../core/sql/quote.js';
import { CHECK_TABLE, checkCopyDdl, insertBody, insertHead } from '../../core/clickhouse/insert-text.js';

export interface HttpAccessOptions {
  url: string;
  username?: string;
  password?: string;
  database?: string;
  /** Upper bound for one HTTP request; deadlines are enforced above this (default 300 s). */
  requestTimeoutMs?: number;
  maxOpenConnections?: number;
}

const ALWAYS: Record<string, SettingValue> = { output_format_json_quote_64bit_integers: 1 };

export function createHttpAccess(opts: HttpAccessOptions): ClickHouseAccess {
  const base = new URL(opts.url);
  const describe = `${base.protocol}//${base.host}${opts.database ? `/${opts.database}` : ''}`;
  const requestTimeout = opts.requestTimeoutMs ?? 300_000;
  const maxSockets = opts.maxOpenConnections ?? 32;
  const client: ClickHouseClient = createClient({
    url: opts.url,
    username: opts.username ?? 'default',
    password: opts.password ?? '',
    database: opts.database,
    request_timeout: requestTimeout,
    max_open_connections: maxSockets,
    keep_alive: { enabled: true },
    compression: { request: false, response: false },
    log: { level: ClickHouseLogLevel.OFF },
  });
  const agent = base.protocol === 'https:' ? new https.Agent({ keepAlive: true, maxSockets }) : new http.Agent({ keepAlive: true, maxSockets });

  const settingsOf = (s: Record<string, SettingValue> | undefined, always = true) => stringifySettings({ ...(s ?? {}), ...(always ? ALWAYS : {}) });

  return {
    describe,

    async query(sql: string, qo: QueryOptions = {}): Promise<QueryResult> {
      const queryId = qo.queryId ?? randomUUID();
      const res = await postQuery(
        base,
        opts,
        agent,
        requestTimeout,
        trimStatement(sql) + '\nFORMAT JSON',
        queryId,
        settingsOf(qo.settings),
        qo.external ?? [],
        qo.signal,
      );
      const parsed = parseBody(res.body);
      if (!mayHaveReplacedBytes(res.body)) return parsed;
      // FORMAT JSON rewrites bytes that are not UTF-8: the rows again, raw (json-result.ts).
      const again = await postQuery(
        base,
        opts,
        agent,
        requestTimeout,
        `${trimStatement(sql)}\nFORMAT ${RAW_STRINGS_FORMAT}`,
        queryId,
        settingsOf(qo.settings),
        qo.external ?? [],
        qo.signal,
      );
      return { ...parsed, rows: parseEachRowRows(again.body, parsed.meta) };
    },

    async queryRaw(sql: string, qo: RawQueryOptions): Promise<RawResult> {
      const started = Date.now();
      const queryId = qo.queryId ?? randomUUID();
      const format = checkedFormat(qo.format);
      // wait_end_of_query: the server buffers the answer, so an error found after the first
      // block comes back as an error status, not appended to bytes that cannot be checked for it.
      const settings: Record<string, string> = { ...settingsOf(qo.settings, false), wait_end_of_query: '1' };
      const tables = qo.tables ?? [];
      // Stage tables live in a private session: temporary tables are per session, and the session
      // (and its tables) ends with the last request below or the server's session timeout. A kept
      // stage's session is the one keepRaw made; session_check makes a lost one an error (372)
      // rather than a new, empty session.
      const session: Record<string, string> | undefined = qo.session
        ? { session_id: qo.session, session_check: '1' }
        : tables.length > 0
          ? { session_id: `chs-${randomUUID()}`, session_timeout: '60' }
          : undefined;
      const post = (text: string, data: Buffer | undefined, id: string, extra: Record<string, string>, external: ExternalTable[] = []) =>
        postQuery(base, opts, agent, requestTimeout, text, id, { ...extra, ...(session ?? {}) }, external, qo.signal, data);
      try {
        const ro = readonlyOf(settings);
        for (const t of tables) {
          if (!t.kept) await post(temporaryTableDdl(t), undefined, `${queryId}-t-${t.name}`, { ...ro, ...lowCardinalityOf(t.columns) });
          if (t.data.length > 0) await post(`INSERT INTO ${t.name} FORMAT ${t.format ?? 'TabSeparated'}`, t.data, `${queryId}-i-${t.name}`, ro);
        }
        // Shipped GLOBAL sets and scalars travel with the SELECT that reads them.
        const res = await post(`${trimStatement(sql)}\nFORMAT ${format}`, undefined, queryId, settings, qo.external ?? []);
        return { bytes: res.body, statistics: summaryStatistics(res.summary, Date.now() - started) };
      } finally {
        // Not awaited: the answer does not wait for the cleanup (one round trip less per final
        // stage). The session is private, so nothing can read the tables meanwhile, and a DROP that
        // never arrives (a frozen Lambda) leaves them to the session's timeout.
        // One statement per table, one after another: a session serves one request at a time.
        if (session) {
          const dropAll = async () => {
            for (const t of tables) await post(`DROP TEMPORARY TABLE IF EXISTS ${t.name}`, undefined, `${queryId}-d-${t.name}`, {});
          };
          void dropAll().catch(() => undefined);
        }
      }
    },

    async keepRaw(sql: string, qo: KeepOptions): Promise<KeptResult> {
      const started = Date.now();
      const queryId = qo.queryId ?? randomUUID();
      if (!STAGE_TABLE_NAME.test(qo.table)) throw new TypeError(`invalid kept table name ${JSON.stringify(qo.table)}`);
      const session = { session_id: `chs-${randomUUID()}`, session_timeout: String(Math.max(1, Math.ceil(qo.sessionTimeoutS))) };
      const settings = settingsOf(qo.settings, false);
      const post = (text: string, id: string, extra: Record<string, string>, external: ExternalTable[] = []) =>
        postQuery(base, opts, agent, requestTimeout, text, id, { ...extra, ...session }, external, qo.signal);
      // CREATE ... AS SELECT runs the query once and keeps its rows where they were computed. The
      // types are the engine's own; 18.16 creates a LowCardinality column only with the setting.
      const created = await post(
        `CREATE TEMPORARY TABLE ${qo.table} ENGINE = Memory AS ${trimStatement(sql)}`,
        queryId,
        { ...settings, allow_experimental_low_cardinality_type: '1' },
        qo.external ?? [],
      );
      const ro = readonlyOf(settings);
      const header = await post(`SELECT * FROM ${qo.table} LIMIT 0 FORMAT TabSeparatedWithNamesAndTypes`, `${queryId}-h`, ro);
      const count = await post(`SELECT count() FROM ${qo.table} FORMAT TabSeparated`, `${queryId}-n`, ro);
      const rows = Number(count.body.toString('utf8').trim());
      if (!Number.isSafeInteger(rows))
        throw new ClickHouseError(`kept stage: unreadable row count ${JSON.stringify(count.body.toString('utf8').slice(0, 40))}`, 'server');
      return { session: session.session_id, header: header.body, rows, statistics: summaryStatistics(created.summary, Date.now() - started) };
    },

    async exec(sql: string, qo: Omit<QueryOptions, 'external'> = {}): Promise<void> {
      try {
        await client.command({
          query: trimStatement(sql),
          query_id: qo.queryId,
          clickhouse_settings: settingsOf(qo.settings, false) as never,
          abort_signal: qo.signal,
        });
      } catch (e) {
        throw toClickHouseError(e, qo.signal);
      }
    },

    async insert(table: string, rows: Record<string, unknown>[], qo: InsertOptions = {}): Promise<void> {
      if (qo.data !== undefined) {
        if (qo.data.rows.length === 0) return;
        const data = qo.data;
        const id = qo.queryId ?? randomUUID();
        const post = (sql: string, body: Buffer | undefined, suffix: string, extra: Record<string, string>) =>
          postQuery(base, opts, agent, requestTimeout, sql, `${id}${suffix}`, extra, [], qo.signal, body);
        if (!qo.checkOnly) {
          await post(insertHead(table, data), insertBody(data), '', settingsOf(qo.settings, false));
          return;
        }
        // The copy lives in a private session, so nothing else sees it; a DROP that never arrives
        // leaves it to the session's timeout.
        const session = { session_id: `chs-${randomUUID()}`, session_timeout: '60' };
        await post(checkCopyDdl(CHECK_TABLE, table), undefined, '-c', session);
        try {
          await post(insertHead(CHECK_TABLE, data), insertBody(data), '', { ...settingsOf(qo.settings, false), ...session });
        } finally {
          await post(`DROP TEMPORARY TABLE IF EXISTS ${CHECK_TABLE}`, undefined, '-d', session).catch(() => undefined);
        }
        return;
      }
      if (qo.jsonEachRow !== undefined) {
        // The client's own lines, byte for byte: the statement and the data in one POST body (the
        // client library would re-encode them from objects).
        if (qo.jsonEachRow.trim() === '') return;
        const text = qo.jsonEachRow.endsWith('\n') ? qo.jsonEachRow : `${qo.jsonEachRow}\n`;
        await postQuery(
          base,
          opts,
          agent,
          requestTimeout,
          `INSERT INTO ${table} FORMAT JSONEachRow\n${text}`,
          qo.queryId ?? randomUUID(),
          settingsOf(qo.settings, false),
          [],
          qo.signal,
        );
        return;
      }
      if (rows.length === 0) return;
      try {
        await client.insert({
          table,
          // BigInt is not JSON: the client would throw; ClickHouse reads 64-bit values from strings.
          values: rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'bigint' ? v.toString() : v]))),
          format: 'JSONEachRow',
          query_id: qo.queryId,
          clickhouse_settings: settingsOf(qo.settings, false) as never,
          abort_signal: qo.signal,
        });
      } catch (e) {
        throw toClickHouseError(e, qo.signal);
      }
    },

    async cancel(queryId: string): Promise<void> {
      // A separate request: aborting the original HTTP request leaves the query running.
      try {
        await client.command({ query: `KILL QUERY WHERE query_id = ${quoteStringLiteral(queryId)} ASYNC` });
      } catch (e) {
        throw toClickHouseError(e);
      }
    },

    async ping(): Promise<boolean> {
      const r = await client.ping();
      return r.success;
    },

    async close(): Promise<void> {
      await client.close();
      agent.destroy();
    },
  };
}

function stringifySettings(s: Record<string, SettingValue>): Record<string, string> {
  return Object.fromEntries(Object.entries(s).map(([k, v]) => [k, typeof v === 'boolean' ? (v ? '1' : '0') : String(v)]));
}

/** Read statistics from X-ClickHouse-Summary when the server sends it (18.16 does not: zeros then). */
function summaryStatistics(summary: string | undefined, elapsedMs: number): { elapsedMs: number; rowsRead: number; bytesRead: number } {
  let rowsRead = 0;
  let bytesRead = 0;
  if (summary) {
    try {
      const s = JSON.parse(summary) as { read_rows?: string; read_bytes?: string };
      rowsRead = Number(s.read_rows ?? 0) || 0;
      bytesRead = Number(s.read_bytes ?? 0) || 0;
    } catch {
      // A summary we cannot read leaves the counters at zero; the answer itself is unaffected.
    }
  }
  return { elapsedMs, rowsRead, bytesRead };
}

/** A FORMAT JSON body (its bytes: a String value need not be UTF-8), or the server exception that cut it short. */
function parseBody(body: Buffer): QueryResult {
  try {
    return parseJsonResult(body);
  } catch {
    const text = body.toString('utf8');
    const at = text.search(/Code: \d+[.,] /);
    if (at >= 0) throw serverError(text.slice(at));
    throw new ClickHouseError(`unparseable response from ClickHouse: ${text.slice(0, 200)}`, 'server');
  }
}

function toClickHouseError(e: unknown, signal?: AbortSignal): ClickHouseError {
  if (e instanceof ClickHouseError) return e;
  const err = e as { message?: string; code?: string | number; name?: string; cause?: { code?: string } };
  const message = String(err?.message ?? e);
  if (signal?.aborted || err?.name === 'AbortError' || (/aborted/i.test(message) && !/Code: \d+/.test(message))) return abortedError(message);
  const sysCode = typeof err?.code === 'string' ? err.code : err?.cause?.code;
  if (sysCode && /^(ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENOTFOUND|ETIMEDOUT|EPIPE|EAI_AGAIN|UND_ERR_SOCKET)$/.test(sysCode)) {
    return connectionError(`cannot reach ClickHouse: ${message}`);
  }
  if (/timeout/i.test(message) && parseClickHouseCode(message) === undefined) return new ClickHouseError(message, 'timeout');
  const chCode = parseClickHouseCode(message) ?? (typeof err?.code === 'string' && /^\d+$/.test(err.code) ? Number(err.code) : undefined);
  if (chCode === undefined && /socket hang up|ECONNREFUSED|connect/i.test(message)) return connectionError(message);
  return serverError(message, chCode);
}

/**
 * Only readonly (=2 from the shard) travels with a stage table's DDL, INSERT and reads: under it a
 * temporary table is the one thing that may be created and written.
 */
function readonlyOf(settings: Record<string, string>): Record<string, string> {
  return settings.readonly !== undefined ? { readonly: settings.readonly } : {};
}

/**
 * One SELECT over node:http: the SQL as the body, or, with external tables, multipart/form-data. Reads
 * do not go through @clickhouse/client: its request path (1.23, socket_pool.js) awaits `sleep(0)` - a
 * setTimeout, so at least 1 ms - before every request (clickhouse-js#294, to let idle socket timers
 * run), which is a large share of a small shard query (docs/benchmarks.md#the-machine-and-the-run).
 * exec/insert/KILL stay on the client.
 */
function postQuery(
  base: URL,
  opts: HttpAccessOptions,
  agent: http.Agent,
  timeoutMs: number,
  sql: string,
  queryId: string,
  settings: Record<string, string>,
  external: ExternalTable[],
  signal: AbortSignal | undefined,
  /** Data after the statement: the statement goes in the URL then (INSERT ... FORMAT x with binary rows). */
  data?: Buffer,
): Promise<{ body: Buffer; summary?: string }> {
  const url = new URL(base.href);
  if (data) url.searchParams.set('query', sql);
  url.searchParams.set('query_id', queryId);
  if (opts.database) url.searchParams.set('database', opts.database);
  for (const [k, v] of Object.entries(settings)) url.searchParams.set(k, v);
  for (const t of external) {
    url.searchParams.set(`${t.name}_structure`, structureOf(t));
    url.searchParams.set(`${t.name}_format`, 'JSONEachRow');
  }
  const auth = `Basic ${Buffer.from(`${opts.username ?? 'default'}:${opts.password ?? ''}`).toString('base64')}`;
  let body: Buffer;
  let headers: http.OutgoingHttpHeaders;
  if (data) {
    body = data;
    headers = { 'content-type': 'application/octet-stream', 'content-length': body.length, authorization: auth };
  } else if (external.length === 0) {
    body = Buffer.from(sql);
    headers = { 'content-type': 'text/plain; charset=utf-8', 'content-length': body.length, authorization: auth };
  } else {
    const boundary = `----chscatter${randomUUID().replace(/-/g, '')}`;
    const parts: Buffer[] = [];
    const field = (name: string, text: string, filename?: string) => {
      parts.push(
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${filename ? `; filename="${filename}"` : ''}\r\n` +
            `Content-Type: ${filename ? 'application/octet-stream' : 'text/plain; charset=utf-8'}\r\n\r\n`,
        ),
        Buffer.from(text),
        Buffer.from('\r\n'),
      );
    };
    field('query', sql);
    for (const t of external) field(t.name, externalIsEmpty(t) ? '' : externalJsonEachRow(t) + '\n', `${t.name}.jsonl`);
    parts.push(Buffer.from(`--${boundary}--\r\n`));
    body = Buffer.concat(parts);
    headers = { 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': body.length, authorization: auth };
  }
  const mod = url.protocol === 'https:' ? https : http;
  /**
   * A connection failure after the server took the request (a fresh socket that connected, a reused
   * one, or a retry after the server closed on us) means the server held the query when it went:
   * 'died', which no caller re-sends elsewhere. Refused before connecting stays 'connection'.
   */
  const failed = (e: unknown, held: boolean): ClickHouseError => {
    const err = toClickHouseError(e, signal);
    return held && !signal?.aborted && (err.kind === 'connection' || err.kind === 'aborted') ? serverDiedError(err.message) : err;
  };
  const attempt = (retriesLeft: number, closedOnUs: boolean): Promise<{ body: Buffer; summary?: string }> =>
    new Promise<{ body: Buffer; summary?: string }>((resolve, reject) => {
      if (signal?.aborted) return reject(abortedError());
      let connected = closedOnUs;
      const req = mod.request(url, { method: 'POST', headers, agent, timeout: timeoutMs, signal }, (res) => {
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
      req.on('socket', (s) => {
        if (req.reusedSocket) connected = true;
        else s.once('connect', () => (connected = true));
      });
      req.on('timeout', () => req.destroy(new ClickHouseError('ClickHouse request timed out', 'timeout')));
      req.on('error', (e: NodeJS.ErrnoException) => {
        // A kept-alive socket the server closed (18.16: keep_alive_timeout 3 s) fails on reuse
        // before anything was sent: retry once on a fresh socket (Node's documented pattern).
        if (req.reusedSocket && e.code === 'ECONNRESET' && retriesLeft > 0 && !signal?.aborted) {
          attempt(retriesLeft - 1, true).then(resolve, reject);
          return;
        }
        reject(failed(e, connected));
      });
      req.end(body);
    });
  return attempt(1, false);
}
