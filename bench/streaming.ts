// The streaming front door against the Distributed table (docs/benchmarks.md#10-the-streaming-front-door-streaming),
// in the same run: a row export (`SELECT * ... WHERE id < N FORMAT TabSeparated`) of 100k, 1M and
// 10M rows (10M skipped with --quick) over the e2e bench's 3 Debian clickhouse-server 18.16
// instances (default.events, id % 3), read by a node:http client that counts the bytes and drops
// them. Time to first byte and total, for
//   - the door: the local stack's streaming door (the coordinator's stream handler) in a process of
//     its own (_door-child.ts), reading each shard through the shard functions' streaming hop; the
//     shard functions, their Invoke endpoint and the client in this process;
//   - Distributed: the same SQL over HTTP to server 0's Distributed table.
// Alternating per repetition; medians. The coordinator's peak memory is the door process's peak
// resident set during each export (VmHWM, reset before it: _peak-memory.ts), the largest of the
// repetitions, with its resident set when the export began. Both answers must have the same byte count.
import http from 'node:http';
import { parseTopology } from '../shared/core/config/load.js';
import { startLocalShards } from '../local/stack.js';
import { loadEvents, startCluster } from './_ch-cluster.js';
import { startChild } from './_fork.js';
import { peakMb, resetPeak } from './_peak-memory.js';
import { r2, table } from './_stats.js';

const PORT_BASE = 20060;
const SHARDS = 3;

interface Read {
  ttfbMs: number;
  totalMs: number;
  bytes: number;
  /** The serving process's resident MB as the export began, and its peak during it (when a pid is given). */
  rssBeforeMb: number;
  peakRssMb: number;
}

function read(url: string, sql: string, headers: Record<string, string> = {}, pid?: number): Promise<Read> {
  const rssBefore = pid ? resetPeak(pid) : 0;
  const t0 = performance.now();
  return new Promise<Read>((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers }, (res) => {
      let ttfb = 0;
      let bytes = 0;
      res.on('data', (c: Buffer) => {
        if (bytes === 0) ttfb = performance.now() - t0;
        bytes += c.length;
      });
      res.on('end', () => {
        if (res.statusCode !== 200) return reject(new Error(`${url}: HTTP ${res.statusCode}`));
        resolve({ ttfbMs: ttfb, totalMs: performance.now() - t0, bytes, rssBeforeMb: rssBefore, peakRssMb: pid ? peakMb(pid) : 0 });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(sql);
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function run(opts: { quick: boolean }): Promise<{ table: string; json: Record<string, unknown> }> {
  const sizes = opts.quick ? [100_000, 1_000_000] : [100_000, 1_000_000, 10_000_000];
  const reps = opts.quick ? 3 : 5;
  const cluster = await startCluster(SHARDS, PORT_BASE, 'scatter');
  const json: Record<string, unknown> = {};
  const rows: (string | number)[][] = [];
  let shards: Awaited<ReturnType<typeof startLocalShards>> | undefined;
  let door: Awaited<ReturnType<typeof startChild<{ url: string; pid: number }>>> | undefined;
  try {
    await loadEvents(cluster, sizes.at(-1)!);
    const config = {
      cluster: 'scatter',
      shards: cluster.urls.map((url) => ({ weight: 1, replicas: [{ url }] })),
      tables: { 'default.events_dist': { local: 'default.events', shardingKey: { column: 'id', type: 'UInt64', function: 'identity' } } },
      query: { timeoutMs: 120_000 },
    };
    shards = await startLocalShards(parseTopology(config), { exchange: false });
    door = await startChild<{ url: string; pid: number }>('_door-child', { topo: config, invokeUrl: shards.invokeUrl, lambdaTimeoutMs: 900_000 });
    const admin = { 'X-ClickHouse-User': 'admin', 'X-ClickHouse-Key': 'admin' };
    for (const n of sizes) {
      const sql = `SELECT * FROM default.events_dist WHERE id < ${n} FORMAT TabSeparated`;
      const doorReads: Read[] = [];
      const dist: Read[] = [];
      for (let i = 0; i < reps; i++) {
        // Alternate which goes first.
        const pair = i % 2 === 0 ? [true, false] : [false, true];
        for (const isDoor of pair) {
          if (isDoor) doorReads.push(await read(`${door.info.url}/?max_execution_time=120`, sql, {}, door.info.pid));
          else dist.push(await read(`${cluster.urls[0]}/`, sql, admin));
        }
      }
      if (doorReads.some((d) => d.bytes !== dist[0]!.bytes)) throw new Error(`${n} rows: the door's byte count differs from the Distributed table's`);
      const m = (xs: Read[], k: keyof Read) => r2(median(xs.map((x) => x[k])));
      const mb = dist[0]!.bytes / 2 ** 20;
      json[`rows_${n}`] = {
        answerMb: r2(mb),
        door: {
          ttfbMs: m(doorReads, 'ttfbMs'),
          totalMs: m(doorReads, 'totalMs'),
          peakRssMb: r2(Math.max(...doorReads.map((d) => d.peakRssMb))),
          rssBeforeMb: r2(Math.max(...doorReads.map((d) => d.rssBeforeMb))),
          peakAboveBeforeMb: r2(Math.max(...doorReads.map((d) => d.peakRssMb - d.rssBeforeMb))),
        },
        distributed: { ttfbMs: m(dist, 'ttfbMs'), totalMs: m(dist, 'totalMs') },
      };
      rows.push(
        [
          n.toLocaleString('en-US'),
          r2(mb),
          'door',
          m(doorReads, 'ttfbMs'),
          m(doorReads, 'totalMs'),
          r2(Math.max(...doorReads.map((d) => d.peakRssMb))),
          r2(Math.max(...doorReads.map((d) => d.rssBeforeMb))),
        ],
        [n.toLocaleString('en-US'), r2(mb), 'Distributed', m(dist, 'ttfbMs'), m(dist, 'totalMs'), '', ''],
      );
    }
  } finally {
    await door?.stop();
    await shards?.stop();
    await cluster.stop();
  }
  return { table: table(['rows', 'answer MB', 'path', 'first byte ms', 'total ms', 'door peak RSS MB', 'door RSS before MB'], rows), json };
}
