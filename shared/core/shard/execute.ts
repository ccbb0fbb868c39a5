// The core of a shard function: run one shard request against its ClickHouse replica within
// the request's absolute deadline, and answer with the partial or a typed failure.
//
// Rules it enforces (docs/operations.md#what-protects-the-shards):
// - the payload is validated (zod); malformed -> failure {kind:'error', code:'BAD_REQUEST'}.
// - a deadline already passed -> failure {kind:'timeout'} without touching ClickHouse.
// - reads only: readonly=2 (a query may still pass its own settings, but never change
//   readonly, and writes are refused by the engine). readonly=2 rather than 1 because the
//   HTTP interface passes every setting as a parameter, which readonly=1 forbids.
// - max_execution_time = the time left, in seconds, rounded up; timeout_overflow_mode='throw'
//   (never 'break': a truncated result must never look complete). These override whatever
//   the request carries.
// - at the deadline the call is aborted AND the server query is KILLed by its id (aborting
//   an HTTP request does not stop the server query).
// - admin requests (exec/insert) only when the caller allows them (the local stack); in AWS an
//   insert is served only into a table on writableTables (CH_SCATTER_WRITABLE_TABLES: the local
//   tables of schedule destinations), so the coordinator writes scheduled rows through the shard
//   function and never holds database credentials. exec is never served in AWS.
import { ClickHouseError } from '../clickhouse/port.js';
import type { ClickHouseAccess, KeptResult, QueryStatistics, RawQueryOptions, SettingValue } from '../clickhouse/port.js';
import { SERVER_DIED, type ShardErrorKind, type ShardFailure, type ShardResponse, type ShardSuccess } from '../protocol/shard-wire.js';
import { shardPayloadSchema, type ShardPayload } from '../protocol/shard-request-schema.js';
import { base64Bytes } from '../protocol/base64-schema.js';
import { oneChunk } from '../protocol/byte-chunks.js';
import type { ShardProgress } from '../protocol/stream-frames.js';
import { assignedSettings, formatsNamed, trimStatement } from '../clickhouse/sql-text.js';
import { isFileFormat, isFileSetting } from '../clickhouse/file-names.js';
import { TRUNCATING_MODES } from '../clickhouse/overflow-modes.js';
import { attemptQueryId, type InflightAttempts } from './inflight.js';
import { runBatch } from './batch.js';
import { ExchangeLostError, exchangeKey, readRef, sha256Hex, splitHeader, type ExchangeStore } from './exchange.js';

export interface ShardExecOptions {
  now(): number;
  /** exec/insert requests are served only when true (the local stack's admin routes). */
  allowAdmin?: boolean;
  /** Without allowAdmin: local tables (`db.table`) an insert request may write (schedule destinations). */
  writableTables?: ReadonlySet<string>;
  /** Cancels the work from outside (e.g. the runtime is shutting down) -> kind 'cancelled'. */
  signal?: AbortSignal;
  /** Refuse successful results whose JSON exceeds this (Lambda's response limit is 6 MB). */
  maxResponseBytes?: number;
  /** The object store large stage-one answers go to (and final stages read them from); none: inline only. */
  exchange?: ExchangeStore;
  /**
   * Largest answer this function holds in memory to write to the exchange, and largest final-stage
   * input it reads from it (bytes, uncompressed): sized to the function's memory.
   */
  maxExchangeBytes?: number;
  /** This function's running attempts, so a cancel request stops one in this process at once. */
  inflight?: InflightAttempts;
  /**
   * Where a raw answer's bytes go as the engine writes them, for a request with `stream` (the shard
   * function's response stream). It rejects when the bytes cannot be taken (the reader went away).
   */
  sink?: (chunks: AsyncIterable<Uint8Array>) => Promise<void>;
  /**
   * With `sink`, for a request asking `progress`: what the streamed query has read, each time it grew
   * (polled every PROGRESS_POLL_MS where the engine shows running queries).
   */
  onProgress?: (p: ShardProgress) => void;
  /** Called with the ClickHouse query id once known, and on cancel (for logs; no row data). */
  onEvent?: (e: { event: 'start' | 'deadline' | 'cancel-failed'; chQueryId: string; message?: string }) => void;
}

