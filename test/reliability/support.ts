// Shared pieces of the reliability and security tests: a local stack whose shard data is loaded
// BEFORE the stack starts (faults apply to admin requests too, so loading through a faulty stack
// would itself be flaky), and a ground truth computed in JS from the placement rule, so a
// response's completeness claim can be checked against the rows it should contain.
import fs from 'node:fs';
import path from 'node:path';
import type { Topology } from '../../shared/core/config/schema.js';
import { spawnEngine } from '../support/engine-process/engine-process.js';
import { DEMO_DDL, DEMO_LOCAL, demoInsertFor } from '../../local/demo.js';
import { createPlacement } from '../../shared/core/sharding/index.js';
import { parseTopology } from '../../shared/core/config/load.js';

export type ReplicaSpec = { fault?: Record<string, unknown>; url?: string };
export interface ShardSpec {
  weight?: number;
  replicas: ReplicaSpec[];
}

/**
 * The e2e topology (test/e2e/support.ts) with one extension: a replica may be an HTTP `url`
 * instead of an embedded directory. A replica that crashes on every invocation is cheaper as a
 * URL replica: its host is restarted after every crash, and an embedded one would load chdb
 * (hundreds of MB) each time, starving the machine the deadlines are measured on.
 */
export function reliabilityTopology(dir: string, shards: ShardSpec[], query: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): Topology {
  return parseTopology({
    cluster: 'reliability',
    shards: shards.map((s, i) => ({
      weight: s.weight ?? 1,
      replicas: s.replicas.map((r, j) => ({
        ...(r.url ? { url: r.url } : { embedded: path.join(dir, `shard-${i}-${j}`) }),
        ...(r.fault ? { fault: r.fault } : {}),
      })),
    })),
    tables: { [DIST]: { local: DEMO_LOCAL, shardingKey: { column: 'sensor', type: 'String', function: 'xxHash64' } } },
    query,
    ...extra,
  });
}

export const DIST = 'analytics.sensor_events_dist';
/** demoSelect() names sensors `s-<number % 5000>`: with a multiple of 5000 rows every sensor has ROWS/5000 rows. */
export const SENSORS = 5000;

/**
 * Create the demo table and its shard's rows in every replica directory of `topo` (embedded
 * replicas only), one engine process at a time, each closed before the stack opens the directory.
 */
export async function preloadShards(topo: Topology, rows: number): Promise<void> {
  await Promise.all(
    topo.shards.flatMap((s, i) =>
      s.replicas.map(async (r) => {
        if (!r.embedded) return;
        fs.mkdirSync(path.dirname(r.embedded), { recursive: true });
        const e = await spawnEngine({ path: r.embedded });
        try {
          for (const ddl of DEMO_DDL) await e.exec(ddl);
          await e.exec(demoInsertFor(topo, i, rows));
        } finally {
          await e.close();
        }
      }),
    ),
  );
}

/** shard index -> the sensors whose rows live there (by the placement rule, not by asking ClickHouse). */
export async function sensorsByShard(topo: Topology): Promise<{ shardOf: Map<string, number>; on: string[][] }> {
  const placement = await createPlacement(topo.shards, topo.tables[DIST]!.shardingKey);
  const shardOf = new Map<string, number>();
  const on: string[][] = topo.shards.map(() => []);
  for (let i = 0; i < SENSORS; i++) {
    const s = `s-${i}`;
    const shard = placement.shardOf(s);
    shardOf.set(s, shard);
    on[shard]!.push(s);
  }
  return { shardOf, on };
}

export { DEMO_LOCAL };

/** Nearest-rank quantile of a sorted array. */
export function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** Tables (outside system databases) and the row count of the demo table in one replica directory. */
export interface DirState {
  tables: string[];
  rows: number;
}

/** Open each embedded replica directory in turn (the stack must be stopped) and read its state. */
export async function inspectShardDirs(topo: Topology): Promise<Record<string, DirState>> {
  const out: Record<string, DirState> = {};
  for (const s of topo.shards) {
    for (const r of s.replicas) {
      if (!r.embedded) continue;
      const e = await spawnEngine({ path: r.embedded });
      try {
        const t = await e.query(
          "SELECT database, name, engine FROM system.tables WHERE database NOT IN ('system', 'INFORMATION_SCHEMA', 'information_schema') ORDER BY database, name",
        );
        const dbs = await e.query("SELECT name FROM system.databases WHERE name NOT IN ('system', 'INFORMATION_SCHEMA', 'information_schema') ORDER BY name");
        const c = await e.query(`SELECT count() AS c FROM ${DEMO_LOCAL}`);
        out[path.basename(r.embedded)] = {
          tables: [...dbs.rows.map((d) => `database ${String(d.name)}`), ...t.rows.map((x) => `${String(x.database)}.${String(x.name)} ${String(x.engine)}`)],
          rows: Number(c.rows[0]!.c),
        };
      } finally {
        await e.close();
      }
    }
  }
  return out;
}
