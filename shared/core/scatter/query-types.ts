// The types the query runtime's parts share: what a request runs with (RunDeps), the JSON API's
// answer and its statistics, and what the general path's stages hand back. A module of their own,
// so run-query.ts, tput/ and two-stage/ need not import each other for them.
import type { ColumnMeta } from '../clickhouse/port.js';
import type { Topology } from '../config/schema.js';
import type { ApproximateInfo } from '../partials/types.js';
import type { QueryThenFetchInfo } from '../plan/query-then-fetch.js';
import type { TopCountInfo } from '../plan/tput/describe.js';
import type { PlanOptions, QueryPlan } from '../plan/types.js';
import type { SelectStatement } from '../sql/ast.js';
import type { ShardOutcome } from './call-shard.js';
import type { Deadline } from './deadline.js';
import type { MissingShard } from './gather.js';
import type { HedgeState } from './hedge.js';
import type { ShardInvoker } from './invoker.js';
import type { ExchangeCleaner } from '../shard/exchange.js';
import type { AttemptStat, CoordinatorSpan, SkippedShardStat } from './timeline-stats.js';
import type { TreeInvoker } from './tree.js';
import type { TableColumns } from './table-columns.js';
import type { TopCountMemory } from './tput/memory.js';
import type { StatisticsCache } from './table-statistics.js';
import type { FinalStageResult } from './two-stage/final-stage.js';
import type { TwoStagePlanner } from './two-stage/path.js';
import type { StageOneResult } from './two-stage/stage-one.js';

export type PlanFn = (input: string | SelectStatement, topo: Topology, opts: PlanOptions) => Promise<QueryPlan>;

export interface RunDeps {
  topo: Topology;
  invoker: ShardInvoker;
  planQuery: PlanFn;
  /** /explain: the explain answer for a plan (docs/api.md#post-explain). */
  explainPlan?: (plan: QueryPlan) => unknown;
  hedgeState: HedgeState;
  /** What TPUT's pre-pass remembers between queries (tput/memory.ts); absent: nothing past the request. */
  topCountMemory?: TopCountMemory;
  /** The cursor signing key every coordinator of the deployment shares; absent: the process's own. */
  cursorKey?: Buffer;
  /** Per-shard table statistics this coordinator keeps (table-statistics.ts); absent: no statistics pruning or coverage. */
  statistics?: StatisticsCache;
  /** The distributed tables' columns this coordinator has read (table-columns.ts); absent: `*` is spelled out nowhere. */
  tableColumns?: TableColumns;
  /** Deletes a query's exchange objects when it ends; absent: they wait for the bucket's expiry. */
  exchange?: ExchangeCleaner;
  queryId: string;
  now?: () => number;
  /** When the request arrived (epoch ms, the clock of `now`): the deadline counts from here. */
  arrivedAt?: number;
  /** context.getRemainingTimeInMillis() at arrival, when in Lambda. */
  lambdaRemainingMs?: number;
  /** false for scheduled runs (no API Gateway in front). */
  behindApiGateway?: boolean;
  onShard?: (o: ShardOutcome) => void;
  /** Log hook for failures the client only sees as INTERNAL. */
  onInternalError?: (e: unknown) => void;
  /** Sub-coordinators (shared/core/scatter/tree.ts): used above topo.query.treeFanoutAbove queried shards. */
  tree?: TreeInvoker;
  /** The general (two-stage) path's planner; without it only the fast path answers (docs/api.md#choosing-the-path). */
  planTwoStage?: TwoStagePlanner;
}

/**
 * How much of a table's rows an answer covers: the rows of the shards that answered over the rows of
 * every shard asked, from the shards' statistics (their counts). `share` is absent when a count is
 * unknown (no statistics configured, or a shard's could not be read): `unknown` says which.
 */
export interface TableCoverage {
  table: string;
  share?: number;
  rowsAnswered?: string;
  rowsAsked?: string;
  unknown?: string;
}

/** A shard whose cursor page was read from another replica than the earlier pages (pinned-paging.ts). */
export interface ReplicaChange {
  shard: number;
  pinned: number;
  read: number;
  reason: string;
}

export interface ShardsSummary {
  total: number;
  queried: number;
  skipped: number;
  succeeded: number;
  failed: number;
  timedOut: number;
  hedged: number;
  missing: MissingShard[];
}