/** Settings the shard always decides itself, whatever the request says. */
const ENFORCED = ['readonly', 'max_execution_time', 'timeout_overflow_mode'] as const;
/** ...and may not be set by a SETTINGS clause in the SQL (it would override them). */
const ENFORCED_IN_SQL = [...ENFORCED, 'max_execution_time_leaf', 'timeout_overflow_mode_leaf'] as const;

/** ClickHouse's codes for a session that is not there, or busy with another request. */
const SESSION_NOT_FOUND = 372;
const SESSION_IS_LOCKED = 373;
/** ClickHouse's default max_session_timeout, seconds: a longer session_timeout is refused (code 374). */
const MAX_SESSION_TIMEOUT_S = 3600;

export const DEFAULT_MAX_RESPONSE_BYTES = 6 * 1024 * 1024 - 64 * 1024;
/** Of a 256 MB function: the answer, its compressed copy and the engine client's buffers must fit beside it. */
export const DEFAULT_MAX_EXCHANGE_BYTES = 64 * 1024 * 1024;

export async function executeShardRequest(req: unknown, access: ClickHouseAccess, opts: ShardExecOptions): Promise<ShardResponse> {
  const parsed = shardPayloadSchema.safeParse(req);
  if (!parsed.success) {
    const r = (typeof req === 'object' && req !== null ? req : {}) as { shard?: unknown; replica?: unknown };
    const issues = parsed.error.issues.slice(0, 5).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
    return failure(intOr(r.shard), intOr(r.replica), 'error', `malformed shard request: ${issues.join('; ')}`, 'BAD_REQUEST');
  }
  const p = parsed.data;
  const started = opts.now();
  // Before the deadline check: a cancel matters most for work past it (kept rows, a late attempt).
  if (p.type === 'cancel') return cancelAttempt(p, access, opts, started);
  const left = p.deadline - started;
  if (left <= 0) return failure(p.shard, p.replica, 'timeout', `deadline passed ${Math.round(-left)} ms before the shard started`, 'TIMEOUT');
  if (p.type === 'batch') {
    const max = opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    return runBatch(p, max, (item, maxResponseBytes) => executeShardRequest(item, access, { ...opts, maxResponseBytes }), started, opts.now);
  }
  if (p.type === 'query') {
    let overridden: string[];
    try {
      overridden = assignedSettings(p.sql, ENFORCED_IN_SQL);
    } catch (e) {
      // Text the lexer cannot read cannot be checked for protected settings: refused, not guessed at.
      const why = e instanceof Error ? e.message : String(e);
      return failure(p.shard, p.replica, 'error', `the shard query cannot be checked for protected settings: ${why}`, 'BAD_REQUEST');
    }
    if (overridden.length > 0) {
      return failure(p.shard, p.replica, 'error', `the shard query may not set ${overridden.join(', ')} itself (the shard enforces them)`, 'BAD_REQUEST');
    }
    // Files on this host: the coordinator refuses these before planning; the shard does not rely on it.
    const fileAccess = [
      ...Object.keys(p.settings).filter(isFileSetting),
      ...assignedSettings(p.sql, isFileSetting),
      ...[p.format ?? '', ...formatsNamed(p.sql)].filter(isFileFormat).map((f) => `FORMAT ${f}`),
    ];
    if (fileAccess.length > 0) {
      return failure(p.shard, p.replica, 'error', `the shard refuses ${fileAccess.join(', ')}: it names a file on the engine host`, 'ACCESS_DENIED', 497);
    }
    // An overflow mode other than 'throw' truncates silently. The coordinator forwards only those whose
    // answer it labels truncated (overflow-modes.ts); the shard does not rely on it for any other
    // (timeout_overflow_mode is forced). The query's answer itself may be cut by result_overflow_mode,
    // as ClickHouse's initiator cuts it.
    const truncating = Object.entries(p.settings).filter(
      ([k, v]) =>
        /_overflow_mode(_leaf)?$/.test(k) &&
        k !== 'timeout_overflow_mode' &&
        !TRUNCATING_MODES.has(k) &&
        !(k === 'result_overflow_mode' && p.answer === true) &&
        String(v).trim().toLowerCase() !== 'throw',
    );
    if (truncating.length > 0) {
      const list = truncating.map(([k, v]) => `${k} = '${String(v)}'`).join(', ');
      return failure(p.shard, p.replica, 'error', `the shard refuses ${list}: it would truncate the partial silently`, 'BAD_REQUEST');
    }
  }
  if (p.type !== 'query' && !opts.allowAdmin && !(p.type === 'insert' && isWritable(p.table, opts.writableTables))) {
    const why =
      p.type === 'insert'
        ? `insert into ${p.table} is refused: shard functions only read, and write only to the tables in CH_SCATTER_WRITABLE_TABLES (${[...(opts.writableTables ?? [])].join(', ') || 'none'})`
        : `${p.type} requests are refused: shard functions only read`;
    return failure(p.shard, p.replica, 'error', why, 'NOT_READ_ONLY');
  }

  // Unique per attempt: a hedge or retry may reach the same server while the first still runs,
  // and ClickHouse refuses a second running query with the same id.
  const chQueryId = attemptQueryId(p);
  const deadlineAc = new AbortController();
  const ac = new AbortController();
  const unregister = opts.inflight?.add(chQueryId, ac);
  // The caller went away (a streaming hop closed): the engine's query is KILLed at once, since
  // aborting its HTTP request does not stop it (a cancel request may be on its way too).
  const onOuterAbort = () => {
    ac.abort();
    access.cancel(chQueryId).catch((e: unknown) => opts.onEvent?.({ event: 'cancel-failed', chQueryId, message: String((e as Error)?.message ?? e) }));
  };
  opts.signal?.addEventListener('abort', onOuterAbort, { once: true });
  const timer = setTimeout(() => {
    deadlineAc.abort();
    ac.abort();
    opts.onEvent?.({ event: 'deadline', chQueryId });
    access.cancel(chQueryId).catch((e: unknown) => opts.onEvent?.({ event: 'cancel-failed', chQueryId, message: String((e as Error)?.message ?? e) }));
  }, left);
  if (opts.signal?.aborted) onOuterAbort();

  const settings: Record<string, SettingValue> = {};
  if (p.type === 'query') for (const [k, v] of Object.entries(p.settings)) if (!(ENFORCED as readonly string[]).includes(k)) settings[k] = v;
  settings.max_execution_time = Math.max(1, Math.ceil(left / 1000));
  settings.timeout_overflow_mode = 'throw';

  opts.onEvent?.({ event: 'start', chQueryId });
  try {
    if (p.type === 'query') {
      settings.readonly = 2;
      // inf, -inf and nan as JSON strings: ClickHouse's default writes them as null, which the
      // coordinator would have to read as NULL (a Nullable sum that overflowed would vanish from
      // the merge) or guess as NaN. partials/values.ts parses the strings back.
      // Rows only: a raw answer is the engine's bytes as a ClickHouse client asked for them, so its
      // JSON formats keep ClickHouse's defaults unless the request's settings say otherwise.
      if (p.format === undefined) settings.output_format_json_quote_denormals = 1;
      const max = opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
      // Stage one on the shard that will run the final stage: the rows stay in its engine. Not with
      // shipped sets or scalars: 18.16 does not see external data from a CREATE ... AS SELECT.
      if (p.format !== undefined && p.keep && access.keepRaw && p.external.length === 0) {
        let kept: KeptResult | undefined;
        try {
          kept = await access.keepRaw(p.sql, {
            queryId: chQueryId,
            settings,
            signal: ac.signal,
            deadline: p.deadline,
            table: p.keep.table,
            // The final stage comes within the query's deadline (a second more for the clocks), and
            // no later than ClickHouse's default max_session_timeout allows.
            sessionTimeoutS: Math.min(MAX_SESSION_TIMEOUT_S, Math.max(1, Math.ceil((p.keep.until - opts.now()) / 1000) + 1)),
          });
        } catch (e) {
          // Keeping is an optimisation: a server that refuses it (a lower max_session_timeout, a
          // result with two columns of one name, which a SELECT allows and a table does not) gets
          // the query as if keep were not asked; a query error then comes from the query itself.
          if (!(e instanceof ClickHouseError && e.kind === 'server') || deadlineAc.signal.aborted) throw e;
        }
        if (deadlineAc.signal.aborted) {
          // Nobody waits for these rows any more: the coordinator will never name the session.
          if (kept && access.dropKept) access.dropKept(kept.session, p.keep.table).catch(() => undefined);
          return timedOut(p, started, opts);
        }
        if (kept) {
          return { ...rawSuccess(p, kept.header.toString('base64'), kept.statistics, started, opts), kept: { session: kept.session, rows: kept.rows } };
        }
      }
      if (p.format !== undefined && p.stream && opts.sink && (p.tables ?? []).length === 0 && p.session === undefined) {
        return await streamRaw(p, p.format, opts.sink, access, { chQueryId, settings, ac, started, opts, deadline: deadlineAc.signal });
      }
      if (p.format !== undefined) {
        let tables: StageTableInput[];
        try {
          // The inline rows, and the exchange's objects (read whole first for a kept session).
          tables = await stageTables(p, opts, ac.signal);
        } catch (e) {
          if (!(e instanceof ExchangeLostError) || deadlineAc.signal.aborted) throw e;
          return failure(p.shard, p.replica, 'unavailable', e.message, 'EXCHANGE_LOST', undefined, started, opts);
        }
        let res: Awaited<ReturnType<ClickHouseAccess['queryRaw']>>;
        try {
          const [answer, header] = await Promise.all([
            access.queryRaw(p.sql, {
              queryId: chQueryId,
              settings,
              external: p.external,
              signal: ac.signal,
              deadline: p.deadline,
              format: p.format,
              tables,
              ...(p.session ? { session: p.session } : {}),
            }),
            p.describe ? describedHeader(access, p.sql, { queryId: `${chQueryId}-d`, settings, external: p.external, signal: ac.signal }) : undefined,
          ]);
          res = header ? { ...answer, bytes: Buffer.concat([header, answer.bytes]) } : answer;
        } catch (e) {
          // An exchange object read while its table filled turned out lost: as if read before.
          if (e instanceof ExchangeLostError && !deadlineAc.signal.aborted) {
            return failure(p.shard, p.replica, 'unavailable', e.message, 'EXCHANGE_LOST', undefined, started, opts);
          }
          // The kept stage's session is gone (the server restarted, or it timed out): not the
          // query's fault, and the coordinator can fetch the rows again.
          if (p.session && e instanceof ClickHouseError && (e.chCode === SESSION_NOT_FOUND || e.chCode === SESSION_IS_LOCKED)) {
            return failure(p.shard, p.replica, 'unavailable', `the kept stage is gone: ${e.message}`, 'KEPT_LOST', undefined, started, opts);
          }
          throw e;
        }
        if (deadlineAc.signal.aborted) return timedOut(p, started, opts);
        if (p.exchange && opts.exchange && res.bytes.length > p.exchange.inlineBytes && p.format === STAGE_ONE_FORMAT) {
          return await toExchange(p, res.bytes, res.statistics, opts.exchange, ac.signal, started, opts);
        }
        const raw = res.bytes.toString('base64');
        if (raw.length > max) {
          return failure(
            p.shard,
            p.replica,
            'error',
            `shard answer of ${raw.length} bytes (base64) exceeds the ${max}-byte response limit; aggregate or LIMIT on the shard`,
            'TOO_LARGE',
          );
        }
        return rawSuccess(p, raw, res.statistics, started, opts);
      }
      const res = await access.query(p.sql, { queryId: chQueryId, settings, external: p.external, signal: ac.signal, deadline: p.deadline });
      if (deadlineAc.signal.aborted) return timedOut(p, started, opts);
      const size = Buffer.byteLength(JSON.stringify(res.rows));
      if (size > max) {
        return failure(
          p.shard,
          p.replica,
          'error',
          `shard result of ${size} bytes exceeds the ${max}-byte response limit; aggregate or LIMIT on the shard`,
          'TOO_LARGE',
        );
      }
      return {
        ok: true,
        shard: p.shard,
        replica: p.replica,
        meta: res.meta,
        rows: res.rows,
        statistics: { elapsedMs: opts.now() - started, rowsRead: res.statistics.rowsRead, bytesRead: res.statistics.bytesRead },
      };
    }
    return await runAdmin(p, access, chQueryId, ac.signal, started, opts);
  } catch (e) {
    if (deadlineAc.signal.aborted) return timedOut(p, started, opts);
    if (e instanceof TransferBound) return failure(p.shard, p.replica, 'error', e.message, 'TRANSFER_LIMIT', undefined, started, opts);
    if (opts.signal?.aborted || ac.signal.aborted)
      return failure(p.shard, p.replica, 'cancelled', 'shard request cancelled', 'CANCELLED', undefined, started, opts);
    return fromError(p, e, started, opts);
  } finally {
    unregister?.();
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', onOuterAbort);
  }
}

