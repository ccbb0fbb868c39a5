// Writing routed batches straight into each shard's local table: one INSERT per shard and
// replica, all shards in parallel. With internalReplication the shard's replicas copy among
// themselves, so the batch goes to one replica (the next one is tried if it fails); otherwise
// to every replica. The report says, per shard, which replicas hold the batch, so a failure is
// never silent: 'partial' means some replicas have the rows and some do not.
import type { ShardConfig } from '../config/schema.js';
import type { ClickHouseAccess } from '../clickhouse/port.js';
import type { Row } from './route.js';

export type ShardWriteStatus = 'committed' | 'failed' | 'partial' | 'empty';

export interface ReplicaWriteResult {
  replica: number;
  ok: boolean;
  error?: string;
}

export interface ShardWriteResult {
  shard: number;
  rows: number;
  status: ShardWriteStatus;
  replicas: ReplicaWriteResult[];
}

export interface WriteReport {
  table: string;
  shards: ShardWriteResult[];
  /** Rows in shards whose status is 'committed'. */
  committedRows: number;
  /** Rows in shards that are 'failed' or 'partial'. */
  failedRows: number;
  ok: boolean;
}

export type GetAccess = (shard: number, replica: number) => ClickHouseAccess | Promise<ClickHouseAccess>;

async function writeOne(getAccess: GetAccess, shard: number, replica: number, table: string, rows: Row[]): Promise<ReplicaWriteResult> {
  try {
    const access = await getAccess(shard, replica);
    await access.insert(table, rows);
    return { replica, ok: true };
  } catch (e) {
    return { replica, ok: false, error: (e as Error).message ?? String(e) };
  }
}

async function writeShard(batch: Row[], shard: number, cfg: ShardConfig, table: string, getAccess: GetAccess): Promise<ShardWriteResult> {
  if (batch.length === 0) return { shard, rows: 0, status: 'empty', replicas: [] };
  const replicas: ReplicaWriteResult[] = [];
  if (cfg.internalReplication) {
    for (let r = 0; r < cfg.replicas.length; r++) {
      const res = await writeOne(getAccess, shard, r, table, batch);
      replicas.push(res);
      if (res.ok) break;
    }
    return { shard, rows: batch.length, status: replicas.some((r) => r.ok) ? 'committed' : 'failed', replicas };
  }
  replicas.push(...(await Promise.all(cfg.replicas.map((_, r) => writeOne(getAccess, shard, r, table, batch)))));
  const okCount = replicas.filter((r) => r.ok).length;
  const status: ShardWriteStatus = okCount === replicas.length ? 'committed' : okCount === 0 ? 'failed' : 'partial';
  return { shard, rows: batch.length, status, replicas };
}

/** Write batches[i] to shards[i]'s local `table`. Never throws for a shard failure: see the report. */
export async function writeRouted(batches: Row[][], getAccess: GetAccess, shards: readonly ShardConfig[], table: string): Promise<WriteReport> {
  if (batches.length !== shards.length) throw new Error(`writeRouted: ${batches.length} batches for ${shards.length} shards`);
  const results = await Promise.all(batches.map((b, i) => writeShard(b, i, shards[i]!, table, getAccess)));
  const committedRows = results.filter((r) => r.status === 'committed').reduce((n, r) => n + r.rows, 0);
  const failedRows = results.filter((r) => r.status === 'failed' || r.status === 'partial').reduce((n, r) => n + r.rows, 0);
  return { table, shards: results, committedRows, failedRows, ok: failedRows === 0 };
}
