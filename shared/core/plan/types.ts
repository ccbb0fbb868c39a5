// What the planner hands the scatter runtime: one ShardPlan per configured shard (skipped or
// not), the data to ship, and the merger that folds the shards' partials.
import type { SelectStatement, SelectQuery } from '../sql/ast.js';
import type { ColumnMeta, ExternalTable, SettingValue } from '../clickhouse/port.js';
import type { Merger } from '../partials/types.js';
import type { StatisticsSource, TableStatistics } from './statistics.js';
import type { ReadBackColumn } from './read-back.js';

export interface ShardPlan {
  shard: number; // 0-based
  skipped: boolean;
  /** Why the shard is skipped, e.g. "no value of sensor IN ('a') lives on this shard". */
  reason?: string;
  /** The shard-local SQL (present when not skipped). */
  sql?: string;
  /** Names of the external tables this shard's query reads (subset of QueryPlan.external). */
  external: string[];
  /** Per-shard copies of shipped data when pruning narrowed a shipped set for this shard. */
  externalOverrides?: ExternalTable[];
}

export interface ResolvedTable {
  distributed: string; // db.table as queries name it
  local: string; // db.table on every shard
}

export interface QueryPlan {
  statement: SelectStatement; // as parsed
  tables: ResolvedTable[]; // every distributed table the query reads
  shards: ShardPlan[];
  external: ExternalTable[];
  /** Settings forwarded to every shard query: allow-listed, initiator-only ones removed. */
  settings: Record<string, SettingValue>;
  /** A fresh merge accumulator for this query (merge on arrival, then finalize). */
  createMerger(): Merger;
  /** Human-readable description of the merge and finalize steps (for /explain). */
  mergeDescription: string;
  /**
   * Shipped data cut short by transfer_overflow_mode = 'break' (one line each). When non-empty
   * the runtime must label the answer partial, never complete.
   */
  truncated: string[];
  /** Names of external tables that were not run because no runSubquery was given (explain only). */
  unmaterialized?: string[];
  /** The main table's per-shard statistics, when configured and given: the answer's coverage is counted from them. */
  statistics?: TableStatistics;
}

/**
 * Runs a GLOBAL IN / GLOBAL JOIN right-hand side or a scalar subquery once on the coordinator (may
 * itself scatter). With `bytes` the runner may answer the engine's own rows instead (`tsv`), where an
 * engine rendered them: exact for every type, aggregate states included. `positional`: the answer is read by
 * position (an IN set, a scalar), so its columns' names need not be ClickHouse's.
 */
export type SubqueryRunner = (query: SelectStatement, want?: { bytes?: boolean; positional?: boolean }) => Promise<SubqueryAnswer>;

export interface SubqueryAnswer {
  meta: ColumnMeta[];
  /** The rows as JSON values; empty when `tsv` carries them. */
  rows: Record<string, unknown>[];
  /** The rows as the engine wrote them in TabSeparated (each ending in a newline), and how many. */
  tsv?: { body: Buffer; rows: number };
  /** How the shards read `tsv` back, one entry per column of `meta` (states turned back into values, two columns of one name). */
  readBack?: ReadBackColumn[];
}

export interface PlanOptions {
  /** Request settings (the request's `settings`) plus those of the SQL SETTINGS clause are merged here. */
  settings?: Record<string, SettingValue>;
  /** Like force_optimize_skip_unused_shards: fail with UNABLE_TO_SKIP_SHARDS when pruning cannot engage. */
  forceSkipUnusedShards?: boolean;
  distributedProductMode?: 'deny' | 'local' | 'global';
  cursor?: string;
  /** The coordinator's cursor signing key; absent: the process's own. */
  cursorKey?: Buffer;
  /**
   * An exact `ORDER BY count() DESC LIMIT n` over groups that span shards, on this (fast) path:
   * 'general' refuses it as UNSUPPORTED so the general path answers it; 'every-group' (default)
   * answers it here with every group (no general path, or the fast path forced).
   */
  exactTopCount?: 'general' | 'every-group';
  /**
   * The statement's WHERE ends with query-then-fetch's bound (AND-ed last): the answer's cursor is
   * bound to the query without it, which is what the next page asks for.
   */
  queryThenFetchBound?: boolean;
  /** Values of the query's `{name:Type}` parameters (bind-params.ts binds them before planning). */
  params?: Readonly<Record<string, string | number | boolean | null>>;
  /** Needed only when the query has GLOBAL subqueries; absent = plan without running them (explain may pass one). */
  runSubquery?: SubqueryRunner;
  /** Per-shard statistics of the tables that configure them: shards a range predicate cannot match are skipped (statistics.ts). */
  statistics?: StatisticsSource;
  /**
   * The request's external data, parsed, by the names the statement reads (marked by external-tables.ts):
   * shipped to every shard under the transfer limits, as GLOBAL data is.
   */
  external?: readonly ExternalTable[];
}

export type { SelectQuery };
