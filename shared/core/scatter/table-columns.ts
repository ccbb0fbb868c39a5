// Each distributed table's columns, as the plan needs them to spell out `*`, `COLUMNS('re')`,
// `* EXCEPT`, `* REPLACE` and `GROUP BY ALL` (shared/core/plan/expand-columns.ts): DESCRIBE TABLE of
// the local table, asked through a shard function (the credentials stay there), kept per
// coordinator for a bounded time, and forgotten when a shard says a column is unknown (code 47),
// so an ALTER is seen by the next query.
import { BoundedCache } from '../bounded-cache.js';
import type { ClickHouseAccess } from '../clickhouse/port.js';
import type { Topology } from '../config/schema.js';
import { ScatterError } from '../errors.js';
import { describeColumns, type TableColumn } from '../clickhouse/describe-columns.js';
import { expandColumns, tablesNeedingColumns } from '../plan/expand-columns.js';
import { lookupTable } from '../plan/tables.js';
import type { SelectStatement } from '../sql/ast.js';
import type { ShardInvoker } from './invoker.js';
import { createShardReadAccess } from './shard-read-access.js';

export interface TableColumns {
  entries: BoundedCache<string, { at: number; columns: Promise<TableColumn[]> }>;
  /** How long a table's columns are trusted before they are read again. */
  ttlMs: number;
}

export function createTableColumns(ttlMs = 60_000, maxTables = 256): TableColumns {
  return { entries: new BoundedCache(maxTables), ttlMs };
}

/** The shards asked in turn, until one answers (every shard holds the same DDL; the startup check says so). */
function shardAccesses(topo: Topology, invoker: ShardInvoker): ClickHouseAccess[] {
  return topo.shards.map((s, shard) => createShardReadAccess({ invoker, shard, replicas: s.replicas.map((_, i) => i), timeoutMs: 5_000 }));
}

async function readColumns(topo: Topology, invoker: ShardInvoker, distributed: string): Promise<TableColumn[]> {
  const local = lookupTable(topo, distributed)!.local;
  const failures: string[] = [];
  for (const access of shardAccesses(topo, invoker)) {
    try {
      return await describeColumns(access, local);
    } catch (e) {
      failures.push(`${access.describe}: ${(e as Error).message}`);
    }
  }
  throw new ScatterError('SHARD_ERROR', `the columns of ${distributed} could not be read from any shard: ${failures.join('; ')}`);
}

export interface Expanded {
  statement: SelectStatement;
  /** The tables whose columns were spelled out (forgotten when a shard says a column is unknown). */
  tables: string[];
}

/** The statement with the columns it needs spelled out, read from a shard or the cache. */
export async function withTableColumns(
  stmt: SelectStatement,
  deps: { topo: Topology; invoker: ShardInvoker; tableColumns?: TableColumns; now?: () => number },
): Promise<Expanded> {
  const tables = tablesNeedingColumns(stmt, deps.topo);
  const cache = deps.tableColumns;
  // Without columns to read, only what needs none (GROUP BY ALL over listed columns) is spelled out.
  if (!tables.length || !cache) return { statement: expandColumns(stmt, deps.topo, () => undefined), tables: [] };
  const now = (deps.now ?? Date.now)();
  const known = new Map<string, TableColumn[]>();
  for (const t of tables) {
    let entry = cache.entries.get(t);
    if (!entry || now - entry.at > cache.ttlMs) {
      entry = { at: now, columns: readColumns(deps.topo, deps.invoker, t) };
      cache.entries.set(t, entry);
    }
    try {
      known.set(t, await entry.columns);
    } catch (e) {
      cache.entries.delete(t);
      throw e;
    }
  }
  return { statement: expandColumns(stmt, deps.topo, (t) => known.get(t)), tables };
}

/** A shard's "unknown column" (47) for a statement spelled from cached columns: those are read again next time. */
export function forgetOnUnknownColumn(e: unknown, expanded: Expanded, cache: TableColumns | undefined): boolean {
  const code = e instanceof ScatterError ? (e.details?.clickhouse as { code?: number } | undefined)?.code : undefined;
  if (code !== 47 || !cache || !expanded.tables.length) return false;
  for (const t of expanded.tables) cache.entries.delete(t);
  return true;
}
