// The aggregation tree (shared/core/scatter/tree*.ts) against the flat fan-out at 256 and 1,024 simulated
// shards (docs/benchmarks.md#5-aggregation-tree-tree). Shards are stub functions (no engine) in one
// child process behind the local Invoke endpoint, each answering a GROUP BY partial of GROUPS groups
// (the partial columns the real planner asks for). Per query, alternating:
//   flat  this process is the coordinator: gather -> the default shard invoker (signed node:http)
//         -> every shard;
//   tree  this process is the root: gatherTree -> SDK (as deps.tree invokes them) -> sub-coordinators
//         (fanout 64), which run in SUBPROCS child processes standing in for Lambda environments
//         (_subcoord-child.ts) and fan out to their 64 shards through the default invoker, pre-merging.
// Reported: end-to-end wall per query, ROOT coordinator CPU per query (process.cpuUsage of this
// process), sub-coordinators' CPU (their own cpuUsage, from their answers), and that both
// modes finalize to the same answer. On this 2-core box every process competes for the same
// two cores, so the wall figures understate what separate Lambda environments would give; the
// root CPU figure is the one the tree exists to cut.
import { setMaxListeners } from 'node:events';
import { createSignedHttpInvoker } from '../shared/adapters/aws/signed-http-invoker.js';
import { gather } from '../shared/core/scatter/gather.js';
import { createHedgeState } from '../shared/core/scatter/hedge.js';
import { gatherTree, type TreeInvoker } from '../shared/core/scatter/tree.js';
import { createTreeLambdaInvoker } from '../shared/adapters/aws/tree-lambda-invoker.js';
import { premergeSpec } from '../shared/core/scatter/tree-premerge.js';
import { planQuery } from '../shared/core/plan/index.js';
import { startChild, type Child } from './_fork.js';
import { stubTopology } from './_stub-plan.js';
import { cpuMsSince, msSince, quantile, r2, table } from './_stats.js';

const FANOUT = 64;
const GROUPS = 100;
const SUBPROCS = 2;
const SQL = 'SELECT user, count() AS c, sum(qty) AS q FROM default.t_dist GROUP BY user ORDER BY user';

