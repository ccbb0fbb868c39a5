// Each shard's statistics of a table (row count, min/max of the configured columns), read through the
// shard functions (so the credentials stay there) and kept per coordinator for a bounded life
// (query.statisticsTtlMs). The router's inserts drop a table's entry, so the next query reads anew.
// A shard whose statistics cannot be read is unknown (never pruned, its rows not counted), and read
// again a second later rather than after the whole life. A query never waits long for a read.
import { BoundedCache } from '../bounded-cache.js';
import type { Topology } from '../config/schema.js';
import { qualifyTable } from '../config/schema.js';
import type { ShardTableStats, StatisticsSource } from '../plan/statistics.js';
import { lookupTable } from '../plan/tables.js';
import { backquote } from '../sql/quote.js';
import type { ShardInvoker } from './invoker.js';
import { createShardReadAccess } from './shard-read-access.js';

/** A shard's statistics read takes at most this long; one that fails is unknown until it is read again. */
const READ_TIMEOUT_MS = 2_000;
/** A table with an unknown shard is read again after this long. */
const RETRY_UNKNOWN_MS = 1_000;
/**
 * A query waits at most this long (and never past its deadline) for statistics being read: it plans
 * with what has arrived (the rest unknown: not pruned, not counted) while the read goes on for the next.
 */
const WAIT_MS = 250;

export interface StatisticsCache {
  /** The planner's view of the cache for one request: reads missing or expired entries through `invoker`. */
  source(topo: Topology, invoker: ShardInvoker, deadlineAt: number): StatisticsSource;
  /** Forget a table's statistics (its distributed or local name): the router wrote to it. */
  invalidate(table: string): void;
}

interface Entry {
  expiresAt: number;
  local: string;
  /** Filled in as each shard answers. */
  shards: (ShardTableStats | undefined)[];
  done: Promise<void>;
  settled: boolean;
}

/** The statement that reads one shard's statistics of a local table. */
export function statisticsSql(local: string, columns: readonly string[]): string {
  const ranges = columns.map((c, i) => `min(${backquote(c)}) AS min_${i}, max(${backquote(c)}) AS max_${i}`);
  return `SELECT count() AS rows, timezone() AS tz${ranges.map((r) => `, ${r}`).join('')} FROM ${local.split('.').map(backquote).join('.')}`;
}

async function readShard(topo: Topology, invoker: ShardInvoker, shard: number, local: string, columns: readonly string[], deadline: number) {
  const access = createShardReadAccess({ invoker, shard, replicas: topo.shards[shard]!.replicas.map((_, i) => i) });
  const r = await access.query(statisticsSql(local, columns), { deadline });
  const row = r.rows[0] ?? {};
  const typeOf = (name: string) => r.meta.find((m) => m.name === name)?.type ?? '';
  const out: ShardTableStats = { rows: BigInt(String(row.rows ?? 0)), timezone: String(row.tz ?? ''), columns: {} };
  columns.forEach((c, i) => {
    const min = row[`min_${i}`];
    const max = row[`max_${i}`];
    out.columns[c] =
      min === null || max === null || min === undefined || max === undefined ? null : { type: typeOf(`min_${i}`), min: String(min), max: String(max) };
  });
  return out;
}

export function createStatisticsCache(opts: { max?: number; now?: () => number } = {}): StatisticsCache {
  const now = opts.now ?? Date.now;
  const entries = new BoundedCache<string, Entry>(opts.max ?? 256);
  const read = (topo: Topology, invoker: ShardInvoker, distributed: string, local: string, columns: readonly string[]): Entry => {
    const started = now();
    const entry: Entry = {
      expiresAt: started + topo.query.statisticsTtlMs,
      local,
      shards: topo.shards.map(() => undefined),
      done: Promise.resolve(),
      settled: false,
    };
    entry.done = Promise.all(
      topo.shards.map((_, s) =>
        readShard(topo, invoker, s, local, columns, started + READ_TIMEOUT_MS).then(
          (st) => {
            entry.shards[s] = st;
          },
          () => undefined,
        ),
      ),
    ).then(() => {
      entry.settled = true;
      if (entry.shards.some((s) => !s)) entry.expiresAt = Math.min(entry.expiresAt, now() + RETRY_UNKNOWN_MS);
    });
    entries.set(distributed, entry);
    return entry;
  };
  return {
    source: (topo, invoker, deadlineAt) => async (distributed) => {
      const bound = lookupTable(topo, distributed);
      const columns = bound?.config.statistics;
      if (!bound || !columns) return undefined;
      const hit = entries.get(bound.distributed);
      const entry = hit && hit.expiresAt > now() ? hit : read(topo, invoker, bound.distributed, bound.local, columns);
      if (!entry.settled) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const wait = Math.max(0, Math.min(WAIT_MS, deadlineAt - now()));
        await Promise.race([entry.done, new Promise<void>((r) => (timer = setTimeout(r, wait)))]);
        clearTimeout(timer);
      }
      return { table: bound.distributed, shards: [...entry.shards] };
    },
    invalidate(table) {
      const q = qualifyTable(table);
      entries.delete(q);
      // A local name: every distributed table over it.
      for (const key of [...entries.keys()]) if (entries.get(key)?.local === q) entries.delete(key);
    },
  };
}
