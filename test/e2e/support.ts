// Helpers for the end-to-end tests: a topology over fresh temp directories (one chdb directory
// per shard process), the demo data at a small size, and a single-node oracle holding every row.
import fs from 'node:fs';
import { spawn, type ChildProcess } from 'node:child_process';
import { expect } from 'vitest';
import os from 'node:os';
import path from 'node:path';
import { parseTopology } from '../../shared/core/config/load.js';
import type { Topology } from '../../shared/core/config/schema.js';
import { spawnEngine, type EngineProcess } from '../support/engine-process/engine-process.js';
import { DEMO_DDL, DEMO_LOCAL, demoSelect } from '../../local/demo.js';

export interface ShardSpec {
  weight?: number;
  replicas: Array<{ fault?: Record<string, unknown> }>;
}

export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `ch-scatter-e2e-${prefix}-`));
}

export function e2eTopology(
  dir: string,
  shards: ShardSpec[],
  query: Record<string, unknown> = {},
  extra: { tables?: Record<string, unknown>; schedules?: unknown[] } = {},
): Topology {
  return parseTopology({
    cluster: 'e2e',
    shards: shards.map((s, i) => ({
      weight: s.weight ?? 1,
      replicas: s.replicas.map((r, j) => ({ embedded: path.join(dir, `shard-${i}-${j}`), ...(r.fault ? { fault: r.fault } : {}) })),
    })),
    tables: {
      'analytics.sensor_events_dist': { local: 'analytics.sensor_events', shardingKey: { column: 'sensor', type: 'String', function: 'xxHash64' } },
      ...extra.tables,
    },
    query,
    schedules: extra.schedules ?? [],
  });
}

/** One engine with all the rows, to compare the scatter-gather answers against. */
export async function startOracle(dir: string, rows: number): Promise<EngineProcess> {
  const o = await spawnEngine({ path: path.join(dir, 'oracle') });
  for (const ddl of DEMO_DDL) await o.exec(ddl);
  await o.exec(`INSERT INTO ${DEMO_LOCAL} ${demoSelect(rows)}`);
  return o;
}

export async function post(url: string, body: unknown): Promise<{ status: number; body: any; ms: number }> {
  const t0 = performance.now();
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text), ms: performance.now() - t0 };
}

/** Floats within 1e-9 relative (the oracle sums in another order); everything else exactly. */
export function expectSameRows(
  got: Record<string, unknown>[],
  want: Record<string, unknown>[],
  what: string,
  approx?: { column: string; relativeError: number },
) {
  expect(got.length).toBe(want.length);
  got.forEach((row, i) => {
    const w = want[i]!;
    expect(Object.keys(row)).toEqual(Object.keys(w));
    for (const k of Object.keys(w)) {
      const a = row[k];
      const b = w[k];
      if (approx?.column === k)
        expect(Math.abs(Number(a) - Number(b)), `${what}: row ${i} ${k} ${a} vs ${b}`).toBeLessThanOrEqual(approx.relativeError * Number(b));
      else if (typeof a === 'number' && typeof b === 'number' && !Number.isInteger(b))
        expect(Math.abs(a - b)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(b)));
      else expect(a, `${what}: row ${i} ${k}`).toEqual(b);
    }
  });
}

/** `ch-scatter dev` as a user runs it: a child process, its output as it arrives, its `ready` URL or its exit. */
export interface DevProcess {
  child: ChildProcess;
  /** The URL of the `ready` line; rejects when dev exits first. */
  ready: Promise<string>;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  stdout(): string;
  stderr(): string;
  /** SIGINT, then the exit code. */
  stop(): Promise<number | null>;
}

export function spawnDev(args: string[], env: NodeJS.ProcessEnv = {}): DevProcess {
  const child = spawn(process.execPath, [path.resolve('bin/ch-scatter.mjs'), 'dev', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let out = '';
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const ready = new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /^ready (http:\/\/127\.0\.0\.1:\d+)\n/m.exec(out);
      if (m) resolve(m[1]!);
    });
    void exited.then((code) => reject(new Error(`dev exited ${code}: ${err}`)));
  });
  ready.catch(() => undefined); // a test that expects the exit awaits `exited` instead
  return {
    child,
    ready,
    exited,
    stdout: () => out,
    stderr: () => err,
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
      return exited;
    },
  };
}
