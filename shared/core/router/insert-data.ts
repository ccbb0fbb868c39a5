// Rows as the client's bytes (the ClickHouse interface's INSERT): placed by the sharding key's
// stored bytes, checked as one batch by ClickHouse itself, and only then written, each shard's
// rows byte for byte in their input format. The check parses the whole batch, in input order, into
// a temporary copy of the local table on one shard (InsertOptions.checkOnly): the same parser, types,
// defaults and settings as the real insert, on whatever engine the shards run, so its verdict (code
// and text) is ClickHouse's and no shard commits when any row is bad.
import type { Topology } from '../config/schema.js';
import { ClickHouseError, type InsertData, type InsertFormat } from '../clickhouse/port.js';
import { ScatterError, isScatterError } from '../errors.js';
import { createPlacement, type KeyValue } from '../sharding/index.js';
import type { BadRow } from './route.js';
import { tableFor } from './route.js';
import { writeRouted, type GetAccess, type InsertResult } from './write.js';

/** One row: its bytes without the line end, its 1-based number, its key field (undefined: absent). */
export interface ByteRow {
  bytes: Uint8Array;
  line: number;
  key: unknown;
}

export interface ByteInsert {
  format: InsertFormat;
  columns?: readonly string[];
  rows: readonly ByteRow[];
  /**
   * For a format whose rows are not runs of bytes (Native's columns): the body as sent, and the
   * body of chosen rows (indexes into `rows`, in order); the rows' own `bytes` are then unused.
   */
  blocks?: { whole: Uint8Array; of(rows: readonly number[]): Uint8Array };
}

/**
 * ClickHouse's verdict on every row, on the first replica that answers (shard 0's first). A refusal
 * with ClickHouse's code is thrown as it is; any other failure asks the next replica, and when none
 * can be asked, nothing is written either.
 */
export async function checkBatch(data: InsertData, local: string, topo: Topology, getAccess: GetAccess): Promise<void> {
  let last: unknown;
  for (let s = 0; s < topo.shards.length; s++)
    for (let r = 0; r < topo.shards[s]!.replicas.length; r++) {
      try {
        await (await getAccess(s, r)).insert(local, [], { data, checkOnly: true });
        return;
      } catch (e) {
        if (e instanceof ClickHouseError && e.chCode !== undefined) throw e;
        last = e;
      }
    }
  throw new ScatterError('SHARD_ERROR', `no shard could check the rows against ${local}, so nothing was written: ${(last as Error)?.message ?? String(last)}`);
}

export async function insertBytes(
  input: ByteInsert,
  tableName: string,
  topo: Topology,
  getAccess: GetAccess,
  opts: { onWritten?: (table: string) => void } = {},
): Promise<InsertResult> {
  const { name, table } = tableFor(topo, tableName);
  const placement = await createPlacement(topo.shards, table.shardingKey);
  const column = table.shardingKey.column;
  const perShardRows: Uint8Array[][] = topo.shards.map(() => []);
  const perShardIndexes: number[][] = topo.shards.map(() => []);
  const lines: number[][] = topo.shards.map(() => []);
  const bad: BadRow[] = [];
  for (const [i, row] of input.rows.entries()) {
    if (row.key === undefined) {
      bad.push({ line: row.line, reason: 'missing_key', message: `missing sharding key column "${column}"` });
      continue;
    }
    try {
      const s = placement.shardOf(row.key as KeyValue);
      perShardRows[s]!.push(row.bytes);
      perShardIndexes[s]!.push(i);
      lines[s]!.push(row.line);
    } catch (e) {
      if (!isScatterError(e)) throw e;
      bad.push({ line: row.line, reason: 'type_mismatch', message: `column "${column}": ${e.message}` });
    }
  }
  const perShard = perShardIndexes.map((r) => r.length);
  const base = { table: name, local: table.local, perShard, bad };
  if (bad.length > 0) return { ...base, inserted: 0, ok: false };
  const dataOf = (rows: readonly Uint8Array[]): InsertData => ({ format: input.format, ...(input.columns ? { columns: input.columns } : {}), rows });
  const { blocks } = input;
  await checkBatch(dataOf(blocks ? [blocks.whole] : input.rows.map((r) => r.bytes)), table.local, topo, getAccess);
  const shardRows = (i: number) => (!blocks ? perShardRows[i]! : perShardIndexes[i]!.length > 0 ? [blocks.of(perShardIndexes[i]!)] : []);
  const batches = perShardRows.map((_, i) => ({ rows: [], lines: lines[i]!, data: dataOf(shardRows(i)) }));
  const write = await writeRouted(batches, getAccess, topo.shards, table.local).finally(() => opts.onWritten?.(name));
  return { ...base, inserted: write.committedRows, write, ok: write.ok };
}
