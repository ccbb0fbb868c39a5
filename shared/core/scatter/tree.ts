// The aggregation tree for large clusters (as Lambada's invocation tree and Thanos's stacked
// queriers). Above topo.query.treeFanoutAbove queried shards the
// coordinator does not invoke every shard itself: it splits them into contiguous groups of at most
// `fanout` shards and invokes one SUB-coordinator per group (the coordinator function again, with
// a TreeRequest). Each sub-coordinator runs the ordinary scatter runtime (gather: limiter, hedging,
// retries) on its subset under the root's absolute deadline and answers with the subset's
// partials pre-merged (tree-premerge.ts) or relayed. The root folds those answers into the plan's
// own merger, so finalize, HAVING, ORDER BY and LIMIT are unchanged, and reports every shard's
// outcome as if it had asked it directly (a failed sub-coordinator makes its shards missing).
// Root cost: O(groups) invocations and O(groups x groups-per-answer) merge work instead of
// O(shards); the per-shard invocation CPU moves into the sub-coordinators, which in AWS are
// separate Lambda environments.
import type { Topology } from '../config/schema.js';
import type { QueryPlan, ShardPlan } from '../plan/types.js';
import type { ShardInvoker } from './invoker.js';
import type { Limiter } from './fanout.js';
import { createLimiter } from './fanout.js';
import { classifyFailure, type ShardOutcome, type MissingReason } from './call-shard.js';
import { gather, missingOf, type GatherInput, type GatherResult, type MergeSpan } from './gather.js';
import type { HedgeState } from './hedge.js';
import { openFanOut } from './shard-fanout.js';
import { PremergeMerger, RelayMerger, premergeSpec } from './tree-premerge.js';
import type { TreeRequest, TreeResponse, TreeShardOutcome, TreeShardTask } from '../protocol/tree-wire.js';

/** The port to sub-coordinators (shared/adapters/aws/tree-lambda-invoker.ts over the Lambda SDK; in-process in tests). */
export interface TreeInvoker {
  invoke(group: number, req: TreeRequest, signal: AbortSignal): Promise<TreeResponse>;
}

/** Use the tree for this many queried shards? (treeFanoutAbove = 0 means never.) */
export function useTree(topo: Topology, queriedShards: number): boolean {
  const above = topo.query.treeFanoutAbove;
  return above > 0 && queriedShards > above;
}

/**
 * Split shards into ceil(n / fanout) contiguous groups whose sizes differ by at most one, in
 * order: every shard in exactly one group, no group larger than fanout.
 */
export function treeGroups<T>(shards: readonly T[], fanout: number): T[][] {
  if (!(fanout >= 1)) throw new Error(`tree fanout must be >= 1, got ${fanout}`);
  const n = shards.length;
  if (n === 0) return [];
  const k = Math.ceil(n / fanout);
  const base = Math.floor(n / k);
  const extra = n % k;
  const out: T[][] = [];
  let at = 0;
  for (let g = 0; g < k; g++) {
    const size = base + (g < extra ? 1 : 0);
    out.push(shards.slice(at, at + size));
    at += size;
  }
  return out;
}

export interface SubCoordinatorDeps {
  topo: Topology;
  invoker: ShardInvoker;
  hedgeState: HedgeState;
  now?: () => number;
  limiter?: Limiter;
}