/**
 * A cancel request: the attempt's ClickHouse queries KILLed by their id's prefix (every statement
 * of it: the kept stage's, DESCRIBE's), the attempt aborted if it runs in this process, and the
 * rows a session kept for a final stage that will not come dropped.
 */
async function cancelAttempt(
  p: Extract<ShardPayload, { type: 'cancel' }>,
  access: ClickHouseAccess,
  opts: ShardExecOptions,
  started: number,
): Promise<ShardResponse> {
  let here = 0;
  try {
    if (p.attemptId !== undefined) {
      const prefix = attemptQueryId(p);
      here = opts.inflight?.cancel(prefix) ?? 0;
      await access.cancel(prefix, { prefix: true });
    }
    // After the KILL: a statement still running in the session would hold it (373) and the drop wait.
    if (p.kept && access.dropKept) await access.dropKept(p.kept.session, p.kept.table);
  } catch (e) {
    return fromError(p, e, started, opts);
  }
  return {
    ok: true,
    shard: p.shard,
    replica: p.replica,
    meta: [{ name: 'running_here', type: 'UInt64' }],
    rows: [{ running_here: String(here) }],
    statistics: { elapsedMs: opts.now() - started, rowsRead: 0, bytesRead: 0 },
  };
}

async function runAdmin(
  p: Exclude<ShardPayload, { type: 'query' | 'cancel' | 'batch' }>,
  access: ClickHouseAccess,
  chQueryId: string,
  signal: AbortSignal,
  started: number,
  opts: ShardExecOptions,
): Promise<ShardResponse> {
  const statistics = () => ({ elapsedMs: opts.now() - started, rowsRead: 0, bytesRead: 0 });
  if (p.type === 'exec') {
    // No settings on DDL text (they would read as table settings); the deadline still aborts it.
    await access.exec(p.sql, { queryId: chQueryId, signal });
    return { ok: true, shard: p.shard, replica: p.replica, meta: [], rows: [], statistics: statistics() };
  }
  // The deduplication token is the only setting an insert carries (max_execution_time and the
  // like would be refused by servers that predate them on INSERT, and a write is not deadline-bound).
  const data = p.data ? { format: p.data.format, ...(p.data.columns ? { columns: p.data.columns } : {}), rows: p.data.rows.map(base64Bytes) } : undefined;
  await access.insert(p.table, p.rows, {
    queryId: chQueryId,
    signal,
    ...(p.jsonEachRow !== undefined ? { jsonEachRow: p.jsonEachRow } : {}),
    ...(data ? { data } : {}),
    ...(p.checkOnly ? { checkOnly: true } : {}),
    ...(p.dedupToken ? { settings: { insert_deduplication_token: p.dedupToken } } : {}),
  });
  const inserted = p.checkOnly
    ? 0
    : data
      ? data.rows.length
      : p.jsonEachRow !== undefined
        ? p.jsonEachRow.split('\n').filter((l) => l.trim() !== '').length
        : p.rows.length;
  return {
    ok: true,
    shard: p.shard,
    replica: p.replica,
    meta: [{ name: 'inserted', type: 'UInt64' }],
    rows: [{ inserted: String(inserted) }],
    statistics: statistics(),
  };
}

