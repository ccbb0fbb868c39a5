// Writing routed batches straight into each shard's local table: one INSERT per shard and
// replica, all shards in parallel. With internalReplication the shard's replicas copy among
// themselves, so the batch goes to one replica (the next one is tried if it fails); otherwise
// to every replica. The report says, per shard, which replicas hold the batch and which input
// lines did not reach it, so a failure is never silent: 'partial' means some replicas have the
// rows and some do not.
//
// Retrying safely: each shard batch carries ClickHouse's insert_deduplication_token, derived from
// the local table, the shard and the batch's own bytes. Re-sending the same input routes the same
// lines into the same batches with the same tokens, so a shard that already committed its batch
// drops the repeat, and only the shards that failed get the rows. ClickHouse honours the token on
// Replicated*MergeTree tables and on MergeTree tables with non_replicated_deduplication_window > 0
// (it does not deduplicate a plain MergeTree without that setting). Servers older than the setting
// (18.16: UNKNOWN_SETTING) get the batch without it, and the report says `deduplicated: false`.
import { createHash } from 'node:crypto';
import type { ShardConfig } from '../config/schema.js';
import type { ClickHouseAccess, InsertData } from '../clickhouse/port.js';
import type { BadRow, Row } from './route.js';

export type ShardWriteStatus = 'committed' | 'failed' | 'partial' | 'empty';

export interface ReplicaWriteResult {
  replica: number;
  ok: boolean;
  error?: string;
  /** false when the server did not know insert_deduplication_token and got the batch without it. */
  deduplicated?: boolean;
}

export interface ShardWriteResult {
  shard: number;
  rows: number;
  status: ShardWriteStatus;
  replicas: ReplicaWriteResult[];
  /** Input line numbers of the batch's rows, when the shard is 'failed' or 'partial'. */
  failedLines?: number[];
  /** The batch's insert_deduplication_token. */
  dedupToken?: string;
}

export interface WriteReport {
  table: string;
  shards: ShardWriteResult[];
  /** Rows in shards whose status is 'committed'. */
  committedRows: number;
  /** Rows in shards that are 'failed' or 'partial'. */
  failedRows: number;
  /** Shards that hold their whole batch, and shards that do not (or only on some replicas). */
  committedShards: number[];
  failedShards: number[];
  /** Input line numbers of every row in a failed or partial shard's batch, ascending. */
  failedLines: number[];
  ok: boolean;
}

export type GetAccess = (shard: number, replica: number) => ClickHouseAccess | Promise<ClickHouseAccess>;

/** One shard's batch: parsed rows, their input lines, and (for text input) the lines' own text or bytes. */
export interface ShardBatch {
  rows: Row[];
  lines?: number[];
  texts?: string[];
  /** The rows as the client's bytes in their input format (instead of `rows` and `texts`). */
  data?: InsertData;
}

// A Native batch is one block of many rows: its rows are counted by their input lines.
const sizeOf = (b: ShardBatch) => (b.data ? (b.lines?.length ?? b.data.rows.length) : b.rows.length);

const UNKNOWN_TOKEN_SETTING = /Unknown setting insert_deduplication_token|Code: 115\b/;

/**
 * Whether a replica's server knows insert_deduplication_token, asked once per access (one small
 * read of system.settings) so that an older server is not sent a doomed INSERT for every batch.
 * An answer we cannot get counts as "knows it": the INSERT then says so itself, and writeOne
 * retries it without the token.
 */
const tokenSupport = new WeakMap<ClickHouseAccess, Promise<boolean>>();
function knowsToken(access: ClickHouseAccess): Promise<boolean> {
  let known = tokenSupport.get(access);
  if (!known) {
    known = access.query("SELECT count() AS n FROM system.settings WHERE name = 'insert_deduplication_token'").then(
      (r) => Number(r.rows[0]?.n ?? 0) > 0,
      () => true,
    );
    tokenSupport.set(access, known);
  }
  return known;
}

