// The embedded adapter: ClickHouse in-process through chdb (local stack and tests).
//
// Facts about chdb it is built around (each checked against chdb itself):
// - chdb is loaded lazily with a dynamic import, so a Lambda bundle that only uses the HTTP
//   adapter never pulls in the 550 MB native library.
// - ONE data directory per process: a second directory throws deep inside chdb. We guard
//   with a clear error and share the session when the same directory is asked for again.
// - Queries on one chdb session run one after another (4 x sleep(0.5) in parallel took 2 s).
//   We keep our own FIFO so a query still waiting its turn can be cancelled for real; a query
//   already inside the engine cannot be interrupted (chdb's abort only rejects early), so
//   max_execution_time is what bounds it. The queue waits for the engine to really finish
//   before starting the next query, so timings stay honest.
// - chdb's result counters (rowsRead = result rows) are not read statistics; FORMAT JSON's
//   `statistics` block is, so query() takes them from there, and queryRaw (any format) from the
//   engine's profile events around the query (embedded-read-counters.ts).
// - Settings, table functions and clauses that read or write files by name cannot take effect:
//   the engine opens with its own config and users config (embedded-pinning.ts), checked at open.
// - External tables are substituted by `(SELECT * FROM format(JSONEachRow, 'structure', '...'))`
//   for one query: nothing is created, so concurrent queries cannot see each other's data.
import fs from 'node:fs';
import path from 'node:path';
import { ClickHouseError } from '../../core/clickhouse/port.js';
import { ExchangeLostError } from '../../core/shard/exchange.js';
import type {
  ClickHouseAccess,
  ExternalTable,
  InsertData,
  InsertOptions,
  QueryOptions,
  QueryResult,
  RawQueryOptions,
  RawResult,
  SettingValue,
  StageTable,
} from '../../core/clickhouse/port.js';

export { parseJsonResult } from './json-result.js';
import { abortedError, serverError } from './errors.js';
import { mayHaveReplacedBytes, parseEachRowRows, parseJsonResult, RAW_STRINGS_FORMAT } from './json-result.js';
import {
  checkedFormat,
  temporaryTableDdl,
  externalIsEmpty,
  externalJsonEachRow,
  settingsClause,
  structureOf,
  substituteTables,
  toJsonEachRow,
  trimStatement,
} from '../../core/clickhouse/sql-text.js';
import { backquote, quoteStringLiteral } from '../../core/sql/quote.js';
import { PINNING_PROBES, pinnedConnectionArgs, refuseFileReach, refusePinnedSettings } from './embedded-pinning.js';
import { CHECK_TABLE, checkCopyDdl, columnsClause, insertBody } from '../../core/clickhouse/insert-text.js';
import { parseReadCounters, READ_COUNTERS_SQL, readBetween } from './embedded-read-counters.js';

export interface EmbeddedAccessOptions {
  /** The engine's data directory (created if missing). One per process. */
  path: string;
}

type ChdbModule = typeof import('chdb');
type ChdbSession = InstanceType<ChdbModule['Session']>;

interface Opened {
  path: string;
  session: ChdbSession;
  refs: number;
  queue: EngineQueue;
  /** The pinning check at open (checkPinning); no access is handed out before it passes. */
  ready?: Promise<void>;
}

let firstPath: string | undefined;
let opened: Opened | undefined;

async function loadChdb(): Promise<ChdbModule> {
  // A variable specifier keeps bundlers (esbuild for Lambda) from following it.
  const name = 'chdb';
  return (await import(name)) as ChdbModule;
}

/**
 * Always on: 64-bit integers as JSON strings (ClickHouse JSON conventions, docs/api.md#2-http-api),
 * and Decimals as strings too (chdb has the setting), so their digits need no quoting pass.
 */
const ALWAYS = { output_format_json_quote_64bit_integers: 1, output_format_json_quote_decimals: 1 } as const;
const QUOTED = { decimalsQuoted: true };

