// The streaming front door on Debian's clickhouse-server 18.16 (two shards, one server each), in
// the local stack (local/stream-server.ts over the coordinator's stream handler):
//  - a 1M-row export read through @clickhouse/client's stream: its row count and checksum as chdb
//    computes them over the same rows, and the coordinator's heap bounded well under the answer;
//  - a shard failing after the first byte ends the body with ClickHouse's exception block, and the
//    client raises ClickHouse's code and text;
//  - X-ClickHouse-Progress headers before the first byte, in ClickHouse's shape, growing: the shard
//    functions' progress frames over the Invoke endpoint's event stream (nothing polled locally);
//  - a client that closes the connection, after it stopped reading an export or while the shards
//    still compute before their first byte: every shard's query leaves system.processes within
//    100 ms (the median of five closes each) (the door sends each
//    attempt a cancel, and the close crosses the shard function's hop: both KILL).
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClickHouseLogLevel, createClient } from '@clickhouse/client';
import { parseTopology } from '../../shared/core/config/load.js';
import { startLocalStack, type LocalStack } from '../../local/stack.js';
import { startEmbeddedCluster, type EmbeddedCluster } from '../support/embedded-cluster.js';
import { chHttp, chRows, useChServers } from '../support/ch-servers.js';

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
process.env.POWERTOOLS_METRICS_DISABLED = 'true';

const servers = useChServers({ n: 2, portBase: 20900 });
const ROWS = 1_000_000;
/** Each row: its id and an 80-character text derived from it (the answer is ~90 MB as TSV). */
const PAD = 'x'.repeat(80);
const ROW_SQL = (from: string) => `SELECT number AS id, concat(toString(number), substring('${PAD}', 1, 80 - length(toString(number)))) AS s FROM ${from}`;
/** A row query that hashes each row's text `n` times and matches no row (the engine cannot know). */
const BUSY = (n: number) => `SELECT id FROM default.big_dist ARRAY JOIN range(${n}) AS k WHERE cityHash64(s, k) = 0`;
let stack: LocalStack;
let oracle: EmbeddedCluster;

beforeAll(async () => {
  const urls = servers.current.urls;
  for (const [i, url] of urls.entries()) {
    await chHttp(url, 'CREATE TABLE default.big (id UInt64, s String) ENGINE = MergeTree() ORDER BY id');
    await chHttp(url, `INSERT INTO default.big ${ROW_SQL('system.numbers')} WHERE number % 2 = ${i} LIMIT ${ROWS / 2}`);
    await chHttp(url, 'CREATE TABLE default.slow (n UInt64) ENGINE = MergeTree() ORDER BY n SETTINGS index_granularity = 1');
    await chHttp(url, 'INSERT INTO default.slow SELECT number FROM system.numbers LIMIT 400');
  }
  const topo = parseTopology({
    cluster: 'scatter',
    shards: urls.map((url) => ({ replicas: [{ url }] })),
    tables: {
      'default.big_dist': { local: 'default.big', shardingKey: { column: 'id', type: 'UInt64', function: 'identity' } },
      'default.slow_dist': { local: 'default.slow', shardingKey: { column: 'n', type: 'UInt64', function: 'identity' } },
    },
    // Each shard's ~45 MB of the 1M-row export passes the streaming hop's first 6 MB and then streams
    // at Lambda's 2 MB/s (the local Invoke endpoint's cap): about 19 s, well inside this deadline.
    query: { timeoutMs: 60_000 },
  });
  stack = await startLocalStack({ topo, logLevel: 'SILENT', streamPort: 0 });
  oracle = await startEmbeddedCluster({ shards: 1 });
}, 180_000);
afterAll(async () => {
  await stack?.stop();
  await oracle?.stop();
});

