// Inserts over HTTP, by what the caller holds: typed rows (their binary form, optionally only checked
// against a private copy of the table), the client's own JSONEachRow lines byte for byte, or plain
// objects through @clickhouse/client.
import { randomUUID } from 'node:crypto';
import type { ClickHouseClient } from '@clickhouse/client';
import type { InsertOptions } from '../../core/clickhouse/port.js';
import { CHECK_TABLE, checkCopyDdl, insertBody, insertHead } from '../../core/clickhouse/insert-text.js';
import { toClickHouseError } from './errors.js';
import { postQuery, urlSettings, type HttpTarget } from './http-post.js';

export async function insertOverHttp(
  target: HttpTarget,
  client: ClickHouseClient,
  table: string,
  rows: Record<string, unknown>[],
  qo: InsertOptions,
): Promise<void> {
  if (qo.data !== undefined) {
    if (qo.data.rows.length === 0) return;
    const data = qo.data;
    const id = qo.queryId ?? randomUUID();
    const post = (sql: string, body: Buffer | undefined, suffix: string, settings: Record<string, string>) =>
      postQuery(target, { sql, queryId: `${id}${suffix}`, settings, signal: qo.signal, data: body });
    if (!qo.checkOnly) {
      await post(insertHead(table, data), insertBody(data), '', urlSettings(qo.settings, false));
      return;
    }
    // The copy lives in a private session, so nothing else sees it; a DROP that never arrives
    // leaves it to the session's timeout.
    const session = { session_id: `chs-${randomUUID()}`, session_timeout: '60' };
    await post(checkCopyDdl(CHECK_TABLE, table), undefined, '-c', session);
    try {
      await post(insertHead(CHECK_TABLE, data), insertBody(data), '', { ...urlSettings(qo.settings, false), ...session });
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
    await postQuery(target, {
      sql: `INSERT INTO ${table} FORMAT JSONEachRow\n${text}`,
      queryId: qo.queryId ?? randomUUID(),
      settings: urlSettings(qo.settings, false),
      signal: qo.signal,
    });
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
      clickhouse_settings: urlSettings(qo.settings, false) as never,
      abort_signal: qo.signal,
    });
  } catch (e) {
    throw toClickHouseError(e, qo.signal);
  }
}
