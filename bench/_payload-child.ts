// The payload bench's measuring process (started with --expose-gc so heap figures are after a
// full collection). It plans a high-cardinality GROUP BY with the real planner, builds each
// shard's partial as the shard would send it (a ShardSuccess JSON text), and feeds the parsed
// partials one by one through the real merger, as gather does (merge on arrival, rows dropped).
// Reports to the parent over IPC (as the `ready` message of bench/_fork.ts).
import { gzipSync } from 'node:zlib';
import { parseTopology } from '../shared/core/config/load.js';
import { planQuery } from '../shared/core/plan/index.js';

interface Spec {
  shards: number;
  groups: number;
  sql: string;
  maxRowsToTransfer: number;
  holdShards: number; // for the hold-everything reference: how many parsed responses to keep
}

const spec = JSON.parse(process.argv[2] ?? '{}') as Spec;
const gc = (globalThis as { gc?: () => void }).gc;
const heapMb = () => {
  gc?.();
  return process.memoryUsage().heapUsed / 1048576;
};

/** A partial column of the shard SQL: its name and whether it is a count (UInt64) or a sum (Float64). */
interface PartialCol {
  name: string;
  kind: 'count' | 'sum';
}

/** The __aN columns of the planned shard SQL, by the aggregate that fills them (count / sum only here). */
function partialCols(shardSql: string): PartialCol[] {
  const out: PartialCol[] = [];
  for (const m of shardSql.matchAll(/\b(count|sum)\([^)]*\) AS `?(__a\d+)`?/g)) out.push({ name: m[2]!, kind: m[1] as 'count' | 'sum' });
  return out;
}

/** The partial of one shard: every group present (the worst case: groups span all shards). */
function shardText(shard: number, groups: number, cols: PartialCol[]): string {
  const rows: Record<string, unknown>[] = new Array(groups);
  for (let g = 0; g < groups; g++) {
    const c = 1 + ((g * 7 + shard * 13) % 50);
    const s = c * 10.5 + (g % 3);
    const r: Record<string, unknown> = { __k0: `user-${String(g).padStart(6, '0')}` };
    // counts are UInt64, quoted as ClickHouse does; sums Float64
    for (const col of cols) r[col.name] = col.kind === 'count' ? String(c) : s;
    rows[g] = r;
  }
  const meta = [{ name: '__k0', type: 'String' }, ...cols.map((col) => ({ name: col.name, type: col.kind === 'count' ? 'UInt64' : 'Float64' }))];
  return JSON.stringify({ ok: true, shard, replica: 0, meta, rows, statistics: { elapsedMs: 1, rowsRead: groups * 10, bytesRead: 0 } });
}

async function main() {
  const topo = parseTopology({
    cluster: 'b',
    shards: Array.from({ length: spec.shards }, (_, i) => ({ replicas: [{ url: `http://h${i}:8123` }] })),
    tables: { 'db.events_dist': { local: 'db.events', shardingKey: { column: 'sensor', type: 'String', function: 'xxHash64' } } },
    query: { maxRowsToTransfer: spec.maxRowsToTransfer },
  });
  const plan = await planQuery(spec.sql, topo, {});
  const shardSql = plan.shards[0]!.sql!;
  const cols = partialCols(shardSql);
  if (cols.length === 0) throw new Error(`no count/sum partial columns in the shard SQL: ${shardSql}`);
  const limitMatch = /LIMIT (\d+)\s*$/.exec(shardSql);
  const perShardGroups = limitMatch ? Math.min(spec.groups, Number(limitMatch[1])) : spec.groups;

  const sample = shardText(0, perShardGroups, cols);
  const bytes = Buffer.byteLength(sample);
  const gzipBytes = gzipSync(sample).length;
  // JSONCompact-style arrays: the same values without repeating column names per row.
  const parsed = JSON.parse(sample) as { rows: Record<string, unknown>[] };
  const compactBytes = Buffer.byteLength(JSON.stringify(parsed.rows.map((r) => Object.values(r))));

  // Reference: holding parsed responses instead of merging them on arrival.
  const base0 = heapMb();
  const held: unknown[] = [];
  for (let s = 0; s < spec.holdShards; s++) held.push(JSON.parse(shardText(s, perShardGroups, cols)));
  const heldPerShardMb = (heapMb() - base0) / Math.max(1, spec.holdShards);
  held.length = 0;

  const base = heapMb();
  const merger = plan.createMerger();
  let peak = 0;
  const heapAt: Record<string, number> = {};
  let mergeMs = 0;
  let parseMs = 0;
  let stoppedAt: number | undefined;
  let stopMessage: string | undefined;
  for (let s = 0; s < spec.shards; s++) {
    const text = shardText(s, perShardGroups, cols);
    const t0 = performance.now();
    const r = JSON.parse(text) as { rows: Record<string, unknown>[]; meta: { name: string; type: string }[] };
    const t1 = performance.now();
    try {
      merger.add(s, r.rows, r.meta);
    } catch (e) {
      stoppedAt = s;
      stopMessage = (e as Error).message;
      break;
    }
    mergeMs += performance.now() - t1;
    parseMs += t1 - t0;
    peak = Math.max(peak, process.memoryUsage().heapUsed / 1048576 - base);
    if (s === 0 || s === 7 || s === spec.shards - 1) heapAt[String(s + 1)] = heapMb() - base;
  }
  const t2 = performance.now();
  const fin = stoppedAt === undefined ? merger.finalize() : undefined;
  const finalizeMs = performance.now() - t2;
  const afterFinalize = heapMb() - base;
  process.send!({
    ready: {
      shard_sql: shardSql,
      groups_per_shard_response: perShardGroups,
      bytes_per_shard_response: bytes,
      bytes_per_group: Math.round((bytes / perShardGroups) * 10) / 10,
      gzip_bytes_per_shard_response: gzipBytes,
      compact_array_bytes_per_shard_response: compactBytes,
      held_parsed_response_mb_per_shard: heldPerShardMb,
      merger_heap_mb_after_shards: heapAt,
      merger_peak_heap_mb: peak,
      heap_after_finalize_mb: afterFinalize,
      parse_ms_per_shard: parseMs / Math.max(1, stoppedAt ?? spec.shards),
      merge_ms_per_shard: mergeMs / Math.max(1, stoppedAt ?? spec.shards),
      finalize_ms: finalizeMs,
      result_rows: fin?.data.length,
      stopped_at_shard: stoppedAt,
      stop_message: stopMessage,
      rss_mb: process.memoryUsage().rss / 1048576,
    },
  });
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.send!({ fatal: e instanceof Error ? e.stack : String(e) });
    process.exit(1);
  },
);