describe('the streaming front door on 18.16', () => {
  it('a 1M-row export through @clickhouse/client: count and checksum as chdb, the heap bounded', async () => {
    const client = createClient({ url: stack.streamUrl!, request_timeout: 120_000 });
    let peak = 0;
    const base = process.memoryUsage().heapUsed;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().heapUsed - base);
    }, 10);
    let rows = 0;
    let idSum = 0n;
    let textBytes = 0;
    try {
      const rs = await client.query({ query: 'SELECT id, s FROM default.big_dist', format: 'TabSeparated' });
      for await (const batch of rs.stream()) {
        for (const row of batch as { text: string }[]) {
          const tab = row.text.indexOf('\t');
          idSum += BigInt(row.text.slice(0, tab));
          textBytes += row.text.length - tab - 1;
          rows++;
        }
      }
    } finally {
      clearInterval(sampler);
      await client.close();
    }
    const want = await oracle.shards[0]!.queryRaw(`SELECT count(), sum(id), sum(length(s)) FROM (${ROW_SQL(`numbers(${ROWS})`)})`, { format: 'TSV' });
    expect(`${rows}\t${idSum}\t${textBytes}\n`).toBe(want.bytes.toString('utf8'));
    // The answer is ~90 MB; the coordinator (this process, the client too) never held more than a fraction.
    expect(textBytes).toBeGreaterThan(75_000_000);
    expect(peak).toBeLessThan(48 * 1024 * 1024);
  }, 180_000);

  it('a shard failing after the first byte: the body ends with the exception block, the client raises it', async () => {
    const client = createClient({ url: stack.streamUrl!, log: { level: ClickHouseLogLevel.OFF } });
    try {
      const rs = await client.query({ query: 'SELECT id, throwIf(id = 400000) FROM default.big_dist', format: 'TabSeparated' });
      expect(rs.response_headers['x-clickhouse-exception-tag']).toMatch(/^[a-z]{16}$/);
      let rows = 0;
      const read = (async () => {
        for await (const batch of rs.stream()) rows += (batch as unknown[]).length;
      })();
      await expect(read).rejects.toMatchObject({ code: '395', message: expect.stringMatching(/throwIf/) });
      expect(rows).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
    const raw = await post('SELECT id, throwIf(id = 400000) FROM default.big_dist FORMAT TSV');
    const tag = raw.headers['x-clickhouse-exception-tag'] as string;
    const tail = raw.body.subarray(raw.body.length - 400).toString('latin1');
    const m = new RegExp(`\\r\\n__exception__\\r\\n${tag}\\r\\n(Code: 395\\. DB::Exception: [^\\n]*)\\n(\\d+) ${tag}\\r\\n__exception__\\r\\n$`).exec(tail);
    expect(m, tail).not.toBeNull();
    expect(Number(m![2])).toBe(Buffer.byteLength(m![1]!) + 1);
  }, 60_000);

  it('parts interleaved at row ends: the header lines once, first, every row once', async () => {
    const r = await post('SELECT id, s FROM default.big_dist WHERE id < 200000 FORMAT TSVWithNamesAndTypes');
    expect(r.status).toBe(200);
    const lines = r.body.toString().split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.slice(0, 2)).toEqual(['id\ts', 'UInt64\tString']);
    const ids = lines.slice(2).map((l) => Number(l.slice(0, l.indexOf('\t'))));
    expect(ids.length).toBe(200_000);
    expect(new Set(ids).size).toBe(200_000);
    expect(ids.reduce((a, b) => Math.max(a, b), 0)).toBe(199_999);
    // Both shards' rows are mixed through the answer (read at once), not one part after the other.
    const firstHalfOdd = ids.slice(0, 100_000).filter((id) => id % 2 === 1).length;
    expect(firstHalfOdd).toBeGreaterThan(0);
  }, 60_000);

  it('wait_end_of_query=1 buffers as ClickHouse does: the late failure is the status and the whole body', async () => {
    const r = await post('SELECT id, throwIf(id = 400000) FROM default.big_dist FORMAT TSV', { wait_end_of_query: '1' });
    expect(r.status).toBe(500);
    expect(r.headers['x-clickhouse-exception-code']).toBe('395');
    expect(r.headers['x-clickhouse-exception-tag']).toBeUndefined();
    expect(r.body.toString()).toMatch(/^Code: 395\. DB::Exception: .*throwIf.*\n$/);
  }, 60_000);

  it('send_progress_in_http_headers=1: X-ClickHouse-Progress headers before the first byte, growing', async () => {
    // Seconds of hashing before the one matching row: progress goes out meanwhile.
    const r = await post(`${BUSY(30)} OR (id = 999999 AND k = 0) SETTINGS max_threads = 1`, {
      send_progress_in_http_headers: '1',
      http_headers_progress_interval_ms: '300',
    });
    expect(r.status, r.body.toString()).toBe(200);
    const progress: Record<string, string>[] = [];
    for (let i = 0; i < r.raw.length; i += 2) if (r.raw[i]!.toLowerCase() === 'x-clickhouse-progress') progress.push(JSON.parse(r.raw[i + 1]!));
    // At least two, and growing (below): how many more fit depends on how fast the servers hash under
    // the machine's load, which a test must not bet on.
    expect(progress.length).toBeGreaterThanOrEqual(2);
    for (const p of progress) {
      expect(Object.keys(p)).toEqual([
        'read_rows',
        'read_bytes',
        'written_rows',
        'written_bytes',
        'total_rows_to_read',
        'result_rows',
        'result_bytes',
        'elapsed_ns',
      ]);
      for (const v of Object.values(p)) expect(v).toMatch(/^\d+$/);
    }
    const reads = progress.map((p) => Number(p.read_rows));
    expect(reads).toEqual([...reads].sort((a, b) => a - b));
    expect(reads.at(-1)!).toBeGreaterThan(reads[0]!);
    expect(r.body.toString()).toBe('999999\n');
  }, 60_000);

  // Measured from the close to the last shard query's disappearance from system.processes, both
  // servers polled at once every 5 ms (an upper bound). Five closes each, judged by their median:
  // this 2-core machine runs other work beside the stack, and one close may wait its turn for a core.
  const running = async (qid: string, column: 'count()' | 'sum(read_rows)' = 'count()') => {
    const counts = await Promise.all(
      servers.current.urls.map((url) =>
        chRows<{ n: string }>(url, `SELECT ${column} AS n FROM system.processes WHERE substring(query_id, 1, ${qid.length + 1}) = '${qid}-'`),
      ),
    );
    return counts.reduce((n, rows) => n + Number(rows[0]!.n), 0);
  };
  const closeAndTime = async (qid: string, req: http.ClientRequest) => {
    const t0 = performance.now();
    req.destroy();
    await expect.poll(() => running(qid), { timeout: 5_000, interval: 5 }).toBe(0);
    return performance.now() - t0;
  };
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const CLOSES = 5;

  it('a client that stopped reading an export closes the connection: every shard query is gone within 100 ms', async () => {
    const times: number[] = [];
    for (let i = 0; i < CLOSES; i++) {
      const qid = `door-cancel-${Date.now()}-${i}`;
      // An export the client stops reading after its first piece.
      const req = http.request(`${stack.streamUrl}/?query_id=${qid}`, { method: 'POST' }, (res) => res.once('data', () => res.pause()));
      req.on('error', () => undefined);
      req.end('SELECT id, s FROM default.big_dist');
      await expect.poll(() => running(qid), { timeout: 10_000, interval: 20 }).toBe(2);
      // Until both shards' queries wait on their writes: every buffer on the way is full, nothing moves.
      let before = -1;
      await expect
        .poll(
          async () => {
            const now = await running(qid, 'sum(read_rows)');
            const still = now === before;
            before = now;
            return still;
          },
          { timeout: 30_000, interval: 200 },
        )
        .toBe(true);
      times.push(await closeAndTime(qid, req));
    }
    process.stdout.write(`export: client close to every shard query gone: ${times.map((t) => t.toFixed(0)).join(', ')} ms\n`);
    expect(median(times)).toBeLessThan(100);
  }, 120_000);

  it('a client that closes the connection while the shards run, before any byte: every shard query is gone within 100 ms', async () => {
    const times: number[] = [];
    for (let i = 0; i < CLOSES; i++) {
      const qid = `door-cancel-busy-${Date.now()}-${i}`;
      const req = http.request(`${stack.streamUrl}/?query_id=${qid}`, { method: 'POST' });
      req.on('error', () => undefined);
      // Seconds of hashing before any matching row, in small blocks: ClickHouse sees a KILL between
      // blocks (with its default blocks of 65,536 rows x 2,000 hashes, one block outlasts 100 ms).
      req.end(`${BUSY(2000)} SETTINGS max_threads = 1, max_block_size = 16`);
      await expect.poll(() => running(qid), { timeout: 10_000, interval: 20 }).toBe(2);
      times.push(await closeAndTime(qid, req));
    }
    process.stdout.write(`before any byte: client close to every shard query gone: ${times.map((t) => t.toFixed(0)).join(', ')} ms\n`);
    expect(median(times)).toBeLessThan(100);
  }, 120_000);
});

function post(sql: string, query: Record<string, string> = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; raw: string[]; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${stack.streamUrl}/?${new URLSearchParams(query)}`, { method: 'POST' }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, raw: res.rawHeaders, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(sql);
  });
}
