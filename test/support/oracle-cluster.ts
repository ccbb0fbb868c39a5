// The oracle's engines, filled with the same rows:
//   chdb: one "single node" holding every row under the local names, and one engine per shard
//         holding the rows the router places there (shared/core/router's routeRows over the oracle topology,
//         the same call the router and /admin/insert make);
//   18.16: the same on Debian's clickhouse-server, where the types exist (no DateTime64 there), plus
//         Distributed tables over the shard servers, so 18.16's own Distributed engine can answer the
//         corpus too.
// Optionally the single node also holds a reordered copy of every table (rows reversed, in several
// parts): a query that answers differently there depends on row order, so it cannot be exact.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ClickHouseAccess } from '../../shared/core/clickhouse/port.js';
import type { Topology } from '../../shared/core/config/schema.js';
import { routeRows } from '../../shared/core/router/index.js';
import { createPlacement, type Placement } from '../../shared/core/sharding/index.js';
import { generateData, type OracleData, type Row, toTsv } from '../oracle/data.js';
import { columnsFor, createTable, DATABASES, type Engine, type OracleTable, oracleTopology, SENSORS, TABLES } from '../oracle/schema.js';
import { chHttp } from './ch-servers.js';
import { startEmbeddedCluster } from './embedded-cluster.js';
import { type JsonEngine, spawnJsonEngine } from './json-engine/json-engine.js';

/** Where the single node keeps the reordered copy of a table. */
export const reorderedName = (t: OracleTable) => `${t.local}_reordered`;
/** Where an 18.16 single node keeps every row (its `local` table is an empty shard of the Distributed table). */
export const allRowsName18 = (t: OracleTable) => `${t.local}_all`;

export interface OracleLayout {
  topo: Topology;
  data: OracleData;
  /** Per Distributed table: each shard's rows, as the router places them. */
  perShard: Map<OracleTable, Row[][]>;
}

/** The rows and where the router puts them (no engine involved). */
export async function oracleLayout(): Promise<OracleLayout> {
  const topo = oracleTopology((i) => [{ embedded: `/nonexistent/oracle-shard-${i}` }]);
  const placements = new Map<OracleTable, Placement>();
  for (const t of TABLES) placements.set(t, await createPlacement(topo.shards, t.key));
  const data = generateData(placements.get(SENSORS)!);
  const perShard = new Map<OracleTable, Row[][]>();
  for (const t of TABLES) {
    const routed = routeRows(data.rows.get(t)!, t.dist, topo, placements.get(t)!);
    if (routed.bad.length) throw new Error(`the router refused oracle rows of ${t.dist}: ${JSON.stringify(routed.bad[0])}`);
    perShard.set(t, routed.batches as Row[][]);
  }
  return { topo, data, perShard };
}

const insertSql = (table: string, t: OracleTable, engine: Engine, rows: readonly Row[]) =>
  `INSERT INTO ${table} FORMAT TabSeparated\n${toTsv(rows, columnsFor(t, engine))}`;

/** Split into `parts` slices (each insert is one MergeTree part). */
function slices<T>(xs: readonly T[], parts: number): T[][] {
  const size = Math.ceil(xs.length / parts);
  return Array.from({ length: parts }, (_, i) => xs.slice(i * size, (i + 1) * size)).filter((s) => s.length > 0);
}

/** What loading needs of an engine: running statements (ClickHouseAccess and JsonEngine both do). */
export interface Executor {
  exec(sql: string): Promise<void>;
}

export async function fillChdb(a: Executor, layout: OracleLayout, rowsOf: (t: OracleTable) => readonly Row[], reordered: boolean): Promise<void> {
  for (const db of DATABASES) await a.exec(`CREATE DATABASE IF NOT EXISTS ${db}`);
  for (const t of TABLES) {
    await a.exec(createTable(t, 'chdb'));
    const rows = rowsOf(t);
    if (rows.length) await a.exec(insertSql(t.local, t, 'chdb', rows));
    if (!reordered) continue;
    await a.exec(createTable(t, 'chdb', reorderedName(t)));
    for (const part of slices([...layout.data.rows.get(t)!].reverse(), 7)) await a.exec(insertSql(reorderedName(t), t, 'chdb', part));
  }
}

export interface ChdbOracle extends OracleLayout {
  /** Every row, under the local names (and the reordered copies when asked for); answers whole FORMAT JSON bodies. */
  single: JsonEngine;
  /** One engine per shard of the topology, holding the router's share of the rows. */
  shards: ClickHouseAccess[];
  stop(): Promise<void>;
}

/** Start a single node and, unless `shards: false`, one engine per shard (each a chdb process), and load them. */
export async function startChdbOracle(opts: { reorderedCopy?: boolean; shards?: boolean } = {}): Promise<ChdbOracle> {
  const layout = await oracleLayout();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-scatter-oracle-'));
  const [single, cluster] = await Promise.allSettled([
    spawnJsonEngine(path.join(dir, 'single')),
    opts.shards === false ? Promise.resolve(undefined) : startEmbeddedCluster({ shards: layout.topo.shards.length, dir }),
  ]);
  const stop = async () => {
    if (single.status === 'fulfilled') await single.value.close();
    if (cluster.status === 'fulfilled') await cluster.value?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    if (single.status === 'rejected') throw single.reason;
    if (cluster.status === 'rejected') throw cluster.reason;
    const shards = cluster.value?.shards ?? [];
    await Promise.all([
      fillChdb(single.value, layout, (t) => layout.data.rows.get(t)!, opts.reorderedCopy === true),
      ...shards.map((s, i) => fillChdb(s, layout, (t) => layout.perShard.get(t)![i]!, false)),
    ]);
    return { ...layout, single: single.value, shards, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

/** 18.16 needs this to create LowCardinality columns. */
const CREATE18 = { allow_experimental_low_cardinality_type: 1 };

/**
 * Fill 18.16 servers: `shardUrls[i]` gets shard i's rows under the local names; `singleUrl` gets
 * every row under allRowsName18(t), an EMPTY local table (one more shard, with nothing on it), and
 * the Distributed tables under the corpus's names over `cluster` (which must list the shard servers
 * and the single node; any weights: a SELECT does not place rows).
 */
export async function loadOracle18(layout: OracleLayout, shardUrls: readonly string[], singleUrl: string, cluster: string): Promise<void> {
  const prepare = async (url: string) => {
    for (const db of DATABASES) await chHttp(url, `CREATE DATABASE IF NOT EXISTS ${db}`);
  };
  await Promise.all(
    shardUrls.map(async (url, i) => {
      await prepare(url);
      for (const t of TABLES) {
        await chHttp(url, createTable(t, 'ch18'), CREATE18);
        const rows = layout.perShard.get(t)![i]!;
        if (rows.length) await chHttp(url, insertSql(t.local, t, 'ch18', rows));
      }
    }),
  );
  await prepare(singleUrl);
  for (const t of TABLES) {
    if (!shardUrls.includes(singleUrl)) await chHttp(singleUrl, createTable(t, 'ch18'), CREATE18);
    await chHttp(singleUrl, createTable(t, 'ch18', allRowsName18(t)), CREATE18);
    await chHttp(singleUrl, insertSql(allRowsName18(t), t, 'ch18', layout.data.rows.get(t)!));
    const [db, local] = t.local.split('.');
    await chHttp(singleUrl, `CREATE TABLE ${t.dist} AS ${t.local} ENGINE = Distributed(${cluster}, ${db}, ${local})`, CREATE18);
  }
}