/**
 * A raw answer handed to the sink as the engine writes it (an engine that answers whole gives one
 * chunk). When the sink stops taking bytes, or the engine fails mid-answer, the server query is
 * KILLed: nobody reads the rest. The ShardSuccess that follows carries no bytes of its own.
 */
async function streamRaw(
  p: Extract<ShardPayload, { type: 'query' }>,
  format: string,
  sink: (chunks: AsyncIterable<Uint8Array>) => Promise<void>,
  access: ClickHouseAccess,
  r: { chQueryId: string; settings: Record<string, SettingValue>; ac: AbortController; started: number; opts: ShardExecOptions; deadline: AbortSignal },
): Promise<ShardResponse> {
  const signal = r.ac.signal;
  const qo = { queryId: r.chQueryId, settings: r.settings, external: p.external, signal, deadline: p.deadline, format };
  // From the start: a query may read for long before its first block.
  const stopPolling = p.progress && r.opts.onProgress ? pollProgress(access, r.chQueryId, r.opts.onProgress, signal) : undefined;
  try {
    const header = p.describe
      ? await describedHeader(access, p.sql, { queryId: `${r.chQueryId}-d`, settings: r.settings, external: p.external, signal })
      : undefined;
    const chunks = access.queryRawStream ? (await access.queryRawStream(p.sql, qo)).chunks : oneChunk((await access.queryRaw(p.sql, qo)).bytes);
    try {
      await sink(header ? prepended(header, chunks) : chunks);
    } catch (e) {
      // A reader that went away cancels the attempt (a ClickHouse error mid-answer stays that error).
      if (!(e instanceof ClickHouseError)) r.ac.abort();
      access.cancel(r.chQueryId).catch(() => undefined);
      throw e;
    }
  } finally {
    stopPolling?.();
  }
  if (r.deadline.aborted) return timedOut(p, r.started, r.opts);
  return rawSuccess(p, '', { elapsedMs: 0, rowsRead: 0, bytesRead: 0 }, r.started, r.opts);
}