export async function createEmbeddedAccess(opts: EmbeddedAccessOptions): Promise<ClickHouseAccess> {
  const dir = path.resolve(opts.path);
  if (firstPath !== undefined && firstPath !== dir) {
    throw new ClickHouseError(
      `chdb allows one data directory per process: this process already uses ${firstPath}, cannot open ${dir} ` +
        `(run each engine in its own process: spawnEngine in test/support/engine-process/engine-process.ts)`,
      'connection',
    );
  }
  if (!opened) {
    fs.mkdirSync(dir, { recursive: true });
    const chdb = await loadChdb();
    if (opened === undefined) {
      firstPath = dir;
      const session = new chdb.Session(dir, { connectionArgs: pinnedConnectionArgs(dir) });
      opened = { path: dir, session, refs: 0, queue: new EngineQueue() };
      opened.ready = checkPinning(session);
    }
  }
  const o: Opened = opened!;
  if (o.path !== dir) {
    // Two first calls with different directories raced through the import above.
    throw new ClickHouseError(`chdb allows one data directory per process: this process already uses ${o.path}, cannot open ${dir}`, 'connection');
  }
  try {
    await o.ready;
  } catch (e) {
    if (opened === o) {
      opened = undefined;
      o.session.close();
    }
    throw e;
  }
  o.refs++;
  return makeAccess(o);
}

/** Every probe refused with its own code, or the engine is not served: it could reach files. */
async function checkPinning(session: ChdbSession): Promise<void> {
  for (const probe of PINNING_PROBES) {
    const code = await session.queryAsync(probe.sql).then(
      () => undefined,
      (e: unknown) => toClickHouseError(e).chCode,
    );
    if (code !== probe.code) {
      throw new ClickHouseError(
        `the embedded engine did not refuse \`${probe.sql}\` (code ${code ?? 'none'}, wanted ${probe.code}): it is not served`,
        'connection',
      );
    }
  }
}

