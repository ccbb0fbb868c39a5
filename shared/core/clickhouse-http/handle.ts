// ClickHouse's HTTP interface over ch-scatter: one request in (method, path, URL parameters,
// headers, body), one answer out (status, headers, bytes). Nothing here knows about Lambda or API
// Gateway; the coordinator handler adapts events to this and back, in AWS and in the local stack.
//   GET /ping                      -> "Ok.\n"
//   GET /?query=..., POST / (body), POST /?query=... (+ body) -> the statement's answer:
//     SELECT over distributed tables  -> the general path, rendered by a ClickHouse engine;
//     catalog and handshake reads     -> one shard's engine (catalog.ts), as are reads of
//                                        the request's external data alone (external-data.ts);
//     INSERT INTO t FORMAT ...        -> the router (tables with "insert": true only);
//     anything else that writes       -> 164 READONLY.
// Every answer carries X-ClickHouse-Query-Id, X-ClickHouse-Format, X-ClickHouse-Timezone and
// X-ClickHouse-Summary; errors are ClickHouse's (exception.ts).
import { randomUUID } from 'node:crypto';
import type { Topology } from '../config/schema.js';
import { qualifyTable } from '../config/schema.js';
import type { SelectStatement, TableExpr } from '../sql/ast.js';
import { parseSelect } from '../sql/parse.js';
import { seedRandomTables } from '../plan/random-seeds.js';
import { settleSetOperators } from '../plan/set-op-modes.js';
import { printSelect } from '../sql/print.js';
import { quoteStringLiteral } from '../sql/quote.js';
import { mapFromTables } from '../sql/visit.js';
import { bindParams, fromEscapedParams } from '../plan/bind-params.js';
import { checkEngineOptions } from '../plan/file-access.js';
import { applyResultLimit } from '../plan/result-limit.js';
import { ChHttpError, exceptionBody, toChException } from './exception.js';
import { answerCodec, compress, decompressBody, needsWireCodecs } from './compression.js';
import { compressBlocks, decompressBlocks, type WireCodecs } from './block-compression.js';
import { nativeForRevision } from './native-revision.js';
import { allowedOrigin, corsHeaders, preflightHeaders } from './cors.js';
import { parseChRequest, type ChRequest, type HttpInput } from './request.js';
import { classify, type Statement } from './statement.js';
import { CATALOG_LIMITS, catalogSql, checkCatalogSettings, findTable, isCatalogSelect, unknownTable, withContextValues } from './catalog.js';
import { computeDeadline } from '../scatter/deadline.js';
import { credentialsOf, type Credentials } from './auth.js';
import { insertFormatOf, splitInsertData } from './insert-data.js';
import { nativeInsert } from './insert-native.js';
import { headerSafeFormat, insertData } from './insert-request.js';
import { keyTypeInfo } from '../sharding/index.js';
import type { DistributedSelect, InsertAnswer, InsertRows, MissingShardInfo, RawQuery } from './types.js';
import type { TableCoverage } from '../scatter/query-types.js';
import { ScatterError } from '../errors.js';
import type { TableSizes } from './table-sizes.js';
import type { RunningQueries } from './running-queries.js';
import { asSent, parseOnEngine } from './external-data.js';
import { markExternal } from '../plan/external-tables.js';
import type { ExternalTable } from '../clickhouse/port.js';

export type { HttpInput } from './request.js';

export interface ChHttpDeps {
  topo: Topology;
  /** One shard's engine (any replica), for catalog answers and the server's version and time zone. */
  raw: RawQuery;
  /** The general path; absent: SELECTs over distributed tables are 48 NOT_IMPLEMENTED. */
  select?: DistributedSelect;
  insert?: InsertRows;
  /** The configured tables' sizes summed over every shard (system.tables' total_rows / total_bytes); absent: unknown (NULL). */
  tableSizes?: (queryId: string, deadlineAt: number) => Promise<TableSizes | undefined>;
  /** The queries running in this coordinator (KILL QUERY); absent: KILL QUERY finds none. */
  running?: RunningQueries;
  /** Checks credentials against a users list (the local stack's users file): the user's name, or throws 516. */
  userCheck?: (c: Credentials) => Promise<string>;
  /** The user an authorizer in front already checked (API Gateway). */
  authorizedUser?: string;
  /** The request's id when the caller sent none (API Gateway's request id). */
  requestId?: string;
  /** Largest request body after decompression. */
  maxBodyBytes?: number;
  /** LZ4 and ZSTD, for `compress=1`, `decompress=1` and those HTTP encodings; absent: they are refused. */
  loadCodecs?: () => Promise<WireCodecs>;
  now?: () => number;
  /** When the request arrived (the clock of `now`), if before this call: deadlines count from here. */
  arrivedAt?: number;
}