/** How often a streamed query's progress is read from the engine (ClickHouse's default progress interval). */
export const PROGRESS_POLL_MS = 100;

/** Reports what the attempt's queries have read each time it grew, until stopped; a failed reading is skipped. */
function pollProgress(access: ClickHouseAccess, chQueryId: string, onProgress: (p: ShardProgress) => void, signal: AbortSignal): (() => void) | undefined {
  const read = access.readProgress?.bind(access);
  if (!read) return undefined;
  const stop = new AbortController();
  const both = AbortSignal.any([stop.signal, signal]);
  let rows = 0;
  let polling = false;
  const timer = setInterval(() => {
    if (polling) return; // a slow server: the previous reading is still on its way
    polling = true;
    read(chQueryId, both)
      .then((p) => {
        if (both.aborted || p.rowsRead <= rows) return;
        rows = p.rowsRead;
        onProgress(p);
      })
      .catch(() => undefined)
      .finally(() => {
        polling = false;
      });
  }, PROGRESS_POLL_MS);
  timer.unref?.();
  return () => {
    clearInterval(timer);
    stop.abort();
  };
}

async function* prepended(first: Uint8Array, rest: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  yield first;
  yield* rest;
}

type StageTableInput = NonNullable<RawQueryOptions['tables']>[number];
type QueryPayload = Extract<ShardPayload, { type: 'query' }>;