function makeAccess(o: Opened): ClickHouseAccess {
  let closed = false;
  const ensureOpen = () => {
    if (closed) throw new ClickHouseError('embedded access is closed', 'connection');
  };

  const run = async <T>(queryId: string | undefined, signal: AbortSignal | undefined, job: () => Promise<T>): Promise<T> => {
    ensureOpen();
    return o.queue.run(queryId, signal, async () => {
      try {
        return await job();
      } catch (e) {
        // A stage table's source (an exchange object) failing is no engine error: passed on as it is.
        if (e instanceof ExchangeLostError) throw e;
        // Measured chdb 3.4 quirk: a query that fails mid-execution leaves its format's
        // output behind, and the NEXT query's result starts with it. Flush it now, inside
        // this queue slot, so it never reaches another caller.
        await o.session.queryAsync('SELECT 1 FORMAT Null').catch(() => undefined);
        throw toClickHouseError(e);
      }
    });
  };

  return {
    describe: `embedded:${o.path}`,

    async query(sql: string, qo: QueryOptions = {}): Promise<QueryResult> {
      refuseFileReach(sql, qo.settings);
      const body = trimStatement(substituteTables(sql, qo.external, formatTableExpr));
      const inlined = body.length - trimStatement(sql).length;
      return run(qo.queryId, qo.signal, async () => {
        const settings: Record<string, SettingValue> = { ...qo.settings, ...ALWAYS };
        if (qo.deadline !== undefined) {
          // Computed now, when the engine is ours: time spent queued is already gone. The
          // engine takes fractional seconds, so it stops at the deadline, not the next second.
          const left = qo.deadline - Date.now();
          if (left <= 0) throw new ClickHouseError('deadline passed while the query waited for the engine', 'timeout');
          settings.max_execution_time = Math.max(0.001, Math.round(left) / 1000);
          settings.timeout_overflow_mode = 'throw';
        }
        const res = await queryLong(o.session, body + settingsClause(settings) + '\nFORMAT JSON', inlined);
        // The bytes, not text(): a String value need not be UTF-8 (json-result.ts keeps it exact).
        const bytes = res.bytes();
        const parsed = parseJsonResult(bytes, res.elapsed, QUOTED);
        if (!mayHaveReplacedBytes(bytes)) return parsed;
        // FORMAT JSON may have rewritten bytes that are not UTF-8: the rows again, raw (json-result.ts).
        const again = await queryLong(o.session, body + settingsClause(settings) + `\nFORMAT ${RAW_STRINGS_FORMAT}`, inlined);
        return { ...parsed, rows: parseEachRowRows(again.bytes(), parsed.meta, QUOTED) };
      });
    },

    async queryRaw(sql: string, qo: RawQueryOptions): Promise<RawResult> {
      const format = checkedFormat(qo.format);
      refuseFileReach(sql, qo.settings);
      const body = trimStatement(substituteTables(sql, qo.external, formatTableExpr));
      const inlined = body.length - trimStatement(sql).length;
      const tables = qo.tables ?? [];
      // This engine keeps no stage (no keepRaw), so a kept table or session cannot be its own: a
      // fresh table in its place would silently lack the kept rows.
      if (qo.session !== undefined || tables.some((t) => t.kept)) {
        throw new ClickHouseError('the embedded engine has no sessions: a kept stage cannot be read here', 'server');
      }
      return run(qo.queryId, qo.signal, async () => {
        // Stage tables are created, filled, read and dropped inside this one queue slot: no other
        // query runs on the engine meanwhile, so none can see or collide with them.
        const settings: Record<string, SettingValue> = { ...qo.settings };
        try {
          for (const t of tables) {
            // A stage column may be LowCardinality of a number (a CASE over a LowCardinality key),
            // which a current engine creates only when told that is intended.
            const lowCardinality = t.columns.some((c) => c.type.includes('LowCardinality')) ? '\nSETTINGS allow_suspicious_low_cardinality_types = 1' : '';
            await o.session.queryAsync(temporaryTableDdl(t) + lowCardinality);
            if (t.data.length > 0 && t.format === 'RowBinary') {
              // The literal is 4 characters a byte: past the parser's limit for larger leaves (queryLong).
              const insert = rowBinaryInsert(t);
              await queryLong(o.session, insert, insert.length);
            } else if (t.data.length > 0) await o.session.insert({ table: t.name, values: t.data, format: 'TabSeparated' });
            // The exchange's objects, TabSeparated rows each, inserted in order as each is ready.
            for await (const part of t.parts ?? []) {
              if (part.length > 0) await o.session.insert({ table: t.name, values: part, format: 'TabSeparated' });
            }
          }
          if (qo.deadline !== undefined) {
            const left = qo.deadline - Date.now();
            if (left <= 0) throw new ClickHouseError('deadline passed while the query waited for the engine', 'timeout');
            settings.max_execution_time = Math.max(0.001, Math.round(left) / 1000);
            settings.timeout_overflow_mode = 'throw';
          }
          const counters = async () => parseReadCounters((await o.session.queryAsync(READ_COUNTERS_SQL)).text());
          const before = await counters();
          const res = await queryLong(o.session, body + settingsClause(settings) + `\nFORMAT ${format}`, inlined);
          const read = readBetween(before, await counters());
          return { bytes: Buffer.from(res.bytes()), statistics: { elapsedMs: res.elapsed * 1000, ...read } };
        } finally {
          for (const t of tables) await o.session.queryAsync(`DROP TEMPORARY TABLE IF EXISTS ${t.name}`).catch(() => undefined);
        }
      });
    },

    async exec(sql: string, qo: Omit<QueryOptions, 'external'> = {}): Promise<void> {
      refuseFileReach(sql, qo.settings);
      // Settings only when asked: appended to DDL they would read as table settings.
      const text = trimStatement(sql) + settingsClause(qo.settings);
      await run(qo.queryId, qo.signal, async () => {
        await o.session.queryAsync(text);
      });
    },

    async insert(table: string, rows: Record<string, unknown>[], qo: InsertOptions = {}): Promise<void> {
      refusePinnedSettings(qo.settings);
      if (qo.data !== undefined) {
        const data = qo.data;
        if (data.rows.length === 0) return;
        const send = async (into: string) => {
          if (data.format === 'Native') {
            const sql = nativeInsert(into, data);
            await o.session.queryAsync(`SET max_query_size = ${sql.length + 1024}`);
            try {
              await o.session.queryAsync(sql + settingsClause(qo.settings));
            } finally {
              await o.session.queryAsync('SET max_query_size = DEFAULT').catch(() => o.session.queryAsync('SET max_query_size = 262144'));
            }
            return;
          }
          await o.session.insert({
            table: into,
            values: insertBody(data),
            format: data.format,
            ...(data.columns && data.columns.length > 0 ? { columns: [...data.columns] } : {}),
            ...(qo.settings ? { settings: qo.settings } : {}),
          });
        };
        await run(qo.queryId, qo.signal, async () => {
          if (!qo.checkOnly) {
            await send(table);
            return;
          }
          // Created, filled and dropped inside this one queue slot: no other query sees the copy.
          await o.session.queryAsync(checkCopyDdl(CHECK_TABLE, table));
          try {
            await send(CHECK_TABLE);
          } finally {
            await o.session.queryAsync(`DROP TEMPORARY TABLE IF EXISTS ${CHECK_TABLE}`).catch(() => undefined);
          }
        });
        return;
      }
      const payload = qo.jsonEachRow ?? (rows.length === 0 ? '' : toJsonEachRow(rows));
      if (payload.trim() === '') return;
      await run(qo.queryId, qo.signal, async () => {
        await o.session.insert({ table, values: payload, format: 'JSONEachRow', settings: qo.settings });
      });
    },

    async cancel(queryId: string, co?: { prefix?: boolean }): Promise<void> {
      // Best effort: a query still queued is dropped; one inside the engine runs on until
      // max_execution_time stops it (chdb cannot interrupt a single-shot query).
      o.queue.cancel(queryId, co?.prefix === true);
    },

    async ping(): Promise<boolean> {
      try {
        await run(undefined, undefined, () => o.session.queryAsync('SELECT 1'));
        return true;
      } catch {
        return false;
      }
    },

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      o.refs--;
      if (o.refs === 0 && opened === o) {
        await o.queue.idle();
        o.session.close();
        opened = undefined;
      }
    },
  };
}

