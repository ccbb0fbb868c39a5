// The golden corpus on real engines: every per-shard SQL text is pinned in a golden file AND
// executed on its own chdb shard (proving it is valid ClickHouse); for row queries the union of
// the shards' rows must equal the single-node answer over all rows (the oracle).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmbeddedCluster } from '../../support/embedded-cluster.js';
import { planQueryWith } from '../../../shared/core/plan/build.js';
import { parseSelect } from '../../../shared/core/sql/parse.js';
import { printSelect } from '../../../shared/core/sql/print.js';
import type { QueryPlan } from '../../../shared/core/plan/types.js';
import { CORPUS } from '../../unit/plan/corpus.js';
import { passThroughSplit, testTopology } from '../../unit/plan/fixtures.js';
import { canon, clusterRunner, generateData, loadCluster, runPlanRows } from './cluster-fixture.js';

const topo = testTopology();
let cluster: EmbeddedCluster;

beforeAll(async () => {
  cluster = await loadCluster(topo, generateData());
});
afterAll(async () => {
  await cluster?.stop();
});

function render(i: number, sql: string, plan: QueryPlan, opts: unknown): string {
  const lines = [`-- [${i}] ${CORPUS[i]!.note ?? ''}`.trimEnd(), sql];
  if (opts) lines.push(`opts: ${JSON.stringify(opts)}`);
  for (const s of plan.shards) {
    lines.push(s.skipped ? `  shard ${s.shard}: SKIPPED (${s.reason})` : `  shard ${s.shard}: ${s.sql}`);
    for (const o of s.externalOverrides ?? [])
      lines.push(`    ${o.name}: ${o.rows.length} of ${plan.external.find((t) => t.name === o.name)!.rows.length} rows`);
  }
  for (const t of plan.external) lines.push(`  external ${t.name}: ${t.rows.length} rows (${t.columns.map((c) => `${c.name} ${c.type}`).join(', ')})`);
  if (Object.keys(plan.settings).length) lines.push(`  settings ${JSON.stringify(plan.settings)}`);
  return lines.join('\n');
}

describe('planner corpus on a 4-shard chdb cluster', () => {
  it(`has at least 40 queries (${CORPUS.length})`, () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(40);
  });

  it('golden per-shard SQL; every shard query runs; row queries equal the single node', async () => {
    const out: string[] = [];
    const runner = clusterRunner(cluster, topo);
    for (let i = 0; i < CORPUS.length; i++) {
      const entry = CORPUS[i]!;
      const plan = await planQueryWith(entry.sql, topo, { ...entry.opts, runSubquery: runner }, passThroughSplit);
      out.push(render(i, entry.sql, plan, entry.opts));
      // Valid ClickHouse: each shard's text runs on its engine (throws otherwise).
      const got = await runPlanRows(cluster, plan).catch((e: Error) => {
        throw new Error(`[${i}] ${entry.sql}\n${e.message}`);
      });
      if (entry.compare) {
        const stmt = parseSelect(entry.sql);
        if (stmt.kind === 'select') delete stmt.format;
        const oracle = await cluster.oracle!.query(printSelect(stmt), { settings: { ...(entry.opts?.settings ?? {}) } });
        expect(canon(got.rows), `[${i}] ${entry.sql}`).toEqual(canon(oracle.rows));
      }
    }
    await expect(out.join('\n\n') + '\n').toMatchFileSnapshot('./__golden__/corpus.txt');
  });
});
