// The general (two-stage) path's plan: what the shards compute, and what one ClickHouse engine
// computes over their answers. This mirrors ClickHouse's own Distributed plan: every shard runs the
// query up to "with mergeable state" (group keys plus aggregate states, or the rows of a
// non-aggregating query with ORDER BY/LIMIT pushed down), and the initiator runs the rest
// (the -Merge of the states, then expressions, HAVING, window functions, ORDER BY, LIMIT BY,
// LIMIT, ROLLUP/CUBE/TOTALS). Here the "initiator" is a ClickHouse engine reached through one
// shard function (docs/architecture.md#two-stage-execution).
import type { SelectQuery } from '../../sql/ast.js';
import type { GroupByNoMerge } from '../settings.js';

/**
 * One distributed read of the query. Each shard runs `query` (renamed, pruned and skipped by the
 * ordinary per-shard rewrite, like any other SELECT) and its rows become the final stage's table
 * `name`, with the column names and types the shards report.
 */
export interface StageLeaf {
  /** The final stage reads the leaf as this (temporary) table: `_stage0`, `_stage1`, ... */
  name: string;
  /** The first stage, over the DISTRIBUTED table (the per-shard rewrite renames it). No FORMAT, no SETTINGS. */
  query: SelectQuery;
  /**
   * 'local': plan the per-shard rewrite with distributed_product_mode = 'local', so the leaf's plain
   * IN subqueries (and JOINs) read each shard's own tables. Set for a local IN (both sides sharded
   * alike: exact, see notes) or when the request asked for 'local'. Absent: the request's mode.
   */
  distributedProductMode?: 'local';
  /**
   * An aggregation without GROUP BY: each shard answers one row (none under the empty-shard guard).
   * The runtime may then carry it in RowBinary, which has no row delimiter to count by.
   */
  oneRowPerShard?: true;
}

/*
 * Running a plan (what the planner's tests do, test/oracle/two-stage-plan-runner.ts):
 * - each leaf through the ordinary per-shard rewrite with a PASS-THROUGH split (planQueryWith; the
 *   fast path's aggregate split would split the states again), honouring distributedProductMode;
 * - the shards answer FORMAT TabSeparatedWithNamesAndTypes; the two header lines are TabSeparated-escaped
 *   too (a type DateTime('Europe/Berlin') arrives with backslash-escaped quotes): unescape names AND types;
 * - the bodies (headers stripped) concatenate in any order into the stage table `name`;
 * - a leaf column may be LowCardinality(UInt8) (a CASE over a LowCardinality column): creating such a
 *   stage table needs allow_suspicious_low_cardinality_types;
 * - chdb 3.4 writes FORMAT JSON of an empty result WITH TOTALS out of order (parseJsonBody in
 *   test/support/json-engine/json-engine.ts puts it back); a server writes it well.
 */
export interface TwoStagePlan {
  leaves: StageLeaf[];
  /**
   * The final stage: one SELECT (or UNION) over the leaves' tables, printed, without FORMAT. Its
   * output column names are the names ClickHouse gives the original query's columns.
   */
  finalSql: string;
  /**
   * The answer's column names where the final stage's differ: two different columns ClickHouse names
   * alike, which the final stage names by distinct aliases (one alias cannot name two expressions).
   */
  answerNames?: string[];
  /** For /explain: one line per decision (which aggregates travel as states, what runs where, local IN). */
  notes: string[];
}

/** What the request's settings ask of the plan. */
export interface TwoStageOptions {
  /** As ClickHouse's distributed_product_mode, for plain IN / JOIN over another distributed table that is not a local IN. */
  distributedProductMode?: 'deny' | 'local' | 'global';
  /** distributed_group_by_no_merge (1 or 2): every distributed SELECT is cut unmerged (cut-unmerged.ts). */
  groupByNoMerge?: GroupByNoMerge;
  /** The request's external data, by name: the final stage may read them too (they travel with it). */
  external?: ReadonlySet<string>;
}