/** A sub-coordinator: fan out to the request's shards, answer with their (pre-)merged partials. */
export async function runSubCoordinator(req: TreeRequest, deps: SubCoordinatorDeps): Promise<TreeResponse> {
  const now = deps.now ?? Date.now;
  const t0 = now();
  const c0 = process.cpuUsage();
  const tasks = new Map(req.tasks.map((t) => [t.shard, t]));
  const spec = req.premerge && req.tasks[0] ? premergeSpec(req.tasks[0].sql) : undefined;
  let merger: PremergeMerger | RelayMerger | undefined;
  const shards: ShardPlan[] = deps.topo.shards.map((_, i) => {
    const task = tasks.get(i);
    if (!task) return { shard: i, skipped: true, external: [] };
    const shardPlan: ShardPlan = { shard: i, skipped: false, sql: task.sql, external: task.external };
    if (task.externalOverrides) shardPlan.externalOverrides = task.externalOverrides;
    return shardPlan;
  });
  for (const s of tasks.keys())
    if (s < 0 || s >= deps.topo.shards.length) throw new Error(`tree request names shard ${s}; the topology has ${deps.topo.shards.length}`);
  const plan: QueryPlan = {
    statement: { kind: 'select', distinct: false, columns: [], withTotals: false },
    tables: [],
    shards,
    external: req.external,
    settings: req.settings,
    createMerger: () => (merger = spec ? new PremergeMerger(spec) : new RelayMerger()),
    mergeDescription: 'sub-coordinator',
    truncated: [],
  };
  const gathered = await gather({
    plan,
    topo: deps.topo,
    invoker: deps.invoker,
    queryId: req.queryId,
    deadlineAt: req.deadline,
    now,
    hedge: req.hedge,
    state: deps.hedgeState,
    limiter: deps.limiter ?? createLimiter(deps.topo.query.maxConcurrency),
  });
  const subMerger = merger!;
  const cpu = process.cpuUsage(c0);
  return {
    ok: true,
    group: req.group,
    mode: subMerger.mode,
    parts: subMerger.parts(),
    outcomes: gathered.outcomes.map(toTreeOutcome),
    statistics: { elapsedMs: now() - t0, cpuMs: (cpu.user + cpu.system) / 1000 },
  };
}

function toTreeOutcome(o: ShardOutcome): TreeShardOutcome {
  const t: TreeShardOutcome = {
    shard: o.shard,
    status: o.status,
    replica: o.replica,
    elapsedMs: o.elapsedMs,
    hedged: o.hedged,
    retried: o.retried,
    rowsRead: o.response?.statistics.rowsRead ?? 0,
    bytesRead: o.response?.statistics.bytesRead ?? 0,
    attempts: o.attempts.length,
  };
  if (o.message !== undefined) t.message = o.message;
  if (o.chCode !== undefined) t.chCode = o.chCode;
  if (o.code !== undefined) t.code = o.code;
  return t;
}

function fromTreeOutcome(t: TreeShardOutcome): ShardOutcome {
  const o: ShardOutcome = { shard: t.shard, status: t.status, replica: t.replica, elapsedMs: t.elapsedMs, hedged: t.hedged, retried: t.retried, attempts: [] };
  if (t.message !== undefined) o.message = t.message;
  if (t.chCode !== undefined) o.chCode = t.chCode;
  if (t.code !== undefined) o.code = t.code;
  if (t.status === 'ok') {
    o.response = {
      ok: true,
      shard: t.shard,
      replica: t.replica,
      meta: [],
      rows: [],
      statistics: { elapsedMs: t.elapsedMs, rowsRead: t.rowsRead, bytesRead: t.bytesRead },
    };
  }
  return o;
}

export interface TreeGatherInput extends GatherInput {
  tree: TreeInvoker;
  /** Shards per sub-coordinator (default topo.query.treeFanoutAbove). */
  fanout?: number;
  /** Called once per sub-coordinator answer (bench/logs). */
  onGroup?(r: TreeResponse | { group: number; error: string }): void;
}