export async function run(opts: { quick: boolean }): Promise<{ table: string; json: Record<string, unknown> }> {
  setMaxListeners(0);
  const json: Record<string, unknown> = {};
  const rows: (string | number)[][] = [];
  // --quick: 256 shards only (three helper processes start per size; CI smoke must stay short).
  for (const n of opts.quick ? [256] : [256, 1024]) {
    const iterations = opts.quick ? 4 : n > 256 ? 30 : 60;
    const maxConcurrency = 256;
    const topo = stubTopology(n, 1, { maxConcurrency, hedge: { enabled: false }, treeFanoutAbove: FANOUT });
    const plan = await planQuery(SQL, topo, {});
    const spec = premergeSpec(plan.shards[0]!.sql!);
    if (!spec) throw new Error(`tree bench: the shard SQL is not pre-mergeable: ${plan.shards[0]!.sql}`);
    // Every shard answers every group: GROUPS rows of key + states, typed as ClickHouse would.
    const meta = [...spec.keys.map((k) => ({ name: k, type: 'UInt32' })), ...spec.aggs.map((a) => ({ name: a.col, type: a.op === 'sum' ? 'Int64' : 'Int32' }))];
    const stubRows = Array.from({ length: GROUPS }, (_, g) =>
      Object.fromEntries([...spec.keys.map((k) => [k, g]), ...spec.aggs.map((a, i) => [a.col, String(1 + ((g + i) % 7))])]),
    );
    const shardsChild = await startChild<{ url: string }>('_shard-stub-child', { shards: n, rows: stubRows, meta });
    const subs: Child<{ url: string }>[] = [];
    const names = Array.from({ length: n }, (_, i) => `ch-scatter-shard-${i}`);
    const invoker = createSignedHttpInvoker(n, { endpoint: shardsChild.info.url, functionNames: names, maxSockets: 512 });
    const subInvokers: ReturnType<typeof createTreeLambdaInvoker>[] = [];
    try {
      for (let p = 0; p < SUBPROCS; p++)
        subs.push(await startChild<{ url: string }>('_subcoord-child', { shards: n, shardEndpoint: shardsChild.info.url, maxConcurrency }));
      for (const s of subs) subInvokers.push(createTreeLambdaInvoker({ functionName: () => 'ch-scatter-sub', endpoint: s.info.url }));
      const tree: TreeInvoker = { invoke: (g, req, signal) => subInvokers[g % SUBPROCS]!.invoke(g, req, signal) };
      const common = () => ({
        plan,
        topo,
        invoker,
        queryId: 'bench',
        deadlineAt: Date.now() + 60_000,
        now: Date.now,
        hedge: topo.query.hedge,
        state: createHedgeState(),
      });
      let subCpu = 0;
      let groupsSeen = 0;
      const modes = {
        flat: async () => {
          const g = await gather(common());
          if (g.missing.length) throw new Error(`flat: ${g.missing.length} shards missing: ${g.missing[0]!.message}`);
          return g.merger.finalize();
        },
        tree: async () => {
          const g = await gatherTree({
            ...common(),
            tree,
            fanout: FANOUT,
            onGroup: (r) => {
              if ('statistics' in r) {
                subCpu += r.statistics.cpuMs;
                groupsSeen++;
                if (r.mode !== 'premerged') throw new Error('tree bench expects pre-merged answers');
              }
            },
          });
          if (g.missing.length) throw new Error(`tree: ${g.missing.length} shards missing: ${g.missing[0]!.message}`);
          return g.merger.finalize();
        },
      };
      const a = await modes.flat();
      const b = await modes.tree();
      const same = JSON.stringify(a) === JSON.stringify(b);
      if (!same) throw new Error('tree and flat answers differ');
      for (let i = 0; i < 2; i++) for (const f of Object.values(modes)) await f();
      subCpu = 0;
      groupsSeen = 0;
      const wall = { flat: [] as number[], tree: [] as number[] };
      const cpu = { flat: 0, tree: 0 };
      for (let i = 0; i < iterations; i++) {
        for (const k of i % 2 === 0 ? (['flat', 'tree'] as const) : (['tree', 'flat'] as const)) {
          const c0 = process.cpuUsage();
          const t0 = process.hrtime.bigint();
          await modes[k]();
          wall[k].push(msSince(t0));
          cpu[k] += cpuMsSince(c0);
        }
      }
      const e = {
        flat_ms: r2(quantile(wall.flat, 0.5)),
        tree_ms: r2(quantile(wall.tree, 0.5)),
        flat_p90_ms: r2(quantile(wall.flat, 0.9)),
        tree_p90_ms: r2(quantile(wall.tree, 0.9)),
        flat_root_cpu_ms: r2(cpu.flat / iterations),
        tree_root_cpu_ms: r2(cpu.tree / iterations),
        tree_sub_cpu_ms_total: r2(subCpu / iterations),
        tree_sub_cpu_ms_per_subcoordinator: r2(subCpu / Math.max(1, groupsSeen)),
        sub_coordinators: Math.ceil(n / FANOUT),
        root_invocations_flat: n,
        root_invocations_tree: Math.ceil(n / FANOUT),
        root_rows_merged_flat: n * GROUPS,
        root_rows_merged_tree: Math.ceil(n / FANOUT) * GROUPS,
        same_answer: same,
        iterations,
      };
      json[String(n)] = { ...e, root_cpu_ratio: r2(e.tree_root_cpu_ms / e.flat_root_cpu_ms), latency_ratio: r2(e.tree_ms / e.flat_ms) };
      rows.push([
        n,
        e.flat_ms,
        e.tree_ms,
        r2(e.tree_ms / e.flat_ms),
        e.flat_root_cpu_ms,
        e.tree_root_cpu_ms,
        r2(e.tree_root_cpu_ms / e.flat_root_cpu_ms),
        e.tree_sub_cpu_ms_per_subcoordinator,
        e.sub_coordinators,
        same ? 'yes' : 'NO',
      ]);
    } finally {
      invoker.close();
      for (const s of subInvokers) s.close();
      for (const s of subs) await s.stop();
      await shardsChild.stop();
    }
  }
  json.method = `stub shards (${GROUPS}-group GROUP BY partials, no engine) in one child process; flat = gather over the default (signed node:http) invoker from this process; tree = gatherTree -> SDK -> ${SUBPROCS} sub-coordinator processes (fanout ${FANOUT}) -> shards, pre-merged; alternating; medians; CPU = process.cpuUsage`;
  return {
    table:
      table(
        [
          'shards',
          'flat ms',
          'tree ms',
          'tree/flat',
          'flat root CPU ms',
          'tree root CPU ms',
          'root CPU ratio',
          'CPU ms per sub-coordinator',
          'sub-coordinators',
          'same answer',
        ],
        rows,
      ) + `\n(${GROUPS} groups per shard answer; per query; all processes share this machine's 2 cores)`,
    json,
  };
}