export interface HttpOutput {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** ClickHouse's Content-Type for an output format. */
export function contentTypeOf(format: string): string {
  const f = format.toLowerCase();
  if (f.startsWith('json') && f.includes('eachrow')) return 'application/x-ndjson; charset=UTF-8';
  if (f.startsWith('json')) return 'application/json; charset=UTF-8';
  if (f.startsWith('tabseparated') || f.startsWith('tsv')) return 'text/tab-separated-values; charset=UTF-8';
  if (f.startsWith('csv')) return `text/csv; charset=UTF-8; header=${f === 'csv' ? 'absent' : 'present'}`;
  if (['native', 'rowbinary', 'rowbinarywithnames', 'rowbinarywithnamesandtypes', 'parquet', 'arrow', 'arrowstream', 'orc', 'avro'].includes(f))
    return 'application/octet-stream';
  return 'text/plain; charset=UTF-8';
}

export interface ServerInfo {
  version: string;
  timezone: string;
}
const infoCache = new WeakMap<RawQuery, Promise<ServerInfo>>();
/** The shards' version and time zone (asked once per engine handle; a failure is asked again next time). */
export function serverInfo(raw: RawQuery): Promise<ServerInfo> {
  let p = infoCache.get(raw);
  if (!p) {
    p = raw('SELECT version() AS version, timezone() AS timezone', { format: 'JSONEachRow' }).then((r) => JSON.parse(r.bytes.toString('utf8')) as ServerInfo);
    p.catch(() => infoCache.delete(raw));
    infoCache.set(raw, p);
  }
  return p;
}

/** Header-safe text: printable ASCII only. */
export const headerText = (s: string) => s.replace(/[^\x20-\x7e]/g, '?');

export function summary(
  o: { readRows: number; readBytes: number; writtenRows?: number; resultRows?: number; resultBytes: number; elapsedNs: number },
  extra = {},
) {
  return JSON.stringify({
    read_rows: String(o.readRows),
    read_bytes: String(o.readBytes),
    written_rows: String(o.writtenRows ?? 0),
    written_bytes: '0',
    total_rows_to_read: '0',
    // Rows are not counted in the engine's bytes: result_rows is there only when known, never a guess.
    ...(o.resultRows !== undefined ? { result_rows: String(o.resultRows) } : {}),
    result_bytes: String(o.resultBytes),
    elapsed_ns: String(o.elapsedNs),
    ...extra,
  });
}

/** Unqualified FROM/JOIN tables read from the request's database (WITH names excepted). */
export function qualify(stmt: SelectStatement, database: string): SelectStatement {
  const withNames = new Set<string>();
  const fix = (t: TableExpr): TableExpr =>
    t.kind === 'table' && t.database === undefined && !withNames.has(t.table) && !t.external
      ? { ...t, database }
      : t.kind === 'subqueryTable'
        ? { ...t, query: qualify(t.query, database) }
        : t;
  const one = (q: SelectStatement & { kind: 'select' }) => {
    for (const w of q.with ?? []) withNames.add(w.name);
    return mapFromTables(q, fix);
  };
  return stmt.kind === 'union' ? { ...stmt, selects: stmt.selects.map(one) } : one(stmt);
}

const OK = (contentType: string): HttpOutput => ({ status: 200, headers: { 'content-type': contentType }, body: Buffer.from('Ok.\n') });

/**
 * ClickHouse's fixed answers: /ping, `GET /` or `HEAD /` without a query (its http_server_default_response)
 * and /replicas_status (a healthy server's: ch-scatter holds no replicated tables of its own).
 */
function staticAnswer(path: string, input: HttpInput): HttpOutput | undefined {
  const getOrHead = input.method === 'GET' || input.method === 'HEAD';
  if (path.endsWith('/ping')) {
    if (!getOrHead) throw new ChHttpError(1, `HTTP method ${input.method} is not allowed on /ping`);
    return OK('text/html; charset=UTF-8');
  }
  if (path.endsWith('/replicas_status')) {
    if (!getOrHead) throw new ChHttpError(1, `HTTP method ${input.method} is not allowed on /replicas_status`);
    return OK('text/plain; charset=UTF-8');
  }
  if (path === '/' && getOrHead && !input.query.has('query')) return OK('text/html; charset=UTF-8');
  return undefined;
}

/** Answer one request. Never throws: every failure is a ClickHouse exception answer. */
export async function handleClickHouseHttp(input: HttpInput, deps: ChHttpDeps): Promise<HttpOutput> {
  const now = deps.now ?? Date.now;
  const t0 = deps.arrivedAt ?? now();
  const asked = input.query.get('query_id') || input.headers['x-clickhouse-query-id'] || deps.requestId || randomUUID();
  // The id travels to the shards' ClickHouse query_id: only plain ids go there (the client still gets its own back).
  const queryId = /^[A-Za-z0-9._:-]{1,128}$/.test(asked) ? asked : randomUUID();
  const origin = allowedOrigin(deps.topo, input.headers);
  const base: Record<string, string> = {
    'x-clickhouse-query-id': headerText(asked),
    'x-clickhouse-server-display-name': headerText(deps.topo.clickhouseHttp?.displayName ?? 'ch-scatter'),
    ...corsHeaders(origin),
  };
  let info: ServerInfo | undefined;
  let codec: ReturnType<typeof answerCodec>;
  let level: number | undefined;
  try {
    const path = input.path.replace(/\/+$/, '') || '/';
    // A browser's preflight carries no credentials: answered before they are asked for.
    if (input.method === 'OPTIONS') return { status: 204, headers: preflightHeaders(origin, input.headers), body: Buffer.alloc(0) };
    const fixed = staticAnswer(path, input);
    if (fixed) return { ...fixed, headers: { ...corsHeaders(origin), ...fixed.headers } };
    if (input.method !== 'GET' && input.method !== 'POST') throw new ChHttpError(1, `HTTP method ${input.method} is not allowed`);

    const creds = credentialsOf(input.headers, input.query);
    const user = deps.userCheck ? await deps.userCheck(creds) : (deps.authorizedUser ?? creds.user ?? 'default');

    const maxBody = deps.maxBodyBytes ?? 64 * 1024 * 1024;
    const blocksIn = ['1', 'true'].includes((input.query.get('decompress') ?? '').trim().toLowerCase());
    const encIn = input.headers['content-encoding'];
    let codecs = needsWireCodecs(encIn?.trim().toLowerCase()) || blocksIn ? await wireCodecs(deps) : undefined;
    // ClickHouse undoes the HTTP encoding first, then its own blocks (decompress=1) inside it.
    let body = decompressBody(input.body, encIn, maxBody, codecs);
    if (blocksIn && codecs) body = decompressBlocks(body, codecs, maxBody);
    const req = parseChRequest({ ...input, body });
    codec = answerCodec(req.compression.enabled, input.headers['accept-encoding']);
    level = req.compression.level;
    if (!codecs && (req.wire.compressBlocks || needsWireCodecs(codec))) codecs = await wireCodecs(deps);
    const database = req.database ?? 'default';
    const st = classify(req.text);
    info = await serverInfo(deps.raw).catch(() => undefined);

    let out: {
      bytes: Buffer;
      format: string;
      readRows: number;
      readBytes: number;
      resultRows?: number;
      writtenRows?: number;
      extraHeaders?: Record<string, string>;
      extraSummary?: Record<string, unknown>;
    };
    if (st.kind === 'insert') out = await runInsert(st, req, database, deps, queryId);
    else if (st.kind === 'killQuery') out = await runKill(st, req, user, deps);
    else {
      // Registered by the id the client asked for: that is what its KILL QUERY names.
      const running = deps.running?.start(asked, user);
      try {
        out = await runRead(st, req, database, user, deps, queryId, t0, info?.version, running?.signal);
      } catch (e) {
        if (running?.killed) throw new ChHttpError(394, 'Query was cancelled');
        throw e;
      } finally {
        running?.done();
      }
      if (running?.killed) throw new ChHttpError(394, 'Query was cancelled');
    }

    const headers: Record<string, string> = {
      ...base,
      'content-type': contentTypeOf(out.format),
      'x-clickhouse-format': out.format,
      ...(info ? { 'x-clickhouse-timezone': info.timezone } : {}),
      ...out.extraHeaders,
      'x-clickhouse-summary': summary(
        {
          readRows: out.readRows,
          readBytes: out.readBytes,
          writtenRows: out.writtenRows,
          resultRows: out.resultRows,
          resultBytes: out.bytes.length,
          elapsedNs: Math.round((now() - t0) * 1e6),
        },
        out.extraSummary,
      ),
    };
    let bytes = out.bytes;
    if (req.wire.revision > 0 && out.format.toLowerCase() === 'native') bytes = nativeForRevision(bytes, req.wire.revision);
    // compress=1: ClickHouse's blocks (LZ4, its default codec), inside any HTTP encoding.
    if (req.wire.compressBlocks && codecs) bytes = compressBlocks(bytes, 'lz4', codecs);
    if (codec && bytes.length > 0) {
      bytes = compress(bytes, codec, level, codecs);
      headers['content-encoding'] = codec;
    }
    return { status: 200, headers, body: bytes };
  } catch (e) {
    return exceptionAnswer(e, { headers: base, ...(info ? { version: info.version } : {}) });
  }
}

async function wireCodecs(deps: ChHttpDeps): Promise<WireCodecs> {
  if (!deps.loadCodecs) throw new ChHttpError(48, 'LZ4 and ZSTD (compress, decompress, Content-Encoding zstd or lz4) are not available in this deployment');
  return deps.loadCodecs();
}

/**
 * Any failure as ClickHouse's HTTP interface answers it: its status for the code (or `status`, for a
 * refusal before the interface ran, such as an over-size body), X-ClickHouse-Exception-Code, the text body.
 */
export function exceptionAnswer(e: unknown, o: { headers?: Record<string, string>; version?: string; status?: number } = {}): HttpOutput {
  const x = toChException(e);
  // A query refused for its missing shards (skip_unavailable_shards=0, requireCoverage) names them as a partial answer would.
  const d = e instanceof ScatterError ? (e.details as { shards?: { missing?: MissingShardInfo[] }; coverage?: TableCoverage[] } | undefined) : undefined;
  const { 'x-ch-scatter-partial': _partial, ...shards } = shardHeaders({
    ...(d?.shards?.missing ? { missing: d.shards.missing } : {}),
    ...(d?.coverage ? { coverage: d.coverage } : {}),
  });
  const headers: Record<string, string> = {
    ...o.headers,
    ...shards,
    'content-type': 'text/plain; charset=UTF-8',
    'x-clickhouse-exception-code': String(x.code),
    ...(x.code === 516 ? { 'www-authenticate': 'Basic realm="ch-scatter"' } : {}),
  };
  return { status: o.status ?? x.status, headers, body: Buffer.from(exceptionBody(x, o.version)) };
}

async function runRead(
  st: Exclude<Statement, { kind: 'insert' }>,
  req: ChRequest,
  database: string,
  user: string,
  deps: ChHttpDeps,
  queryId: string,
  arrivedAt: number,
  version: string | undefined,
  signal?: AbortSignal,
) {
  let select: SelectStatement | undefined;
  let format = req.defaultFormat;
  // One absolute deadline from the request's arrival (max_execution_time, else the configured budget).
  const deadline = computeDeadline({
    now: arrivedAt,
    ...(req.maxExecutionTimeMs ? { requestTimeoutMs: req.maxExecutionTimeMs } : {}),
    configTimeoutMs: deps.topo.query.timeoutMs,
  });
  const externalNames = new Set(req.external.map((t) => t.name));
  if (st.kind === 'select') {
    // generateRandom() without a seed: one drawn here, so every engine that runs the query draws the same rows.
    select = markExternal(seedRandomTables(parseSelect(req.text)).statement, externalNames);
    if (select.format) format = select.format;
    select = applyResultLimit({ ...select, format: undefined }, req.resultLimit);
    checkEngineOptions({ format, settings: req.formatSettings, where: 'a URL parameter' });
    if (!isCatalogSelect(select)) {
      // External data over distributed tables: parsed once, then shipped to the shards as a GLOBAL set is.
      const external = req.external.length ? await parseOnEngine(req.external, deps.raw, { queryId, deadline: deadline.at }) : [];
      return runDistributed(
        withContextValues(select, { database, user, version }),
        format,
        req,
        database,
        deps,
        { queryId, arrivedAt, version },
        signal,
        external,
      );
    }
    select = bindParams(select, fromEscapedParams(select, req.params));
    checkCatalogSettings(select, deps.topo);
    select = settleSetOperators(select, req.settings);
  } else if (st.format) format = st.format;
  checkEngineOptions({ format, settings: req.formatSettings, where: 'a URL parameter' });
  // One server and the catalog's read caps: the shard KILLs the query at the deadline. External data
  // read alone travels as sent: that engine parses it.
  const tableSizes = deps.tableSizes;
  const sql = await catalogSql(
    {
      topo: deps.topo,
      database,
      user,
      raw: deps.raw,
      ...(version !== undefined ? { version } : {}),
      ...(tableSizes ? { sizes: () => tableSizes(queryId, deadline.at) } : {}),
      ...(externalNames.size ? { external: externalNames } : {}),
    },
    st,
    select,
  );
  const r = await deps.raw(sql, {
    format,
    settings: { ...CATALOG_LIMITS, ...req.formatSettings },
    queryId,
    deadline: deadline.at,
    ...(st.kind === 'select' && req.external.length ? { external: req.external.map(asSent) } : {}),
  });
  return { bytes: r.bytes, format, readRows: r.statistics.rowsRead, readBytes: r.statistics.bytesRead };
}

async function runDistributed(
  select: SelectStatement,
  format: string,
  req: ChRequest,
  database: string,
  deps: ChHttpDeps,
  { queryId, arrivedAt, version }: { queryId: string; arrivedAt: number; version: string | undefined },
  signal: AbortSignal | undefined,
  external: ExternalTable[],
) {
  if (!deps.select)
    throw new ChHttpError(48, 'SELECT over distributed tables through the ClickHouse interface needs the general query path, which this deployment lacks');
  const sql = printSelect(qualify(select, database));
  const a = await deps.select({
    sql,
    format,
    formatSettings: req.formatSettings,
    settings: req.settings,
    params: fromEscapedParams(select, req.params),
    ...(req.maxExecutionTimeMs ? { timeoutMs: req.maxExecutionTimeMs } : {}),
    requireComplete: !req.skipUnavailableShards,
    queryId,
    arrivedAt,
    ...(signal ? { signal } : {}),
    ...(external.length ? { external } : {}),
    ...(version !== undefined ? { engineVersion: version } : {}),
  });
  return {
    bytes: a.bytes,
    format,
    readRows: a.rowsRead,
    readBytes: a.bytesRead,
    ...(a.resultRows !== undefined ? { resultRows: a.resultRows } : {}),
    extraHeaders: shardHeaders(a),
  };
}

/**
 * What the answer left out, shard by shard: the missing shards (skip_unavailable_shards=1; with 0 a
 * missing shard is an error, whose answer carries the same headers), the skipped ones, and the share of
 * each table's rows the answering shards hold.
 */
export function shardHeaders(a: {
  missing?: readonly MissingShardInfo[];
  skipped?: readonly { shard: number; reason: string }[];
  coverage?: readonly TableCoverage[];
  truncated?: readonly string[];
}): Record<string, string> {
  const h: Record<string, string> = {};
  if (a.missing?.length) {
    h['x-ch-scatter-partial'] = '1';
    h['x-ch-scatter-missing-shards'] = headerText(JSON.stringify(a.missing.map((m) => ({ shard: m.shard, reason: m.reason }))));
  }
  if (a.skipped?.length) h['x-ch-scatter-skipped-shards'] = headerText(JSON.stringify(a.skipped.map((s) => ({ shard: s.shard, reason: s.reason }))));
  if (a.coverage?.length) h['x-ch-scatter-coverage'] = headerText(JSON.stringify(a.coverage));
  if (a.truncated?.length) h['x-ch-scatter-truncated'] = headerText(JSON.stringify(a.truncated));
  return h;
}

/**
 * KILL QUERY WHERE query_id = '...': cancels the user's query with that id running in this
 * coordinator, answered as ClickHouse answers (a row per query found, none otherwise), rendered by an engine.
 */
async function runKill(st: Extract<Statement, { kind: 'killQuery' }>, req: ChRequest, user: string, deps: ChHttpDeps) {
  const format = st.format ?? req.defaultFormat;
  checkEngineOptions({ format, settings: req.formatSettings, where: 'a URL parameter' });
  const found = deps.running?.kill(st.queryId, user) ?? false;
  const q = quoteStringLiteral;
  const sql = `SELECT 'waiting' AS kill_status, ${q(st.queryId)} AS query_id, ${q(user)} AS user, '' AS query${found ? '' : ' WHERE 0'}`;
  const r = await deps.raw(sql, { format, settings: { ...req.formatSettings } });
  return { bytes: r.bytes, format, readRows: 0, readBytes: 0 };
}

async function runInsert(st: Extract<Statement, { kind: 'insert' }>, req: ChRequest, database: string, deps: ChHttpDeps, queryId: string) {
  const t = findTable(deps.topo, st.table, database);
  if (!t) throw unknownTable(st.table, database);
  const name = `${t.distDb}.${t.distTable}`;
  const cfg = Object.entries(deps.topo.tables).find(([k]) => qualifyTable(k) === name)![1];
  if (!cfg.insert || !deps.insert)
    throw new ChHttpError(164, `Cannot execute query in readonly mode: table ${name} does not take inserts (set "insert": true on it in the topology)`);
  const format = insertFormatOf(st.format);
  // The answer's headers are built after the rows are committed: anything in them that could fail
  // is checked now, so a committed insert always answers 200 and a refused one committed nothing.
  const answerFormat = headerSafeFormat(req.defaultFormat);
  const data = insertData(req, st.dataOffset);
  if (format === 'Native') {
    const types = await rowsOf(
      deps.raw(`SELECT name, type FROM system.columns WHERE database = ${quoteStringLiteral(t.localDb)} AND table = ${quoteStringLiteral(t.localTable)}`, {
        format: 'JSONEachRow',
      }),
    );
    const native = nativeInsert(data, st.columns, cfg.shardingKey, new Map(types.map((c) => [String(c.name), String(c.type)])));
    if (native.rows.length === 0) return { bytes: Buffer.alloc(0), format: answerFormat, readRows: 0, readBytes: 0, writtenRows: 0 };
    return answerInsert(answerFormat, await deps.insert(name, native, queryId));
  }
  let columns = st.columns;
  if (!columns && format !== 'JSONEachRow') {
    const r = deps.raw(
      `SELECT name FROM system.columns WHERE database = ${quoteStringLiteral(t.localDb)} AND table = ${quoteStringLiteral(t.localTable)} AND default_kind NOT IN ('MATERIALIZED', 'ALIAS')`,
      { format: 'JSONEachRow' },
    );
    columns = (await rowsOf(r)).map((c) => String(c.name));
  }
  const keyKind = keyTypeInfo(cfg.shardingKey.type).kind;
  const rows = splitInsertData(format, data, columns ?? [], cfg.shardingKey.column, keyKind === 'string' || keyKind === 'fixedString');
  if (rows.length === 0) return { bytes: Buffer.alloc(0), format: answerFormat, readRows: 0, readBytes: 0, writtenRows: 0 };
  return answerInsert(answerFormat, await deps.insert(name, { format, ...(st.columns ? { columns: st.columns } : {}), rows }, queryId));
}

/** A JSONEachRow answer's rows. */
async function rowsOf(answer: ReturnType<RawQuery>): Promise<Record<string, unknown>[]> {
  return (await answer).bytes
    .toString('utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

function answerInsert(format: string, a: InsertAnswer) {
  return {
    bytes: Buffer.alloc(0),
    format,
    readRows: 0,
    readBytes: 0,
    writtenRows: a.inserted,
    extraHeaders: { 'x-ch-scatter-inserted-per-shard': JSON.stringify(a.perShard) },
    extraSummary: { shards_written_rows: a.perShard.map(String) },
  };
}
