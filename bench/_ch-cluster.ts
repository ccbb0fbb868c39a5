// N Debian clickhouse-server 18.16 instances for the e2e bench, through scripts/ch-cluster.sh
// (HTTP on portBase+i, native TCP on portBase+50+i), in a fresh temp dir removed on stop.
// Not test/support/ch-servers.ts: that one registers vitest hooks.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const SCRIPT = resolve(dirname(fileURLToPath(import.meta.url)), '../scripts/ch-cluster.sh');

export interface BenchCluster {
  urls: string[];
  cluster: string;
  stop(): Promise<void>;
}

export async function startCluster(n: number, basePort: number, cluster = 'scatter'): Promise<BenchCluster> {
  // CH_PORT_OFFSET shifts the range, as in test/support/ch-servers.ts, for side-by-side checkouts.
  const portBase = basePort + Number(process.env.CH_PORT_OFFSET ?? 0);
  const dir = mkdtempSync(join(tmpdir(), 'ch-bench-'));
  const args = (cmd: string) => [SCRIPT, cmd, String(n), String(portBase), dir];
  const env = { ...process.env, CH_CLUSTER_NAME: cluster, CH_EXTRA_CLUSTERS: '' };
  const stop = async () => {
    await run('bash', args('stop'), { env, timeout: 60_000 }).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  };
  const onExit = () => void stop();
  try {
    await run('bash', args('start'), { env, timeout: 120_000 });
  } catch (e) {
    await stop();
    const err = e as { stderr?: string; message: string };
    throw new Error(
      `could not start ${n} clickhouse-server instances (is /usr/sbin/clickhouse-server installed? scripts/install-deps.sh): ${err.stderr || err.message}`,
    );
  }
  process.once('SIGINT', onExit);
  return {
    urls: Array.from({ length: n }, (_, i) => `http://127.0.0.1:${portBase + i}`),
    cluster,
    stop: async () => {
      process.removeListener('SIGINT', onExit);
      await stop();
    },
  };
}

/**
 * One statement or query over HTTP as the cluster's admin (a request without credentials is the
 * read-only shard user, scripts/ch-cluster/config.sh); returns the body text, throws with ClickHouse's message.
 */
export async function chHttp(url: string, sql: string, params: Record<string, string> = {}): Promise<string> {
  const u = new URL(url);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  const res = await fetch(u, { method: 'POST', body: sql, headers: { 'X-ClickHouse-User': 'admin', 'X-ClickHouse-Key': 'admin' } });
  const text = await res.text();
  if (!res.ok) throw new Error(`ClickHouse ${res.status}: ${text.slice(0, 300)} (SQL: ${sql.slice(0, 120)})`);
  return text;
}

/**
 * The benches' data set, each server holding exactly its shard (`id % n = i`: identity placement
 * over n slots), and the Distributed tables over them on server 0:
 * default.events (id UInt64, user UInt32, sensor UInt32, amount Float64, day Date), `rows` rows, with
 * user = floor(u^2 / 1e5) for a hashed u < 1e5 (~30k groups, a skewed count: the top 10 is clear-cut);
 * with `users`, default.users (100k users, 1% 'NL'), sharded by user.
 */
export async function loadEvents(cluster: BenchCluster, rows: number, opts: { users?: boolean } = {}): Promise<void> {
  const n = cluster.urls.length;
  await Promise.all(
    cluster.urls.map(async (url, i) => {
      await chHttp(url, 'CREATE TABLE default.events (id UInt64, user UInt32, sensor UInt32, amount Float64, day Date) ENGINE = MergeTree ORDER BY id');
      await chHttp(
        url,
        `INSERT INTO default.events SELECT number AS id, toUInt32(intDiv(u * u, 100000)) AS user, toUInt32(number % 1000) AS sensor, (number % 1000) / 10 AS amount, toDate('2024-01-01') + number % 365 AS day FROM (SELECT number, intHash32(number) % 100000 AS u FROM numbers(${rows})) WHERE number % ${n} = ${i}`,
      );
      if (!opts.users) return;
      await chHttp(url, 'CREATE TABLE default.users (user UInt32, country String) ENGINE = MergeTree ORDER BY user');
      await chHttp(
        url,
        `INSERT INTO default.users SELECT toUInt32(number) AS user, if(number % 100 = 0, 'NL', 'XX') AS country FROM numbers(100000) WHERE number % ${n} = ${i}`,
      );
    }),
  );
  const head = cluster.urls[0]!;
  await chHttp(head, `CREATE TABLE default.events_dist AS default.events ENGINE = Distributed(${cluster.cluster}, default, events, id)`);
  if (opts.users) await chHttp(head, `CREATE TABLE default.users_dist AS default.users ENGINE = Distributed(${cluster.cluster}, default, users, user)`);
}