/** The only format a stage-one answer goes to the exchange in: its header says what the rows hold. */
const STAGE_ONE_FORMAT = 'TabSeparatedWithNamesAndTypes';

/** The final stage's tables: the inline rows, then each exchange object's, read and checked. */
async function stageTables(p: QueryPayload, opts: ShardExecOptions, signal: AbortSignal): Promise<StageTableInput[]> {
  const limit = opts.maxExchangeBytes ?? DEFAULT_MAX_EXCHANGE_BYTES;
  const total = (p.tables ?? []).reduce((n, t) => n + (t.objects ?? []).reduce((m, o) => m + o.bytes, 0), 0);
  if (total > limit) {
    throw new TransferBound(
      `the final stage's input from the exchange is ${total} bytes, over this function's ${limit}-byte limit (CH_SCATTER_MAX_EXCHANGE_BYTES)`,
    );
  }
  return Promise.all(
    (p.tables ?? []).map(async (t): Promise<StageTableInput> => {
      const inline = base64Bytes(t.rowBinaryBase64 ?? t.tsvBase64);
      const store = opts.exchange;
      if (t.objects?.length && !store) throw new ExchangeLostError(t.objects[0]!.key, 'this function has no exchange configured');
      const reads = store ? (t.objects ?? []).map((o) => readRef(store, o, signal)) : [];
      // A kept stage's table outlives this attempt: every object is read and checked before it gets
      // a row. A private stage table dies with a failed attempt: all are fetched at once, and each
      // goes in (in order) as soon as it and those before it are read.
      const kept = p.session !== undefined;
      const objects = kept ? await Promise.all(reads) : [];
      return {
        name: t.name,
        columns: t.columns,
        data: objects.length > 0 ? Buffer.concat([inline, ...objects]) : inline,
        ...(!kept && reads.length > 0 ? { parts: inListOrder(reads) } : {}),
        ...(t.rowBinaryBase64 !== undefined ? { format: 'RowBinary' as const } : {}),
        ...(t.kept ? { kept: true } : {}),
      };
    }),
  );
}

