// The streaming front door against the Distributed table (docs/benchmarks.md#10-the-streaming-front-door-streaming),
// in the same run: a row export (`SELECT * ... WHERE id < N FORMAT TabSeparated`) of 100k, 1M and
// 10M rows (10M skipped with --quick) over the e2e bench's 3 Debian clickhouse-server 18.16
// instances (default.events, id % 3), read by a node:http client that counts the bytes and drops
// them. Time to first byte and total, for
//   - the door: the local stack's streaming server (local/stream-server.ts, the coordinator's stream
//     handler), each shard streamed straight from its server (replica-stream.ts);
//   - Distributed: the same SQL over HTTP to server 0's Distributed table.
// Alternating per repetition; medians. The coordinator's peak memory is this process's (the
// coordinator and the counting client): heap used and RSS above what they were before the export,
// sampled every 5 ms. Both answers must have the same byte count.
import http from 'node:http';
import { parseTopology } from '../shared/core/config/load.js';
import { startLocalStack } from '../local/stack.js';
import { loadEvents, startCluster } from './_ch-cluster.js';
import { r2, table } from './_stats.js';

const PORT_BASE = 20060;
const SHARDS = 3;

interface Read {
  ttfbMs: number;
  totalMs: number;
  bytes: number;
  peakHeapMb: number;
  peakRssMb: number;
}

function read(url: string, sql: string, headers: Record<string, string> = {}): Promise<Read> {
  const heap0 = process.memoryUsage().heapUsed;
  const rss0 = process.memoryUsage().rss;
  let peakHeap = 0;
  let peakRss = 0;
  const sample = setInterval(() => {
    const m = process.memoryUsage();
    peakHeap = Math.max(peakHeap, m.heapUsed - heap0);
    peakRss = Math.max(peakRss, m.rss - rss0);
  }, 5);
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
        clearInterval(sample);
        if (res.statusCode !== 200) return reject(new Error(`${url}: HTTP ${res.statusCode}`));
        resolve({ ttfbMs: ttfb, totalMs: performance.now() - t0, bytes, peakHeapMb: peakHeap / 2 ** 20, peakRssMb: peakRss / 2 ** 20 });
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
  let stack: Awaited<ReturnType<typeof startLocalStack>> | undefined;
  try {
    await loadEvents(cluster, sizes.at(-1)!);
    const topo = parseTopology({
      cluster: 'scatter',
      shards: cluster.urls.map((url) => ({ weight: 1, replicas: [{ url }] })),
      tables: { 'default.events_dist': { local: 'default.events', shardingKey: { column: 'id', type: 'UInt64', function: 'identity' } } },
      query: { timeoutMs: 120_000 },
    });
    stack = await startLocalStack({ topo, logLevel: 'SILENT', streamPort: 0, lambdaTimeoutMs: 900_000 });
    const admin = { 'X-ClickHouse-User': 'admin', 'X-ClickHouse-Key': 'admin' };
    for (const n of sizes) {
      const sql = `SELECT * FROM default.events_dist WHERE id < ${n} FORMAT TabSeparated`;
      const door: Read[] = [];
      const dist: Read[] = [];
      for (let i = 0; i < reps; i++) {
        // Alternate which goes first.
        const pair = i % 2 === 0 ? [true, false] : [false, true];
        for (const isDoor of pair) {
          if (isDoor) door.push(await read(`${stack.streamUrl}/?max_execution_time=120`, sql));
          else dist.push(await read(`${cluster.urls[0]}/`, sql, admin));
        }
      }
      if (door.some((d) => d.bytes !== dist[0]!.bytes)) throw new Error(`${n} rows: the door's byte count differs from the Distributed table's`);
      const m = (xs: Read[], k: keyof Read) => r2(median(xs.map((x) => x[k])));
      const mb = dist[0]!.bytes / 2 ** 20;
      json[`rows_${n}`] = {
        answerMb: r2(mb),
        door: {
          ttfbMs: m(door, 'ttfbMs'),
          totalMs: m(door, 'totalMs'),
          peakHeapMb: r2(Math.max(...door.map((d) => d.peakHeapMb))),
          peakRssMb: r2(Math.max(...door.map((d) => d.peakRssMb))),
        },
        distributed: { ttfbMs: m(dist, 'ttfbMs'), totalMs: m(dist, 'totalMs') },
      };
      rows.push(
        [
          n.toLocaleString('en-US'),
          r2(mb),
          'door',
          m(door, 'ttfbMs'),
          m(door, 'totalMs'),
          r2(Math.max(...door.map((d) => d.peakHeapMb))),
          r2(Math.max(...door.map((d) => d.peakRssMb))),
        ],
        [n.toLocaleString('en-US'), r2(mb), 'Distributed', m(dist, 'ttfbMs'), m(dist, 'totalMs'), '', ''],
      );
    }
  } finally {
    await stack?.stop();
    await cluster.stop();
  }
  return { table: table(['rows', 'answer MB', 'path', 'first byte ms', 'total ms', 'peak heap MB', 'peak RSS MB'], rows), json };
}
