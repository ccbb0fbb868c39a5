// A local stack over the tables of ClickHouse's Distributed-table tests (tables.ts), loaded through its
// own router (/admin/insert), and a single chdb node holding every row: the reference.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { type LocalStack, startLocalStack } from '../../../local/stack.js';
import { type JsonEngine, spawnJsonEngine } from '../../support/json-engine/json-engine.js';
import type { Answer } from '../compare.js';
import { EXACT_JSON_SETTINGS, type Runner } from '../harness.js';
import { CHT_DATABASE, CHT_TABLES, chtTopology, createChtTable, toChtLocalNames } from './tables.js';

export interface ChtStack {
  stack: LocalStack;
  single: JsonEngine;
  reference: Runner;
  /** /admin/insert's perShard per Distributed table. */
  inserted: Map<string, number[]>;
  stop(): Promise<void>;
}

async function admin(url: string, route: string, body: string): Promise<any> {
  const res = await fetch(`${url}${route}`, { method: 'POST', body });
  const out = await res.json();
  if (res.status !== 200) throw new Error(`${route}: HTTP ${res.status} ${JSON.stringify(out).slice(0, 300)}`);
  return out;
}

export async function startChtStack(): Promise<ChtStack> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-scatter-cht-'));
  const topo = chtTopology((i) => [{ embedded: path.join(dir, `shard-${i}`) }]);
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
    const one = single.value;
    await admin(url, '/admin/exec', JSON.stringify({ sql: `CREATE DATABASE IF NOT EXISTS ${CHT_DATABASE}` }));
    await one.exec(`CREATE DATABASE IF NOT EXISTS ${CHT_DATABASE}`);
    const inserted = new Map<string, number[]>();
    for (const t of CHT_TABLES) {
      await admin(url, '/admin/exec', JSON.stringify({ sql: createChtTable(t) }));
      await one.exec(createChtTable(t));
      const lines = t.rows.map((r) => JSON.stringify(r)).join('\n');
      const out = (await admin(url, `/admin/insert?table=${encodeURIComponent(t.dist)}`, lines)) as { perShard: number[] };
      inserted.set(t.dist, out.perShard);
      await one.exec(`INSERT INTO ${t.local} FORMAT JSONEachRow\n${lines}`);
    }
    await one.set(EXACT_JSON_SETTINGS);
    const reference: Runner = async (sql) => {
      const body = await one.json(toChtLocalNames(sql));
      const answer: Answer = { meta: body.meta.map((m) => ({ name: m.name, type: m.type })), rows: body.data };
      if (body.totals !== undefined) answer.totals = body.totals;
      if (body.extremes !== undefined) answer.extremes = body.extremes;
      return answer;
    };
    return { stack: stack.value, single: one, reference, inserted, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

/** A test file's stack: started before its tests and stopped after them; read it only inside a test. */
export function useChtStack(): ChtStack & { post(route: string, body: unknown): Promise<{ status: number; body: any }> } {
  let started: ChtStack | undefined;
  beforeAll(async () => {
    started = await startChtStack();
  }, 120_000);
  afterAll(async () => {
    await started?.stop();
  });
  const now = (): ChtStack => {
    if (!started) throw new Error('the stack of the ClickHouse tests has not started');
    return started;
  };
  return {
    get stack() {
      return now().stack;
    },
    get single() {
      return now().single;
    },
    get reference() {
      return now().reference;
    },
    get inserted() {
      return now().inserted;
    },
    stop: () => now().stop(),
    async post(route, body) {
      const res = await fetch(`${now().stack.url}${route}`, { method: 'POST', body: JSON.stringify(body) });
      return { status: res.status, body: await res.json() };
    },
  };
}