async function writeOne(getAccess: GetAccess, shard: number, replica: number, table: string, b: ShardBatch, token: string): Promise<ReplicaWriteResult> {
  const text = b.texts ? b.texts.join('\n') : undefined;
  const send = async (access: ClickHouseAccess, withToken: boolean) => {
    await access.insert(table, b.rows, {
      ...(b.data ? { data: b.data } : text !== undefined ? { jsonEachRow: text } : {}),
      ...(withToken ? { settings: { insert_deduplication_token: token } } : {}),
    });
  };
  let access: ClickHouseAccess;
  try {
    access = await getAccess(shard, replica);
    if (await knowsToken(access)) {
      try {
        await send(access, true);
        return { replica, ok: true };
      } catch (e) {
        const msg = (e as Error).message ?? String(e);
        if (!UNKNOWN_TOKEN_SETTING.test(msg)) return { replica, ok: false, error: msg };
        tokenSupport.set(access, Promise.resolve(false));
      }
    }
  } catch (e) {
    return { replica, ok: false, error: (e as Error).message ?? String(e) };
  }
  try {
    await send(access, false);
    return { replica, ok: true, deduplicated: false };
  } catch (e) {
    return { replica, ok: false, error: (e as Error).message ?? String(e), deduplicated: false };
  }
}

/** The batch's token: the same input routes to the same batch and the same token on every retry. */
export function dedupTokenOf(table: string, shard: number, b: ShardBatch): string {
  const h = createHash('sha256').update(`${table}\n${shard}\n`);
  if (b.data) for (const r of b.data.rows) h.update(r).update('\n');
  else if (b.texts) for (const t of b.texts) h.update(t).update('\n');
  else for (const r of b.rows) h.update(JSON.stringify(r, (_, v) => (typeof v === 'bigint' ? v.toString() : v))).update('\n');
  return `ch-scatter-${h.digest('hex').slice(0, 40)}`;
}

async function writeShard(b: ShardBatch, shard: number, cfg: ShardConfig, table: string, getAccess: GetAccess): Promise<ShardWriteResult> {
  if (sizeOf(b) === 0) return { shard, rows: 0, status: 'empty', replicas: [] };
  const dedupToken = dedupTokenOf(table, shard, b);
  const replicas: ReplicaWriteResult[] = [];
  let status: ShardWriteStatus;
  if (cfg.internalReplication) {
    for (let r = 0; r < cfg.replicas.length; r++) {
      const res = await writeOne(getAccess, shard, r, table, b, dedupToken);
      replicas.push(res);
      if (res.ok) break;
    }
    status = replicas.some((r) => r.ok) ? 'committed' : 'failed';
  } else {
    replicas.push(...(await Promise.all(cfg.replicas.map((_, r) => writeOne(getAccess, shard, r, table, b, dedupToken)))));
    const okCount = replicas.filter((r) => r.ok).length;
    status = okCount === replicas.length ? 'committed' : okCount === 0 ? 'failed' : 'partial';
  }
  const out: ShardWriteResult = { shard, rows: sizeOf(b), status, replicas, dedupToken };
  if (status !== 'committed') out.failedLines = b.lines ?? Array.from({ length: sizeOf(b) }, (_, i) => i + 1);
  return out;
}

/** Write batches[i] to shards[i]'s local `table`. Never throws for a shard failure: see the report. */
export async function writeRouted(batches: (Row[] | ShardBatch)[], getAccess: GetAccess, shards: readonly ShardConfig[], table: string): Promise<WriteReport> {
  if (batches.length !== shards.length) throw new Error(`writeRouted: ${batches.length} batches for ${shards.length} shards`);
  const norm = batches.map((b): ShardBatch => (Array.isArray(b) ? { rows: b } : b));
  const results = await Promise.all(norm.map((b, i) => writeShard(b, i, shards[i]!, table, getAccess)));
  const committedRows = results.filter((r) => r.status === 'committed').reduce((n, r) => n + r.rows, 0);
  const failed = results.filter((r) => r.status === 'failed' || r.status === 'partial');
  const failedRows = failed.reduce((n, r) => n + r.rows, 0);
  return {
    table,
    shards: results,
    committedRows,
    failedRows,
    committedShards: results.filter((r) => r.status === 'committed').map((r) => r.shard),
    failedShards: failed.map((r) => r.shard),
    failedLines: failed.flatMap((r) => r.failedLines ?? []).sort((a, b) => a - b),
    ok: failedRows === 0,
  };
}

/** What a routed insert did: rows per shard, rows refused, the write's report. */
export interface InsertResult {
  table: string;
  local: string;
  /** Rows committed (on every replica that should hold them). */
  inserted: number;
  /** Rows routed to each shard, in shard order. */
  perShard: number[];
  bad: BadRow[];
  /** Undefined when nothing was written because of bad rows. */
  write?: WriteReport;
  ok: boolean;
}
