// The HTTP adapter: a ClickHouse server over HTTP (what the shard Lambdas use). Statements,
// inserts, KILL and ping go through @clickhouse/client; SELECTs are POSTed with node:http
// (http-post.ts says why: the client's fixed wait before every request). Reads with stage tables
// and kept stages are in http-stages.ts, inserts in http-insert.ts.
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
  InsertOptions,
  KeepOptions,
  KeptResult,
  QueryOptions,
  QueryResult,
  RawQueryOptions,
  RawResult,
} from '../../core/clickhouse/port.js';
import { trimStatement } from '../../core/clickhouse/sql-text.js';
import { quoteStringLiteral } from '../../core/sql/quote.js';
import { serverError, toClickHouseError } from './errors.js';
import { insertOverHttp } from './http-insert.js';
import { postQuery, urlSettings, type HttpTarget } from './http-post.js';
import { dropKeptOverHttp, keepRawOverHttp, queryRawOverHttp } from './http-stages.js';
import { queryRawStreamOverHttp } from './http-raw-stream.js';
import { mayHaveReplacedBytes, parseEachRowRows, parseJsonResult, RAW_STRINGS_FORMAT } from './json-result.js';

export interface HttpAccessOptions {
  url: string;
  username?: string;
  password?: string;
  database?: string;
  /** Upper bound for one HTTP request; deadlines are enforced above this (default 300 s). */
  requestTimeoutMs?: number;
  maxOpenConnections?: number;
}

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
  const target: HttpTarget = { base, username: opts.username, password: opts.password, database: opts.database, agent, timeoutMs: requestTimeout };

  return {
    describe,

    async query(sql: string, qo: QueryOptions = {}): Promise<QueryResult> {
      const queryId = qo.queryId ?? randomUUID();
      const read = (format: string) =>
        postQuery(target, {
          sql: `${trimStatement(sql)}\nFORMAT ${format}`,
          queryId,
          settings: urlSettings(qo.settings),
          external: qo.external ?? [],
          signal: qo.signal,
        });
      const res = await read('JSON');
      const parsed = parseBody(res.body);
      if (!mayHaveReplacedBytes(res.body)) return parsed;
      // FORMAT JSON rewrites bytes that are not UTF-8: the rows again, raw (json-result.ts).
      const again = await read(RAW_STRINGS_FORMAT);
      return { ...parsed, rows: parseEachRowRows(again.body, parsed.meta) };
    },

    queryRaw: (sql: string, qo: RawQueryOptions): Promise<RawResult> => queryRawOverHttp(target, sql, qo),

    queryRawStream: (sql, qo) => queryRawStreamOverHttp(target, sql, qo),

    keepRaw: (sql: string, qo: KeepOptions): Promise<KeptResult> => keepRawOverHttp(target, sql, qo),

    dropKept: (session: string, table: string): Promise<void> => dropKeptOverHttp(target, session, table),

    async exec(sql: string, qo: Omit<QueryOptions, 'external'> = {}): Promise<void> {
      try {
        await client.command({
          query: trimStatement(sql),
          query_id: qo.queryId,
          clickhouse_settings: urlSettings(qo.settings, false) as never,
          abort_signal: qo.signal,
        });
      } catch (e) {
        throw toClickHouseError(e, qo.signal);
      }
    },

    insert: (table: string, rows: Record<string, unknown>[], qo: InsertOptions = {}): Promise<void> => insertOverHttp(target, client, table, rows, qo),

    async cancel(queryId: string, co?: { prefix?: boolean }): Promise<void> {
      // A separate request: aborting the original HTTP request leaves the query running. A prefix
      // is compared as bytes (substring, not LIKE: an id may hold _ or %; 18.16 has no startsWith).
      const id = quoteStringLiteral(queryId);
      const where = co?.prefix ? `substring(query_id, 1, ${Buffer.byteLength(queryId)}) = ${id}` : `query_id = ${id}`;
      try {
        await client.command({ query: `KILL QUERY WHERE ${where} ASYNC` });
      } catch (e) {
        throw toClickHouseError(e);
      }
    },
    async readProgress(prefix: string, signal?: AbortSignal) {
      // Compared as bytes, as cancel compares (no startsWith on 18.16); a finished query has left the list.
      const res = await postQuery(target, {
        sql: `SELECT sum(read_rows) AS r, sum(read_bytes) AS b FROM system.processes WHERE substring(query_id, 1, ${Buffer.byteLength(prefix)}) = ${quoteStringLiteral(prefix)} FORMAT TSV`,
        queryId: randomUUID(),
        settings: {},
        external: [],
        signal,
      });
      const [rows, bytes] = res.body.toString('utf8').trim().split('\t').map(Number);
      return { rowsRead: Number.isFinite(rows) ? rows! : 0, bytesRead: Number.isFinite(bytes) ? bytes! : 0 };
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
