// The split of one SELECT into what every shard runs and what the coordinator does with the
// answers (partials, merged on arrival, finalized once). Merges are associative and
// commutative, so arrival order never changes the result.
import type { SelectQuery } from '../sql/ast.js';
import type { ColumnMeta } from '../clickhouse/port.js';

export interface SplitContext {
  /** Sharding-key column of the queried table: groups that include it cannot span shards. */
  shardingKeyColumn?: string;
  shardCount: number;
  shardSizeFactor: number; // top-k: each shard is asked for n * factor + add groups
  shardSizeAdd: number;
  cursor?: string;
  /** The coordinator's cursor signing key (cursor.ts); absent: the process's own. */
  cursorKey?: Buffer;
  /** Cap on distinct-set sizes and rows held by the merger (transfer limits). */
  maxRowsToTransfer: number;
  /**
   * transfer_overflow_mode: 'throw' (default) fails with TRANSFER_LIMIT past maxRowsToTransfer;
   * 'break' keeps what fits and reports it in FinalResult.truncated (the answer is partial).
   */
  transferOverflowMode?: 'throw' | 'break';
  /**
   * `ORDER BY <count> DESC LIMIT n` over groups that span shards: 'shard_size' (absent: the same)
   * pushes the limit down approximately (Elasticsearch's shard_size, with its error bound);
   * 'refuse' refuses it here (UNSUPPORTED), so the general path answers it exactly;
   * 'every_group' answers it exactly here, every group transferred (no push-down). The planner
   * picks from the request's ch_scatter_top_count and whether a general path is there to take it.
   */
  topCount?: 'shard_size' | 'refuse' | 'every_group';
  /**
   * Aggregates the fast path computes with a sketch of its own (HyperLogLog for uniq, DDSketch for
   * quantile): 'use' (absent: the same) answers with the sketch, labelled approximate; 'refuse' refuses
   * them (UNSUPPORTED), so the general path merges ClickHouse's own states and answers as ClickHouse does.
   */
  sketches?: 'use' | 'refuse';
  /** The query's WHERE ends with query-then-fetch's bound (PlanOptions.queryThenFetchBound): its cursor's shape leaves it out. */
  queryThenFetchBound?: boolean;
  /**
   * distributed_group_by_no_merge (1 or 2): the shards' answers unmerged. The coordinator's merge
   * cannot give them, so the split refuses (UNSUPPORTED) and the general path answers.
   */
  unmerged?: 1 | 2;
  /** extremes = 1: the min and max rows of the answer, which the general path's final stage computes; the split refuses. */
  extremes?: true;
  /**
   * Row queries: columns that identify a row uniquely, used to break ORDER BY ties (and in
   * cursors). Absent: every selected column (SELECT * then has no tie-breaker and no cursor).
   */
  tieBreaker?: string[];
  /**
   * Columns the query reads from a shipped JOIN table (`r.a`, or unqualified `a`) whose values ClickHouse refuses as
   * a sort key (a Dynamic value: 44): the shards' tie-breaker leaves them out, as it leaves out an untyped JSON path.
   */
  unsortable?: ReadonlySet<string>;
  /**
   * HyperLogLog partial encoding: 'uniqArray' (default: groupUniqArray of register*64+rho, works on
   * every server including 18.16; up to ~4096 * 12 values per group at millions of distinct values)
   * or 'maxMap' (ClickHouse >= 20 only: at most 4096 registers per group). Same estimate either way.
   */
  hllEncoding?: 'maxMap' | 'uniqArray';
  /**
   * topK partial encoding: 'hashed' (default: counts per cityHash64 of the value, portable to 18.16
   * for every value type) or 'sumMap' (sumMap over the values: numeric values only on 18.16).
   */
  topkEncoding?: 'hashed' | 'sumMap';
}

export interface SplitQuery {
  /** The query every shard runs (still naming the distributed table; the planner renames it). */
  shardQuery: SelectQuery;
  createMerger(): Merger;
  describe: string;
}

/** How an approximate column is approximate (the answer's `approximate`, docs/api.md#post-query). */
export interface ApproximateInfo {
  method: string; // 'hll' | 'ddsketch' | 'topk-shard-size' ...
  relativeStdError?: number; // hll
  relativeError?: number; // ddsketch: every quantile within this relative error
  errorUpperBound?: number | string; // top-k: doc_count_error_upper_bound, overall
  perRowErrorUpperBound?: (number | string)[];
}

export interface FinalResult {
  meta: ColumnMeta[];
  data: Record<string, unknown>[];
  approximate?: Record<string, ApproximateInfo>;
  cursor?: string;
  /**
   * transfer_overflow_mode = 'break' cut the shards' data (one line each). When present and
   * non-empty the answer is incomplete: the runtime must label it partial, never complete.
   */
  truncated?: string[];
}

export interface Merger {
  /** Fold one shard's partial rows as they arrive. */
  add(shard: number, rows: Record<string, unknown>[], meta: ColumnMeta[]): void;
  /** Finish: avg = sum / count, sketches to numbers, HAVING, ORDER BY, LIMIT, error bounds. */
  finalize(opts?: FinalizeOptions): FinalResult;
}

export interface FinalizeOptions {
  /**
   * Strings keep the bytes they stand for (surrogate escapes) instead of the API's U+FFFD: rows that
   * go back to an engine (a GLOBAL set, a scalar's value), where two values differing only there differ.
   */
  exactStrings?: boolean;
}
