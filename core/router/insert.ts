// Route + write in one call, as `ch-scatter insert --config` and the local stack's
// POST /admin/insert use it. Bad rows stop the whole insert before anything is written
// (like ClickHouse refusing a malformed INSERT), unless the caller opts into skipping them.
import type { Topology } from '../config/schema.js';
import { createPlacement } from '../sharding/index.js';
import { routeRows, tableFor, type BadRow, type RouteInput } from './route.js';
import { writeRouted, type GetAccess, type WriteReport } from './write.js';

export interface InsertOptions {
  /** Write the good rows even when some rows are bad (default false: write nothing). */
  skipBadRows?: boolean;
}

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

export async function insertRows(input: RouteInput, tableName: string, topo: Topology, getAccess: GetAccess, opts: InsertOptions = {}): Promise<InsertResult> {
  const { table } = tableFor(topo, tableName);
  const placement = await createPlacement(topo.shards, table.shardingKey);
  const routed = routeRows(input, tableName, topo, placement);
  const perShard = routed.batches.map((b) => b.length);
  const base = { table: routed.table, local: routed.local, perShard, bad: routed.bad };
  if (routed.bad.length > 0 && !opts.skipBadRows) return { ...base, inserted: 0, ok: false };
  const batches = routed.batches.map((rows, i) => ({ rows, lines: routed.lines[i]!, ...(routed.texts ? { texts: routed.texts[i]! } : {}) }));
  const write = await writeRouted(batches, getAccess, topo.shards, routed.local);
  return { ...base, inserted: write.committedRows, write, ok: write.ok && routed.bad.length === 0 };
}
