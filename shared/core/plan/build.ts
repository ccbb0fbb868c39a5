// The planning pipeline itself (index.ts binds it to the real aggregate split).
// Steps of the planner: one SELECT over a Distributed table -> one ShardPlan per configured shard
// (as ClickHouse's Distributed engine rewrites a query for each shard). Steps, one module each:
//   parse (shared/core/sql) -> analyze.ts (tables, refusals, distributed_product_mode)
//   -> settings.ts (merge, strip initiator-only, allowlist, planner knobs)
//   -> globals.ts (GLOBAL IN/JOIN right sides run once, shipped as `_data_<hash>`)
//   -> key-constants.ts (the key's constant operands folded on one engine)
//   -> skip-shards.ts (which shards can hold matching rows)
//   -> splitQuery (shared/core/partials: what each shard computes, how partials merge)
//   -> rename.ts (distributed -> local names, once: it is the same on every shard)
//   -> prune-per-shard.ts (per shard: prune IN on the key, `_shard_num`) -> print.
import type { SelectStatement, SelectQuery } from '../sql/ast.js';
import { parseSelect } from '../sql/parse.js';
import { printExpr, printSelect } from '../sql/print.js';
import type { Topology } from '../config/schema.js';
import { createPlacement, type Placement } from '../sharding/index.js';
import type { SplitContext, SplitQuery } from '../partials/types.js';
import type { ExternalTable } from '../clickhouse/port.js';
import { ScatterError } from '../errors.js';
import type { PlanOptions, QueryPlan, ShardPlan } from './types.js';
import { analyze, columnIsShadowed } from './analyze.js';
import { bindParams } from './bind-params.js';
import { resolveSettings } from './settings.js';
import { checkNestedSettings } from './nested-settings.js';
import { refuseTruncatingModes } from './truncating-modes.js';
import { refuseNegativeLimits } from './limit-check.js';
import { refuseHugeInLists } from './in-list-cap.js';
import { refuseOtherFormats } from './format-check.js';
import { materializeGlobals } from './globals.js';
import { externalOwners, type KeyContext } from './key-context.js';
import { analyzeSkipping } from './skip-shards.js';
import { foldKeyConstants } from './key-constants.js';
import { statisticsApply, statisticsSkipping } from './statistics.js';
import { localNaming, renameMain } from './rename.js';
import { buildShardRewriter } from './prune-per-shard.js';
import { checkReach, shardReach } from './reach-check.js';
import { lookupTable } from './tables.js';

export type Splitter = (q: SelectQuery, ctx: SplitContext) => SplitQuery;

// One Placement per (topology, table): createPlacement loads the hasher once; this keeps a plan
// from rebuilding slots for every query.
const placements = new WeakMap<Topology, Map<string, Promise<Placement>>>();
function placementFor(topo: Topology, table: string): Promise<Placement> {
  let m = placements.get(topo);
  if (!m) {
    m = new Map();
    placements.set(topo, m);
  }
  let p = m.get(table);
  if (!p) {
    const key = Object.entries(topo.tables).find(([k]) => k === table || `default.${k}` === table)?.[1]?.shardingKey;
    if (!key) throw new ScatterError('INTERNAL', `no sharding key for ${table}`);
    p = createPlacement(topo.shards, key);
    m.set(table, p);
  }
  return p;
}

