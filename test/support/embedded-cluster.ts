// A local cluster of embedded ClickHouse engines for tests: N shard engines plus, optionally,
// a single-node "oracle" holding all the data (to compare scatter-gather results against).
// Each engine is its own child process (chdb: one data directory per process), so the test
// process itself never loads chdb and any number of clusters can run side by side.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ClickHouseAccess } from '../../shared/core/clickhouse/port.js';
import { spawnEngine, type EngineProcess } from './engine-process/engine-process.js';

export interface EmbeddedClusterOptions {
  shards: number;
  withOracle?: boolean;
  /** Parent directory for the engines' data; a fresh temp dir (removed on stop) when omitted. */
  dir?: string;
}

export interface EmbeddedCluster {
  shards: ClickHouseAccess[];
  oracle?: ClickHouseAccess;
  /** The underlying processes (pid, kill()) for fault tests. */
  processes: EngineProcess[];
  dir: string;
  /** Run one statement on every shard and on the oracle (DDL for tests). */
  execAll(sql: string): Promise<void>;
  stop(): Promise<void>;
}

export async function startEmbeddedCluster(opts: EmbeddedClusterOptions): Promise<EmbeddedCluster> {
  const ownDir = opts.dir === undefined;
  const dir = opts.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'ch-scatter-cluster-'));
  const names = Array.from({ length: opts.shards }, (_, i) => `shard-${i}`);
  if (opts.withOracle) names.push('oracle');
  const settled = await Promise.allSettled(names.map((n) => spawnEngine({ path: path.join(dir, n) })));
  const procs = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  const stop = async () => {
    await Promise.all(procs.map((p) => p.close().catch(() => undefined)));
    if (ownDir) fs.rmSync(dir, { recursive: true, force: true });
  };
  if (failed) {
    await stop();
    throw failed.reason;
  }
  const shards = procs.slice(0, opts.shards);
  const oracle = opts.withOracle ? procs[opts.shards] : undefined;
  return {
    shards,
    oracle,
    processes: procs,
    dir,
    execAll: async (sql) => {
      await Promise.all(procs.map((p) => p.exec(sql)));
    },
    stop,
  };
}
