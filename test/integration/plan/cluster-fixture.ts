// A 4-shard embedded cluster (+ a single-node oracle) loaded with deterministic data placed by
// the same Placement the planner prunes with, and a tiny executor for ShardPlans: each shard's
// SQL runs on its own engine with the shipped tables (per-shard overrides applied).
import { startEmbeddedCluster, type EmbeddedCluster } from '../../support/embedded-cluster.js';
import { createPlacement } from '../../../shared/core/sharding/index.js';
import type { Topology } from '../../../shared/core/config/schema.js';
import type { QueryPlan, SubqueryRunner } from '../../../shared/core/plan/types.js';
import type { ExternalTable } from '../../../shared/core/clickhouse/port.js';
import { planQueryWith } from '../../../shared/core/plan/build.js';
import { tablesRead } from '../../../shared/core/plan/analyze.js';
import { printSelect } from '../../../shared/core/sql/print.js';
import { LOCAL_DDL, passThroughSplit } from '../../unit/plan/fixtures.js';

export type Row = Record<string, unknown>;

export function generateData(): Record<string, Row[]> {
  const events: Row[] = [];
  for (let i = 0; i < 200; i++) {
    events.push({ sensor: `s-${i % 20}`, ts: `2024-01-0${1 + (i % 5)} 00:00:${String(i % 60).padStart(2, '0')}`, value: i * 1.5, user_id: String(i % 10) });
  }
  const users: Row[] = Array.from({ length: 10 }, (_, i) => ({ user_id: String(i), name: `u${i}`, country: i % 2 ? 'NL' : 'DE' }));
  users.push({ user_id: '18446744073709551615', name: 'max', country: 'NL' });
  const nums: Row[] = Array.from({ length: 256 }, (_, k) => ({ k, v: String(k * 10) }));
  const signed: Row[] = Array.from({ length: 256 }, (_, i) => ({ k: i - 128, v: String(i) }));
  return { 'analytics.events': events, 'analytics.users': users, 'default.nums': nums, 'default.signed_local': signed };
}

const LOCAL_TO_DIST: Record<string, string> = {
  'analytics.events': 'analytics.events_dist',
  'analytics.users': 'analytics.users_dist',
  'default.nums': 'default.nums_dist',
  'default.signed_local': 'default.signed_dist',
};

/** Start the cluster, create the local tables everywhere, place rows, load the oracle with all rows under the distributed names. */
export async function loadCluster(topo: Topology, data: Record<string, Row[]>): Promise<EmbeddedCluster> {
  const cluster = await startEmbeddedCluster({ shards: topo.shards.length, withOracle: true });
  try {
    for (const ddl of LOCAL_DDL) await cluster.execAll(ddl);
    for (const [local, dist] of Object.entries(LOCAL_TO_DIST)) await cluster.oracle!.exec(`CREATE TABLE ${dist} AS ${local}`);
    for (const [local, rows] of Object.entries(data)) {
      const dist = LOCAL_TO_DIST[local]!;
      const key = Object.entries(topo.tables).find(([name]) => name === dist)![1].shardingKey;
      const placement = await createPlacement(topo.shards, key);
      const perShard: Row[][] = topo.shards.map(() => []);
      for (const r of rows) perShard[placement.shardOf(r[key.column] as string | number)]!.push(r);
      await Promise.all(perShard.map((rs, s) => (rs.length ? cluster.shards[s]!.insert(local, rs) : Promise.resolve())));
      if (rows.length) await cluster.oracle!.insert(dist, rows);
    }
  } catch (e) {
    await cluster.stop();
    throw e;
  }
  return cluster;
}

export function externalsFor(plan: QueryPlan, shard: number): ExternalTable[] {
  const sp = plan.shards[shard]!;
  return plan.external.filter((t) => sp.external.includes(t.name)).map((t) => sp.externalOverrides?.find((o) => o.name === t.name) ?? t);
}

/** Run every non-skipped shard's SQL; rows concatenated in shard order. */
export async function runPlanRows(cluster: EmbeddedCluster, plan: QueryPlan): Promise<{ rows: Row[]; meta: { name: string; type: string }[] }> {
  let meta: { name: string; type: string }[] = [];
  const parts = await Promise.all(
    plan.shards.map(async (sp) => {
      if (sp.skipped) return [];
      const res = await cluster.shards[sp.shard]!.query(sp.sql!, { settings: plan.settings, external: externalsFor(plan, sp.shard) });
      meta = res.meta;
      return res.rows;
    }),
  );
  return { rows: parts.flat(), meta };
}

/**
 * A GLOBAL subquery runner over the cluster: plan (pass-through), run shards, concatenate, sort for determinism.
 * A statement that reads no distributed table (the planner's constant SELECT) runs on shard 0's engine, as the runtime runs it on one engine.
 */
export function clusterRunner(cluster: EmbeddedCluster, topo: Topology): SubqueryRunner {
  return async (stmt) => {
    if (tablesRead(stmt, topo).length === 0) {
      const r = await cluster.shards[0]!.query(printSelect(stmt));
      return { meta: r.meta, rows: r.rows };
    }
    const plan = await planQueryWith(stmt, topo, {}, passThroughSplit);
    const { rows, meta } = await runPlanRows(cluster, plan);
    rows.sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
    return { meta, rows };
  };
}

export const canon = (rows: Row[]): string[] => rows.map((r) => JSON.stringify(r)).sort();