/** The parser's default limit on a statement's text (max_query_size). */
const MAX_QUERY_SIZE = 262_144;

/**
 * A statement that carries `inlined` characters of rows in literals (shipped sets, external data,
 * RowBinary stage rows): the parser's limit is raised by exactly that much, so the query's own text
 * still meets max_query_size. A SETTINGS clause cannot do it (it is read after parsing); the limit
 * is put back after it. Runs inside the caller's queue slot.
 */
async function queryLong(session: ChdbSession, text: string, inlined: number): ReturnType<ChdbSession['queryAsync']> {
  if (inlined <= 0 || text.length < MAX_QUERY_SIZE - 1024) return session.queryAsync(text);
  await session.queryAsync(`SET max_query_size = ${MAX_QUERY_SIZE + inlined + 1024}`);
  try {
    return await session.queryAsync(text);
  } finally {
    await session.queryAsync('SET max_query_size = DEFAULT').catch(() => session.queryAsync(`SET max_query_size = ${MAX_QUERY_SIZE}`));
  }
}

/** Bytes as a string literal's text, every byte as \xHH: ASCII, and no byte can end the literal. */
function hexLiteral(data: Uint8Array): string {
  const HEX = '0123456789abcdef';
  const escaped = Buffer.alloc(data.length * 4);
  for (let i = 0; i < data.length; i++) {
    const b = data[i]!;
    escaped[i * 4] = 0x5c; // backslash
    escaped[i * 4 + 1] = 0x78; // x
    escaped[i * 4 + 2] = HEX.charCodeAt(b >> 4);
    escaped[i * 4 + 3] = HEX.charCodeAt(b & 15);
  }
  return `'${escaped.toString('latin1')}'`;
}

/**
 * RowBinary rows into a stage table. chdb's raw insert takes text formats only, so the bytes go in
 * a string literal read by the format() table function, every byte as \xHH: the statement is ASCII
 * and no byte can end the literal (4 characters a byte, for the one-row-per-shard leaves that use it).
 */
