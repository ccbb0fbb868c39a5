// The oracle against a running ch-scatter stack: the local stack (`startLocalStack`) over the oracle
// topology, its shard engines filled through the stack's own admin routes (`/admin/exec` for the
// tables, `/admin/insert`, i.e. the router, for the rows), and every corpus query sent to `POST /query`.
//
// Entry for the general path: `oracleAgainstQueryApi(url, reference)`; see local-stack.test.ts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type LocalStack, startLocalStack } from '../../local/stack.js';
import { type JsonEngine, spawnJsonEngine } from '../support/json-engine/json-engine.js';
import { fillChdb, oracleLayout, type OracleLayout } from '../support/oracle-cluster.js';
import { CORPUS } from './corpus.js';
import type { OracleQuery } from './corpus-types.js';
import { type OracleReport, queryApiRunner, type Runner, runOracle, singleNodeRunner } from './harness.js';
import { createTable, DATABASES, oracleTopology, TABLES } from './schema.js';

export interface OracleStack {
  stack: LocalStack;
  layout: OracleLayout;
  /** /admin/insert's perShard per Distributed table: where the router put the rows. */
  inserted: Map<string, number[]>;
  /** A single node holding every row, and the reference Runner over it. */
  single: JsonEngine;
  reference: Runner;
  stop(): Promise<void>;
}

async function admin(url: string, route: string, body: string): Promise<any> {
  const res = await fetch(`${url}${route}`, { method: 'POST', body });
  const out = await res.json();
  if (res.status !== 200) throw new Error(`${route}: HTTP ${res.status} ${JSON.stringify(out).slice(0, 300)}`);
  return out;
}

/** A local stack over the oracle topology (one embedded replica per shard) and a single node, both loaded. */
export async function startOracleStack(): Promise<OracleStack> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-scatter-oracle-stack-'));
  const layout = await oracleLayout();
  const topo = oracleTopology((i) => [{ embedded: path.join(dir, `shard-${i}`) }]);
  const [stack, single] = await Promise.allSettled([startLocalStack({ topo, port: 0 }), spawnJsonEngine(path.join(dir, 'single'))]);
  const stop = async () => {
    if (stack.status === 'fulfilled') await stack.value.stop();
    if (single.status === 'fulfilled') await single.value.close();
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    if (stack.status === 'rejected') throw stack.reason;
    if (single.status === 'rejected') throw single.reason;
    const url = stack.value.url;
    for (const db of DATABASES) await admin(url, '/admin/exec', JSON.stringify({ sql: `CREATE DATABASE IF NOT EXISTS ${db}` }));
    const inserted = new Map<string, number[]>();
    for (const t of TABLES) {
      await admin(url, '/admin/exec', JSON.stringify({ sql: createTable(t, 'chdb') }));
      const lines = layout.data.rows
        .get(t)!
        .map((r) => JSON.stringify(r))
        .join('\n');
      const out = (await admin(url, `/admin/insert?table=${encodeURIComponent(t.dist)}`, lines)) as { perShard: number[] };
      inserted.set(t.dist, out.perShard);
    }
    await fillChdb(single.value, layout, (t) => layout.data.rows.get(t)!, false);
    const reference = await singleNodeRunner(single.value);
    return { stack: stack.value, layout, inserted, single: single.value, reference, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

/**
 * THE SWITCH FOR THE GENERAL PATH: every corpus query through `POST /query` of the stack at `url`
 * (requireComplete, so a missing shard fails the query), compared with `reference`.
 */
export function oracleAgainstQueryApi(url: string, reference: Runner, corpus: readonly OracleQuery[] = CORPUS): Promise<OracleReport> {
  return runOracle(corpus, queryApiRunner(url, { timeoutMs: 20_000 }), reference, { concurrency: 2 });
}