/** planQuery with an explicit aggregate splitter (tests pin the rewrite with a pass-through split). */
export async function planQueryWith(
  input: string | SelectStatement,
  topo: Topology,
  opts: PlanOptions,
  splitter: Splitter,
  internal: { printEachShard?: boolean; mergesInCoordinator?: boolean } = {},
): Promise<QueryPlan> {
  const statement = bindParams(typeof input === 'string' ? parseSelect(input) : input, opts.params);
  refuseNegativeLimits(statement);
  refuseHugeInLists(statement, topo.query.maxInListValues);
  refuseOtherFormats(statement);
  const settingsClause = statement.kind === 'select' ? statement.settings : statement.settings;
  const settings = resolveSettings(opts.settings, settingsClause, topo.query, {
    ...(opts.forceSkipUnusedShards !== undefined ? { forceSkipUnusedShards: opts.forceSkipUnusedShards } : {}),
    ...(opts.distributedProductMode ? { distributedProductMode: opts.distributedProductMode } : {}),
  });
  checkNestedSettings(statement, topo.query);
  if (internal.mergesInCoordinator) refuseTruncatingModes(statement, settings.forward);
  const analysis = analyze(statement, topo, settings.distributedProductMode);
  const placement = await placementFor(topo, analysis.main.distributed);
  const globals = await materializeGlobals(analysis.query, topo, settings, opts.runSubquery, opts.external);

  const shardCount = topo.shards.length;
  const keyCtx: KeyContext = {
    column: analysis.keyColumn,
    type: analysis.keyType,
    naming: analysis.main.naming,
    placement,
    shardCount,
    externalOwners: new Map(),
    memo: new WeakMap(),
  };
  const clientTables = new Set((opts.external ?? []).map((t) => t.name));
  for (const [name, m] of globals.external) {
    // A client's table is read as a whole (FROM, JOIN, IN (SELECT ...)), never as a set on the key.
    if (clientTables.has(name)) continue;
    const owners = externalOwners(m, keyCtx);
    if (owners) keyCtx.externalOwners.set(name, owners);
  }

  // Which shards can hold a matching row.
  // RIGHT/FULL JOIN: unmatched right-side rows carry the key's default value on EVERY shard, so
  // neither skipping nor pruning on the key is safe there.
  const outerRight = (globals.query.from?.joins ?? []).some((j) => j.type === 'RIGHT' || j.type === 'FULL');
  const usable = !analysis.keyShadowed && !outerRight;
  // Constant operands on the key folded by one engine first, as ClickHouse's analyzer folds them.
  if (usable && (settings.skipUnusedShards || settings.rewriteIn)) {
    const constants = await foldKeyConstants(keyCtx, globals.query, { run: opts.runSubquery, settings: settings.forward });
    if (constants) keyCtx.constants = constants;
  }
  const skip = usable && settings.skipUnusedShards ? analyzeSkipping(keyCtx, [globals.query.prewhere, globals.query.where]) : { mask: null, atoms: [] };
  if (settings.forceSkip && !skip.mask) {
    const why = !settings.skipUnusedShards
      ? 'optimize_skip_unused_shards is 0'
      : analysis.keyShadowed
        ? `an alias named ${analysis.keyColumn} hides the sharding key`
        : outerRight
          ? 'a RIGHT or FULL JOIN yields rows with a default key on every shard'
          : `WHERE/PREWHERE has no condition on the sharding key ${analysis.keyColumn} that narrows the shards (key = a constant of its type, key IN (constants), and AND/OR of them)`;
    throw new ScatterError('UNABLE_TO_SKIP_SHARDS', `cannot skip unused shards: ${why} (force_optimize_skip_unused_shards)`);
  }
  let mask = skip.mask;
  // Statistics: shards whose ranges of a configured column no AND-ed range predicate can match.
  const stats = opts.statistics ? await opts.statistics(analysis.main.distributed) : undefined;
  const statsSkipped = new Map<number, string>();
  if (stats && settings.skipUnusedShards) {
    const q = globals.query;
    const columns = statisticsApply(
      q,
      (c) => columnIsShadowed(q, c, analysis.main.naming),
      lookupTable(topo, analysis.main.distributed)?.config.statistics ?? [],
    );
    for (const [s, why] of statisticsSkipping(stats, columns, analysis.main.naming, [q.prewhere, q.where]).skipped) {
      if (mask && mask[s] !== 1) continue;
      mask ??= new Uint8Array(shardCount).fill(1);
      mask[s] = 0;
      statsSkipped.set(s, why);
    }
  }
  // Every shard excluded (e.g. only out-of-range values): one shard still answers, so a query
  // like `SELECT count() ... WHERE key IN (256)` keeps its shape (one row, 0) instead of none.
  if (mask && !mask.some((x) => x === 1)) {
    mask = new Uint8Array(shardCount);
    mask[0] = 1;
  }

  const split = splitter(globals.query, {
    ...(usable ? { shardingKeyColumn: analysis.keyColumn } : {}),
    shardCount,
    shardSizeFactor: topo.query.shardSizeFactor,
    shardSizeAdd: topo.query.shardSizeAdd,
    ...(opts.cursor !== undefined ? { cursor: opts.cursor } : {}),
    ...(opts.cursorKey ? { cursorKey: opts.cursorKey } : {}),
    ...(opts.queryThenFetchBound ? { queryThenFetchBound: true } : {}),
    maxRowsToTransfer: settings.maxRowsToTransfer,
    transferOverflowMode: settings.transferOverflowMode,
    topCount: settings.topCount === 'shard_size' ? 'shard_size' : opts.exactTopCount === 'general' ? 'refuse' : 'every_group',
    // The same signal says a general path can take what the fast path refuses.
    sketches: settings.approximate === 'sketches' || opts.exactTopCount !== 'general' ? 'use' : 'refuse',
    ...(settings.groupByNoMerge ? { unmerged: settings.groupByNoMerge } : {}),
    ...(settings.extremes ? { extremes: true } : {}),
    ...(globals.unsortable.size ? { unsortable: globals.unsortable } : {}),
  });

  // Rename once (the local name is the same on every shard), then strip what must not travel.
  const renamed = renameMain(split.shardQuery, analysis.main);
  delete renamed.settings;
  delete renamed.format;
  // Per-shard rewrites below only prune IN lists: what this tree reads is what every shard reads.
  checkReach(renamed, shardReach(topo, clientTables));
  const localCtx: KeyContext = { ...keyCtx, naming: localNaming(analysis.main) };
  const rewriter = buildShardRewriter(renamed, usable ? localCtx : undefined, { pruneIn: settings.rewriteIn && usable });

  const externalTables: ExternalTable[] = [...globals.external.values()].map((m) => m.table);
  const externalNames = externalTables.map((t) => t.name);
  let reason: string | undefined;
  // Print once, fill per shard (the 64-shard budget); the per-shard tree print is the reference.
  const fill = internal.printEachShard ? undefined : rewriter.template(renamed, printSelect, printExpr);
  const shards: ShardPlan[] = [];
  for (let s = 0; s < shardCount; s++) {
    if (mask && mask[s] !== 1) {
      const byStatistics = statsSkipped.get(s);
      if (byStatistics) {
        shards.push({ shard: s, skipped: true, reason: byStatistics, external: [] });
        continue;
      }
      reason ??= skipReason(skip.atoms.map((a) => a()));
      shards.push({ shard: s, skipped: true, reason, external: [] });
      continue;
    }
    const plan: ShardPlan = { shard: s, skipped: false, sql: fill ? fill(s) : printSelect(rewriter.forShard(renamed, s)), external: externalNames };
    const overrides: ExternalTable[] = [];
    for (const name of rewriter.prunableExternals) {
      const owners = keyCtx.externalOwners.get(name);
      const t = globals.external.get(name)?.table;
      if (!owners || !t || !settings.rewriteIn) continue;
      const rows = t.rows.filter((_, i) => owners[i] === s);
      if (rows.length !== t.rows.length) overrides.push({ name, columns: t.columns, rows });
    }
    if (overrides.length) plan.externalOverrides = overrides;
    const bytes = Buffer.byteLength(plan.sql!);
    if (bytes > topo.query.maxShardQueryBytes) {
      throw new ScatterError(
        'TOO_LARGE',
        `shard ${s}'s query would be ${bytes} bytes, over the ${topo.query.maxShardQueryBytes}-byte limit (query.maxShardQueryBytes: ClickHouse's ` +
          `max_query_size of 256 KiB less what the shard adds); ClickHouse would refuse it. Shorten IN lists, or ship large sets as a table (GLOBAL IN a subquery)`,
      );
    }
    shards.push(plan);
  }

  const unmaterialized = [...globals.external.values()].filter((m) => !m.materialized).map((m) => m.table.name);
  return {
    statement,
    tables: analysis.tables,
    shards,
    external: externalTables,
    settings: settings.forward,
    createMerger: () => split.createMerger(),
    mergeDescription: split.describe,
    truncated: globals.truncated,
    ...(stats ? { statistics: stats } : {}),
    ...(unmaterialized.length ? { unmaterialized } : {}),
  };
}

function skipReason(atoms: string[]): string {
  if (atoms.length === 0) return 'no matching row can live on this shard';
  return `no value of ${atoms.join(' / ')} lives on this shard`;
}
