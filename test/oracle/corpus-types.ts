// One query of the oracle corpus and its flags.

export type Category =
  | 'aggregate'
  | 'combinator'
  | 'expression'
  | 'having'
  | 'order-limit'
  | 'distinct'
  | 'rollup-totals'
  | 'window'
  | 'subquery'
  | 'with'
  | 'union'
  | 'syntax'
  | 'in'
  | 'nulls'
  | 'ties'
  | 'empty'
  | 'empty-shard'
  | 'types'
  | 'plain';

export interface OracleQuery {
  /** Unique, stable: `<category>/<what>`. */
  id: string;
  category: Category;
  /** Over the Distributed names (oracle.events_dist, oracle.users_dist, analytics.sensor_events_dist). */
  sql: string;
  /** The query has a total ORDER BY: rows compare in order. Otherwise as a multiset. */
  ordered?: boolean;
  /**
   * What ClickHouse 18.16 lacks for this query (checked by running it there: corpus-18.test.ts).
   * Empty or absent: the query runs on 18.16 with the same tables.
   */
  needs?: string[];
  /**
   * The answer depends on which shard holds which row (a local IN over a table sharded on the same
   * key, or a key predicate that lets shards be skipped): right under the router's placement, not
   * under an arbitrary split (test/support/oracle-splits.ts), so a random-split suite leaves it out.
   */
  placementDependent?: string;
  /**
   * 18.16 runs the query on one node but its Distributed engine cannot (an 18.16 defect, named here):
   * left out of the comparison with 18.16's own Distributed tables.
   */
  notDistributed18?: string;
  /**
   * Floats compare within this relative tolerance instead of exactly, with the reason. Only for
   * results that depend on the order in which float terms are added or merged, which differs between
   * one node and any split into shards (ClickHouse's own Distributed answer varies the same way).
   * Rows of an unordered tolerant query must differ in some non-float column.
   */
  tolerance?: { rel: number; why: string };
}