/**
 * Values in the list's order (the rows' order is the shards', never the arrival's), each awaited
 * only when its turn comes while the rest are already under way. Every promise gets a handler at
 * once, so one that rejects after the consumer stopped is no unhandled rejection.
 */
function inListOrder<T>(pending: readonly Promise<T>[]): AsyncIterable<T> {
  // Here, not in the generator: its body runs only once someone iterates it.
  for (const p of pending) p.catch(() => undefined);
  return (async function* () {
    for (const p of pending) yield await p;
  })();
}

/** A bound of this function (its memory) that an answer or input goes over: TRANSFER_LIMIT, never retried elsewhere. */
class TransferBound extends Error {}

/**
 * A stage-one answer over the inline threshold: its rows written to the exchange under this shard's
 * prefix for the query, answered as the header and a reference. A store that refuses the write makes
 * the attempt unavailable (another replica, or the shard missing), never a short answer.
 */
async function toExchange(
  p: QueryPayload,
  answer: Buffer,
  stats: QueryStatistics,
  store: ExchangeStore,
  signal: AbortSignal,
  started: number,
  opts: ShardExecOptions,
): Promise<ShardResponse> {
  const limit = opts.maxExchangeBytes ?? DEFAULT_MAX_EXCHANGE_BYTES;
  if (answer.length > limit) {
    return failure(
      p.shard,
      p.replica,
      'error',
      `shard answer of ${answer.length} bytes exceeds this function's ${limit}-byte exchange limit (CH_SCATTER_MAX_EXCHANGE_BYTES, sized to its memory); aggregate or filter on the shard`,
      'TRANSFER_LIMIT',
    );
  }
  const { header, body, rows } = splitHeader(answer);
  const key = exchangeKey(p.queryId, p.shard, p.attemptId ?? `${p.attempt}${p.replica}`, p.keep?.table ?? 'stage');
  try {
    await store.put(key, body, signal);
  } catch (e) {
    if (signal.aborted) throw e;
    return failure(
      p.shard,
      p.replica,
      'unavailable',
      `the exchange refused ${key}: ${(e as Error)?.message ?? String(e)}`,
      'EXCHANGE_UNAVAILABLE',
      undefined,
      started,
      opts,
    );
  }
  return {
    ...rawSuccess(p, header.toString('base64'), stats, started, opts),
    exchanged: { shard: p.shard, key, rows, bytes: body.length, sha256: sha256Hex(body) },
  };
}