export interface ShardStat {
  shard: number;
  replica: number;
  elapsedMs: number;
  status: ShardOutcome['status'];
  hedged: boolean;
  retried: boolean;
  rowsRead: number;
  bytesRead: number;
  /** When the shard was first asked and when its outcome settled, in ms from the query's start. */
  startMs?: number;
  endMs?: number;
  /** Each invocation (primary, hedge, retry), in the order they started. */
  attempts: AttemptStat[];
  /** General path: the leaf of the two-stage plan this request ran. */
  leaf?: string;
}

export interface QueryResponse {
  meta: ColumnMeta[];
  data: Record<string, unknown>[];
  rows: number;
  partial: boolean;
  shards: ShardsSummary;
  approximate?: Record<string, ApproximateInfo>;
  cursor?: string;
  /** Cursor pages: the shards this page read from another replica than the earlier pages, and why. */
  replicaChanged?: ReplicaChange[];
  /** GLOBAL IN / JOIN data cut by transferOverflowMode 'break': the answer is partial. */
  truncated?: string[];
  /** The share of each table's rows the shards that answered hold (completeness.ts): on every partial answer, and wherever statistics are known. */
  coverage?: TableCoverage[];
  /** The seeds drawn for generateRandom() calls written without one, in the order they appear: give them to repeat the answer. */
  randomSeeds?: string[];
  /** Which path answered: 'fast' (the coordinator's merge) or 'general' (two stages, a final stage on a shard's engine). */
  path?: 'fast' | 'general';
  /** WITH TOTALS (general path): the totals row, where ClickHouse's JSON puts it. */
  totals?: Record<string, unknown>;
  /** extremes = 1 (general path): min and max rows, as in ClickHouse's JSON. */
  extremes?: { min: Record<string, unknown>; max: Record<string, unknown> };
  /** A top count over groups that span shards: how it was answered (TPUT's rounds, every group, shard_size). */
  topCount?: TopCountInfo;
  /** A wide top-k asked for in two rounds (ch_scatter_query_then_fetch): whether round two ran, and round one's size. */
  queryThenFetch?: QueryThenFetchInfo;
  statistics: {
    elapsedMs: number;
    rowsRead: number;
    bytesRead: number;
    deadlineMs: number;
    deadlineLimitedBy: Deadline['limitedBy'];
    shards: ShardStat[];
    /** Where the deadline fell, in ms from the query's start. */
    deadlineAtMs: number;
    /** The answer was ready this long after the deadline (it is partial then): completeness.ts. */
    lateMs?: number;
    /** Shards the plan did not ask, and why. */
    skipped: SkippedShardStat[];
    /** The coordinator's own work: planning, each merge of a partial, the finalize. */
    coordinator: CoordinatorSpan[];
    /**
     * The shard requests the query's subqueries made while it was planned (a GLOBAL IN or JOIN's rows, a scalar
     * subquery run once, the sharding key's constant operands folded), each with its attempts: absent when none.
     */
    subqueries?: ShardStat[];
    /**
     * The shard requests of a run the answer does not use: the fast path's (and its subqueries') where it refused the
     * query after its shards answered (a value its merge has none for) and the general path answered it. They read rows,
     * so `rowsRead` and `bytesRead` count them; a GLOBAL subquery's fast run refused so too. Absent when none.
     */
    abandoned?: ShardStat[];
    /** General path: when stage one stopped waiting, and where and how the final stage ran. */
    stageOneDeadlineAtMs?: number;
    finalStage?: FinalStageStat;
  };
}

export interface FinalStageStat {
  shard: number;
  replica: number;
  startMs: number;
  endMs: number;
  elapsedMs: number;
  /** Shards asked before the one that answered, and why they did not. */
  failedOver: { shard: number; status: string; message?: string }[];
  /** What it was sent: the leaves' rows and bytes, and the request's size. */
  inputRows: number;
  inputBytes: number;
  requestBytes: number;
  /** Of inputBytes, what the final stage's function read from the exchange (uncompressed), not in the request. */
  exchangedBytes?: number;
  /** The rows the final stage's shard kept from its own stage one (counted in inputRows, not in the bytes). */
  kept?: { shard: number; rows: number };
  /** One shard held every row: it ran both stages in one request (one-shard.ts), nothing was shipped. */
  oneShard?: boolean;
}

/** What running the stages gives the answer and its statistics. */
export interface Stages {
  one: StageOneResult;
  fin: FinalStageResult;
  finalStart: number;
  requestBytes: number;
  exchangedBytes?: number;
  kept?: { shard: number; rows: number };
  oneShard?: boolean;
}