function rowBinaryInsert(t: StageTable): string {
  const structure = quoteStringLiteral(t.columns.map((c) => `${backquote(c.name)} ${c.type}`).join(', '));
  return `INSERT INTO ${t.name} SELECT * FROM format(RowBinary, ${structure}, ${hexLiteral(t.data)})`;
}

/**
 * Native blocks into `table`, read by the format() table function (chdb's raw insert takes text
 * formats only): the blocks name their columns and types, matched to the table's by the column list.
 */
function nativeInsert(table: string, data: InsertData): string {
  return `INSERT INTO ${table}${columnsClause(data)} SELECT * FROM format(Native, ${hexLiteral(Buffer.from(insertBody(data)))})`;
}

/** The table expression an external table becomes: rows inline, structure explicit. */
export function formatTableExpr(t: ExternalTable): string {
  const structure = quoteStringLiteral(structureOf(t));
  // format() needs at least one row of data; null() is the empty table with a structure.
  if (externalIsEmpty(t)) return `(SELECT * FROM null(${structure}))`;
  // A client's external data: its bytes in its own format, parsed by the engine.
  if (t.data) return `(SELECT * FROM format(${checkedFormat(t.data.format)}, ${structure}, ${hexLiteral(Buffer.from(t.data.base64, 'base64'))}))`;
  return `(SELECT * FROM format(JSONEachRow, ${structure}, ${quoteStringLiteral(externalJsonEachRow(t), { rawControls: true })}))`;
}

function toClickHouseError(e: unknown): ClickHouseError {
  if (e instanceof ClickHouseError) return e;
  const err = e as { name?: string; code?: string; clickhouseCode?: number; message?: string };
  if (err?.name === 'AbortError' || err?.code === 'CHDB_ABORT') return abortedError(err.message ?? 'query aborted');
  if (err?.code === 'CHDB_CLOSED' || err?.code === 'CHDB_CONNECTION') return new ClickHouseError(String(err.message), 'connection');
  return serverError(String(err?.message ?? e), err?.clickhouseCode);
}

interface QueueJob {
  queryId?: string;
  start: () => void;
  fail: (e: ClickHouseError) => void;
}

/**
 * One query at a time into the engine, FIFO. A caller's promise settles early on abort or
 * cancel, but the next job starts only when the engine has really finished the previous one.
 */
class EngineQueue {
  private waiting: QueueJob[] = [];
  private busy = false;
  private running = new Map<string, (e: ClickHouseError) => void>();
  private idleWaiters: (() => void)[] = [];

  run<T>(queryId: string | undefined, signal: AbortSignal | undefined, job: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (signal?.aborted) return reject(abortedError());
      let settled = false;
      const settle = (fn: () => void) => {
        if (settled) return;
        settled = true;
        signal?.removeEventListener('abort', onAbort);
        fn();
      };
      const entry: QueueJob = {
        queryId,
        fail: (e) => {
          const i = this.waiting.indexOf(entry);
          if (i >= 0) this.waiting.splice(i, 1);
          settle(() => reject(e));
        },
        start: () => {
          if (queryId) this.running.set(queryId, entry.fail);
          job()
            .then(
              (v) => settle(() => resolve(v)),
              (e: unknown) => settle(() => reject(e)),
            )
            .finally(() => {
              if (queryId && this.running.get(queryId) === entry.fail) this.running.delete(queryId);
              this.busy = false;
              this.pump();
            });
        },
      };
      const onAbort = () => entry.fail(abortedError());
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(entry);
      this.pump();
    });
  }

  cancel(queryId: string, prefix = false): void {
    const matches = (id: string | undefined) => id !== undefined && (prefix ? id.startsWith(queryId) : id === queryId);
    for (const j of [...this.waiting]) if (matches(j.queryId)) j.fail(abortedError(`query ${j.queryId} cancelled`));
    for (const [id, fail] of [...this.running]) if (matches(id)) fail(abortedError(`query ${id} cancelled`));
  }

  idle(): Promise<void> {
    if (!this.busy && this.waiting.length === 0) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  private pump(): void {
    if (this.busy) return;
    const next = this.waiting.shift();
    if (!next) {
      for (const w of this.idleWaiters.splice(0)) w();
      return;
    }
    this.busy = true;
    next.start();
  }
}