/** A raw answer (the engine's bytes in base64, no rows), with the time the shard took. */
function rawSuccess(p: ShardPayload, raw: string, stats: QueryStatistics, started: number, opts: ShardExecOptions): ShardSuccess {
  return {
    ok: true,
    shard: p.shard,
    replica: p.replica,
    meta: [],
    rows: [],
    raw,
    statistics: { elapsedMs: opts.now() - started, rowsRead: stats.rowsRead, bytesRead: stats.bytesRead },
  };
}

/**
 * The query's names and types as the two header lines of TabSeparatedWithNamesAndTypes, from
 * DESCRIBE, which analyses the query without running it. Its TabSeparated output escapes a name or
 * type exactly as that header does, so the fields are taken as they are.
 */
async function describedHeader(access: ClickHouseAccess, sql: string, qo: Omit<RawQueryOptions, 'format'>): Promise<Buffer> {
  const d = await access.queryRaw(`DESCRIBE (\n${trimStatement(sql)}\n)`, { ...qo, format: 'TabSeparated' });
  const fields = d.bytes
    .toString('utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => l.split('\t'));
  return Buffer.from(`${fields.map((f) => f[0]).join('\t')}\n${fields.map((f) => f[1]).join('\t')}\n`, 'utf8');
}

function timedOut(p: ShardPayload, started: number, opts: ShardExecOptions): ShardFailure {
  return failure(
    p.shard,
    p.replica,
    'timeout',
    `shard query stopped at the deadline after ${Math.round(opts.now() - started)} ms (server query cancelled)`,
    'TIMEOUT',
    undefined,
    started,
    opts,
  );
}

function fromError(p: ShardPayload, e: unknown, started: number, opts: ShardExecOptions): ShardFailure {
  if (e instanceof ClickHouseError) {
    const kind: ShardErrorKind = e.kind === 'timeout' ? 'timeout' : e.kind === 'connection' ? 'unavailable' : e.kind === 'aborted' ? 'cancelled' : 'error';
    const code =
      e.kind === 'died'
        ? SERVER_DIED
        : kind === 'timeout'
          ? 'TIMEOUT'
          : kind === 'unavailable'
            ? 'UNAVAILABLE'
            : kind === 'cancelled'
              ? 'CANCELLED'
              : 'SHARD_ERROR';
    return failure(p.shard, p.replica, kind, e.message, code, e.chCode, started, opts);
  }
  return failure(p.shard, p.replica, 'error', `shard failed: ${e instanceof Error ? e.message : String(e)}`, 'INTERNAL', undefined, started, opts);
}

function failure(
  shard: number,
  replica: number,
  kind: ShardErrorKind,
  message: string,
  code?: string,
  chCode?: number,
  started?: number,
  opts?: ShardExecOptions,
): ShardFailure {
  const f: ShardFailure = { ok: false, shard, replica, error: { kind, message } };
  if (code) f.error.code = code;
  if (chCode !== undefined) f.error.chCode = chCode;
  if (started !== undefined && opts) f.statistics = { elapsedMs: opts.now() - started };
  return f;
}

/** `db.table` (no database means `default`), compared exactly: no quoting tricks get through. */
function isWritable(table: string, writable: ReadonlySet<string> | undefined): boolean {
  if (!writable || writable.size === 0) return false;
  return writable.has(table.includes('.') ? table : `default.${table}`);
}

/** CH_SCATTER_WRITABLE_TABLES: comma-separated `db.table` names (no database means `default`). */
export function parseWritableTables(raw: string | undefined): ReadonlySet<string> {
  const out = new Set<string>();
  for (const t of (raw ?? '')
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean))
    out.add(t.includes('.') ? t : `default.${t}`);
  return out;
}

function intOr(v: unknown): number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : -1;
}
