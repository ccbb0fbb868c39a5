// Local Debian clickhouse-server (18.16) clusters for vitest, through scripts/ch-cluster.sh.
// `useChServers({ n, portBase, weights })` starts them in beforeAll and stops them in afterAll;
// a missing server binary is a failure, never a skip (CI must exercise the real engine).
// A request without credentials is the shard functions' user (readonly=2, only the databases in
// SHARD_DATABASES; scripts/ch-cluster/config.sh), so every query path of a test runs as it; creating
// tables and loading data takes ADMIN (`chHttp`, `chRows`, or an access made with `...ADMIN`).
import { afterAll, beforeAll } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const SCRIPT = resolve(dirname(fileURLToPath(import.meta.url)), '../../scripts/ch-cluster.sh');

/** The user that creates tables and writes rows (18.16 cannot grant writes to the shard user per table). */
export const ADMIN = { username: 'admin', password: 'admin' } as const;

/** The databases the shard user may read in these clusters: the tests' local tables live there. */
export const SHARD_DATABASES = ['default', 'analytics', 'oracle', 'o', 'cht'] as const;

export interface ChServersOptions {
  n: number;
  /** HTTP ports are portBase+i, native TCP ports portBase+50+i. Use your own port range. */
  portBase: number;
  /** Shard weights of the main cluster, one per server (default all 1). */
  weights?: number[];
  /** remote_servers cluster name (default "scatter"). */
  clusterName?: string;
  /** More clusters over the same servers, by name: weights per server. */
  extraClusters?: Record<string, number[]>;
}

export interface ChServers {
  readonly urls: string[];
  readonly httpPorts: number[];
  readonly tcpPorts: number[];
  readonly clusterName: string;
  readonly dir: string;
  /** Start again every server that is down (one that crashed); resolves once each answers /ping. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

function args(cmd: 'start' | 'stop', o: ChServersOptions, dir: string): string[] {
  return [SCRIPT, cmd, String(o.n), String(o.portBase), dir, (o.weights ?? Array(o.n).fill(1)).join(',')];
}

function env(o: ChServersOptions): NodeJS.ProcessEnv {
  const extra = Object.entries(o.extraClusters ?? {})
    .map(([k, w]) => `${k}=${w.join(',')}`)
    .join(' ');
  return {
    ...process.env,
    CH_CLUSTER_NAME: o.clusterName ?? 'scatter',
    CH_EXTRA_CLUSTERS: extra,
    CH_SHARD_DATABASES: SHARD_DATABASES.join(' '),
    CH_ADMIN_PASSWORD: ADMIN.password,
  };
}

/**
 * Every test file has its own fixed port range; CH_PORT_OFFSET shifts all of them at once so two
 * checkouts can run their suites side by side on one machine without their servers colliding.
 */
const PORT_OFFSET = Number(process.env.CH_PORT_OFFSET ?? 0);

/** Start N servers in a fresh temp dir; resolves once every one answers /ping. */
export async function startChServers(opts: ChServersOptions): Promise<ChServers> {
  const o = { ...opts, portBase: opts.portBase + PORT_OFFSET };
  const dir = mkdtempSync(join(tmpdir(), 'ch-servers-'));
  const pids = () =>
    Array.from({ length: o.n }, (_, i) => {
      try {
        return Number(readFileSync(join(dir, `node-${i}`, 'server.pid'), 'utf8').trim());
      } catch {
        return 0;
      }
    });
  // If the test process dies without afterAll, do not leave servers behind.
  const onExit = () => {
    for (const pid of pids())
      if (pid > 0)
        try {
          process.kill(pid, 'SIGTERM');
        } catch {
          /* gone */
        }
  };
  process.once('exit', onExit);
  try {
    await run('bash', args('start', o, dir), { env: env(o), timeout: 120_000 });
  } catch (e) {
    const err = e as { stderr?: string; message: string };
    await run('bash', args('stop', o, dir), { env: env(o) }).catch(() => undefined);
    throw new Error(`could not start ${o.n} clickhouse-server instances: ${err.stderr || err.message}`);
  }
  let stopped = false;
  return {
    urls: Array.from({ length: o.n }, (_, i) => `http://127.0.0.1:${o.portBase + i}`),
    httpPorts: Array.from({ length: o.n }, (_, i) => o.portBase + i),
    tcpPorts: Array.from({ length: o.n }, (_, i) => o.portBase + 50 + i),
    clusterName: o.clusterName ?? 'scatter',
    dir,
    async restart() {
      await run('bash', args('start', o, dir), { env: env(o), timeout: 120_000 });
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await run('bash', args('stop', o, dir), { env: env(o), timeout: 60_000 });
      process.removeListener('exit', onExit);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Register beforeAll/afterAll hooks; the returned object is filled in once the servers answer. */
export function useChServers(o: ChServersOptions): { current: ChServers } {
  const holder = {} as { current: ChServers };
  beforeAll(async () => {
    holder.current = await startChServers(o);
  }, 120_000);
  afterAll(async () => {
    await holder.current?.stop();
  }, 60_000);
  return holder;
}

/** Run one statement over HTTP as ADMIN (plain fetch, TabSeparated unless the SQL says otherwise). */
export async function chHttp(url: string, sql: string, settings: Record<string, string | number> = {}): Promise<string> {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(settings)) qs.set(k, String(v));
  const headers = { 'X-ClickHouse-User': ADMIN.username, 'X-ClickHouse-Key': ADMIN.password };
  const res = await fetch(`${url}/?${qs}`, { method: 'POST', body: sql, headers });
  const text = await res.text();
  if (!res.ok) throw new Error(`ClickHouse ${url}: ${text.trim()}`);
  return text;
}

/** Rows of a SELECT as objects, as ADMIN (JSONEachRow; 64-bit integers come back as strings). */
export async function chRows<T = Record<string, unknown>>(url: string, sql: string): Promise<T[]> {
  const text = await chHttp(url, `${sql} FORMAT JSONEachRow`, { output_format_json_quote_64bit_integers: 1 });
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as T);
}
