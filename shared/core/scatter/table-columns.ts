// Each distributed table's columns, as the plan needs them to spell out `*`, `COLUMNS('re')`,
// `* EXCEPT`, `* REPLACE` and `GROUP BY ALL` (shared/core/plan/expand-columns.ts): DESCRIBE TABLE of
// the local table, asked through a shard function (the credentials stay there), kept per
// coordinator for a bounded time, and forgotten when a shard says a column is unknown (code 47),
// so an ALTER is seen by the next query. Beside them, for query-then-fetch's row-width estimate, the
// mean length of each table's String columns, measured on a shard and kept the same way.
import { BoundedCache } from '../bounded-cache.js';
import type { ClickHouseAccess, SettingValue } from '../clickhouse/port.js';
import type { Topology } from '../config/schema.js';
import { ScatterError } from '../errors.js';
import { describeColumns, type TableColumn } from '../clickhouse/describe-columns.js';
import { measureStringWidths } from '../clickhouse/string-widths.js';
import { expandColumns, tablesNeedingColumns, type ExternalColumns } from '../plan/expand-columns.js';
import { orderByAllOn } from '../plan/order-by-all.js';
import { isStringLike, type TableWidths } from '../plan/row-width.js';
import { lookupTable } from '../plan/tables.js';
import type { SelectStatement } from '../sql/ast.js';
import type { ShardInvoker } from './invoker.js';
import { createShardReadAccess } from './shard-read-access.js';

interface Entry<T> {
  at: number;
  value: Promise<T>;
  /** The value once read. */
  settled?: T;
  /** The entry's value before this read, while it runs (for a hint that may be a little old). */
  stale?: T;
}

export interface TableColumns {
  entries: BoundedCache<string, Entry<TableColumn[]>>;
  /** Each table's columns with its String columns' measured mean length (query-then-fetch's estimate). */
  widths: BoundedCache<string, Entry<TableWidths>>;
  /** How long a table's columns are trusted before they are read again. */
  ttlMs: number;
}

export function createTableColumns(ttlMs = 60_000, maxTables = 256): TableColumns {
  return { entries: new BoundedCache(maxTables), widths: new BoundedCache(maxTables), ttlMs };
}

/** The shards asked in turn, until one answers (every shard holds the same DDL; the startup check says so). */
function shardAccesses(topo: Topology, invoker: ShardInvoker): ClickHouseAccess[] {
  return topo.shards.map((s, shard) => createShardReadAccess({ invoker, shard, replicas: s.replicas.map((_, i) => i), timeoutMs: 5_000 }));
}

async function readFromAnyShard<T>(
  topo: Topology,
  invoker: ShardInvoker,
  distributed: string,
  what: string,
  read: (access: ClickHouseAccess, local: string) => Promise<T>,
): Promise<T> {
  const local = lookupTable(topo, distributed)!.local;
  const failures: string[] = [];
  for (const access of shardAccesses(topo, invoker)) {
    try {
      return await read(access, local);
    } catch (e) {
      failures.push(`${access.describe}: ${(e as Error).message}`);
    }
  }
  throw new ScatterError('SHARD_ERROR', `the ${what} of ${distributed} could not be read from any shard: ${failures.join('; ')}`);
}

/**
 * A table's entry, read again once older than the cache's life; a read that fails is forgotten.
 * `staleWhileReading`: the value before a re-read, while it runs, rather than a wait for it.
 */
function cached<T>(
  cache: BoundedCache<string, Entry<T>>,
  table: string,
  ttlMs: number,
  now: number,
  read: () => Promise<T>,
  staleWhileReading = false,
): Promise<T> {
  let entry = cache.get(table);
  if (!entry || now - entry.at > ttlMs) {
    const stale = entry?.settled ?? entry?.stale;
    const fresh: Entry<T> = { at: now, value: read(), ...(stale !== undefined ? { stale } : {}) };
    fresh.value.then(
      (v) => {
        fresh.settled = v;
      },
      () => {
        if (cache.get(table) === fresh) cache.delete(table);
      },
    );
    cache.set(table, fresh);
    entry = fresh;
  }
  const known = entry.settled ?? (staleWhileReading ? entry.stale : undefined);
  return known !== undefined ? Promise.resolve(known) : entry.value;
}

const columnsOf = (deps: { topo: Topology; invoker: ShardInvoker }, cache: TableColumns, table: string, now: number): Promise<TableColumn[]> =>
  cached(cache.entries, table, cache.ttlMs, now, () => readFromAnyShard(deps.topo, deps.invoker, table, 'columns', describeColumns));

/** A distributed table's columns and its String columns' mean length, from a shard or the cache (the last ones while they are read again). */
export function tableWidths(deps: { topo: Topology; invoker: ShardInvoker; now?: () => number }, cache: TableColumns, table: string): Promise<TableWidths> {
  const now = (deps.now ?? Date.now)();
  return cached(
    cache.widths,
    table,
    cache.ttlMs,
    now,
    async () => {
      const columns = await columnsOf(deps, cache, table, now);
      const strings = columns.filter((c) => isStringLike(c.type)).map((c) => c.name);
      const measured = await readFromAnyShard(deps.topo, deps.invoker, table, 'string widths', (access, local) => measureStringWidths(access, local, strings));
      return { columns, measured };
    },
    true,
  );
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
  external?: ExternalColumns,
  settings?: Record<string, SettingValue>,
): Promise<Expanded> {
  const tables = tablesNeedingColumns(stmt, deps.topo);
  const cache = deps.tableColumns;
  const orderByAll = orderByAllOn(stmt, settings);
  // Without columns to read, only what needs none (GROUP BY ALL over listed columns) is spelled out.
  if (!tables.length || !cache) return { statement: expandColumns(stmt, deps.topo, () => undefined, external, orderByAll), tables: [] };
  const now = (deps.now ?? Date.now)();
  const known = new Map<string, TableColumn[]>();
  for (const t of tables) known.set(t, await columnsOf(deps, cache, t, now));
  return { statement: expandColumns(stmt, deps.topo, (t) => known.get(t), external, orderByAll), tables };
}

/** A shard's "unknown column" (47) for a statement spelled from cached columns: those are read again next time. */
export function forgetOnUnknownColumn(e: unknown, expanded: Expanded, cache: TableColumns | undefined): boolean {
  const code = e instanceof ScatterError ? (e.details?.clickhouse as { code?: number } | undefined)?.code : undefined;
  if (code !== 47 || !cache || !expanded.tables.length) return false;
  for (const t of expanded.tables) {
    cache.entries.delete(t);
    cache.widths.delete(t);
  }
  return true;
}