/** gather() through sub-coordinators: the same GatherResult, so run-query can use either. */
export async function gatherTree(input: TreeGatherInput): Promise<GatherResult> {
  const { plan, topo, now } = input;
  const fanout = input.fanout ?? topo.query.treeFanoutAbove;
  const merger = plan.createMerger();
  const skipped = plan.shards.filter((s) => s.skipped);
  const queried = plan.shards.filter((s) => !s.skipped);
  const groups = treeGroups(queried, fanout);
  const premerge = queried[0]?.sql !== undefined && premergeSpec(queried[0].sql) !== undefined;
  // Its shards' outcomes are reported once every group has answered, in shard order.
  const fan = openFanOut({ ...input, limiter: input.limiter ?? createLimiter(topo.query.maxConcurrency), onShard: undefined });
  const outcomes: ShardOutcome[] = [];
  const merges: MergeSpan[] = [];
  let mergeError: unknown;
  try {
    await Promise.all(
      groups.map(async (group, gi) => {
        const tasks: TreeShardTask[] = group.map((shardPlan) => {
          if (shardPlan.sql === undefined) throw new Error(`plan for shard ${shardPlan.shard} has no SQL`);
          const t: TreeShardTask = { shard: shardPlan.shard, sql: shardPlan.sql, external: shardPlan.external };
          if (shardPlan.externalOverrides) t.externalOverrides = shardPlan.externalOverrides;
          return t;
        });
        const needed = new Set(group.flatMap((shardPlan) => shardPlan.external));
        const req: TreeRequest = {
          type: 'tree',
          queryId: input.queryId,
          group: gi,
          deadline: input.deadlineAt,
          settings: plan.settings,
          external: plan.external.filter((t) => needed.has(t.name)),
          hedge: input.hedge,
          tasks,
          premerge,
        };
        const started = now();
        /** A shard of this group with no outcome of its own: the group failed, or forgot it. */
        const groupMissing = (shard: number, status: MissingReason, message: string): ShardOutcome => {
          const end = now();
          return {
            shard,
            status,
            replica: 0,
            elapsedMs: end - started,
            startedAt: started,
            endedAt: end,
            hedged: false,
            retried: false,
            attempts: [],
            message,
          };
        };
        let res: TreeResponse;
        try {
          res = await input.tree.invoke(gi, req, fan.signal);
        } catch (e) {
          const failure =
            fan.signal.aborted && !fan.stopped.aborted
              ? { status: 'timeout' as const, message: 'sub-coordinator did not answer before the deadline' }
              : classifyFailure(e);
          const status: MissingReason = failure.status === 'aborted' ? 'timeout' : failure.status;
          input.onGroup?.({ group: gi, error: failure.message });
          for (const shardPlan of group) outcomes.push(groupMissing(shardPlan.shard, status, `sub-coordinator ${gi}: ${failure.message}`));
          return;
        }
        input.onGroup?.(res);
        const answeredAt = now();
        if (mergeError === undefined) {
          try {
            for (const part of res.parts) merger.add(part.shard, part.rows, part.meta);
          } catch (e) {
            mergeError = e;
            fan.stop(e);
          }
          merges.push({ group: gi, startedAt: answeredAt, endedAt: now() });
        }
        const asked = new Set(group.map((shardPlan) => shardPlan.shard));
        // The sub-coordinator's own clock is another machine's: the root sees the group's span only.
        for (const t of res.outcomes) if (asked.has(t.shard)) outcomes.push({ ...fromTreeOutcome(t), startedAt: started, endedAt: answeredAt });
        // A sub-coordinator that forgot a shard must not make it vanish from the report.
        const answered = new Set(res.outcomes.map((t) => t.shard));
        for (const shardPlan of group) {
          if (!answered.has(shardPlan.shard))
            outcomes.push(groupMissing(shardPlan.shard, 'error', `sub-coordinator ${gi} did not report shard ${shardPlan.shard}`));
        }
      }),
    );
    outcomes.sort((a, b) => a.shard - b.shard);
    if (mergeError !== undefined) {
      input.spentOnRefusal?.push(...outcomes);
      throw mergeError;
    }
    for (const o of outcomes) input.onShard?.(o);
    return { merger, outcomes, missing: missingOf(outcomes), skipped, merges };
  } finally {
    fan.close();
  }
}
