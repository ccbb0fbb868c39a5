// Reads that bring their own tables, over HTTP: a raw read with stage tables (created, filled and
// read in a private session, dropped after the answer) and a kept stage (CREATE ... AS SELECT into a
// session that later reads reach by its id).
import { randomUUID } from 'node:crypto';
import { ClickHouseError, type ExternalTable, type KeepOptions, type KeptResult, type RawQueryOptions, type RawResult } from '../../core/clickhouse/port.js';
import { checkedFormat, lowCardinalityOf, STAGE_TABLE_NAME, temporaryTableDdl, trimStatement } from '../../core/clickhouse/sql-text.js';
import { postQuery, urlSettings, type HttpTarget } from './http-post.js';

export async function queryRawOverHttp(target: HttpTarget, sql: string, qo: RawQueryOptions): Promise<RawResult> {
  const started = Date.now();
  const queryId = qo.queryId ?? randomUUID();
  const format = checkedFormat(qo.format);
  // wait_end_of_query: the server buffers the answer, so an error found after the first
  // block comes back as an error status, not appended to bytes that cannot be checked for it.
  const settings: Record<string, string> = { ...urlSettings(qo.settings, false), wait_end_of_query: '1' };
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
    postQuery(target, { sql: text, queryId: id, settings: { ...extra, ...(session ?? {}) }, external, signal: qo.signal, data });
  try {
    const ro = readonlyOf(settings);
    for (const t of tables) {
      if (!t.kept) await post(temporaryTableDdl(t), undefined, `${queryId}-t-${t.name}`, { ...ro, ...lowCardinalityOf(t.columns) });
      const insert = (data: Buffer, n: number) => post(`INSERT INTO ${t.name} FORMAT ${t.format ?? 'TabSeparated'}`, data, `${queryId}-i${n}-${t.name}`, ro);
      if (t.data.length > 0) await insert(t.data, 0);
      let n = 0;
      for await (const part of t.parts ?? []) if (part.length > 0) await insert(part, ++n);
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
}

export async function keepRawOverHttp(target: HttpTarget, sql: string, qo: KeepOptions): Promise<KeptResult> {
  const started = Date.now();
  const queryId = qo.queryId ?? randomUUID();
  if (!STAGE_TABLE_NAME.test(qo.table)) throw new TypeError(`invalid kept table name ${JSON.stringify(qo.table)}`);
  const session = { session_id: `chs-${randomUUID()}`, session_timeout: String(Math.max(1, Math.ceil(qo.sessionTimeoutS))) };
  const settings = urlSettings(qo.settings, false);
  const post = (text: string, id: string, extra: Record<string, string>, external: ExternalTable[] = []) =>
    postQuery(target, { sql: text, queryId: id, settings: { ...extra, ...session }, external, signal: qo.signal });
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
}

/** ClickHouse's codes for a session that is not there or busy, and a table that is not there. */
const SESSION_NOT_FOUND = 372;
const SESSION_IS_LOCKED = 373;
const UNKNOWN_TABLE = 60;
/** How long dropKeptOverHttp waits for a kept stage's session that is busy with another statement. */
const DROP_KEPT_PATIENCE_MS = 2_000;

/**
 * Drop a kept stage's table when no final stage will read it. Without IF EXISTS: 18.16 refuses that
 * form under readonly when the table is missing. A session or table already gone (it timed out, the
 * final stage dropped it) is what was asked; a session busy with another statement (373) is asked
 * again for a while: it is ours alone.
 */
export async function dropKeptOverHttp(target: HttpTarget, session: string, table: string): Promise<void> {
  if (!STAGE_TABLE_NAME.test(table)) throw new TypeError(`invalid kept table name ${JSON.stringify(table)}`);
  const until = Date.now() + DROP_KEPT_PATIENCE_MS;
  for (;;) {
    try {
      await postQuery(target, { sql: `DROP TEMPORARY TABLE ${table}`, queryId: `${session}-drop`, settings: { session_id: session, session_check: '1' } });
      return;
    } catch (e) {
      if (e instanceof ClickHouseError && (e.chCode === SESSION_NOT_FOUND || e.chCode === UNKNOWN_TABLE)) return;
      if (!(e instanceof ClickHouseError && e.chCode === SESSION_IS_LOCKED) || Date.now() >= until) throw e;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Only readonly (=2 from the shard) travels with a stage table's DDL, INSERT and reads: under it a
 * temporary table is the one thing that may be created and written.
 */
function readonlyOf(settings: Record<string, string>): Record<string, string> {
  return settings.readonly !== undefined ? { readonly: settings.readonly } : {};
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
