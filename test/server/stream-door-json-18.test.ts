// The JSON API's POST /query on the streaming front door, on Debian's clickhouse-server 18.16 (two
// shards, one server each), through the local stack's door:
//  - a row query whose answer the HTTP API refuses (413: a shard's part is over one Lambda payload)
//    streams whole: every row once (count and id sum as the servers compute them), meta first, the
//    completeness fields after the last row;
//  - a row query that fits both doors: the same meta, rows and completeness as the HTTP API's;
//  - a query that is no row query (an aggregate) gets the HTTP API's own answer;
//  - a shard failing after rows went out closes the document with partial: true and the error,
//    never a shorter answer labelled complete.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTopology } from '../../shared/core/config/load.js';
import { startLocalStack, type LocalStack } from '../../local/stack.js';
import { chHttp, chRows, useChServers } from '../support/ch-servers.js';

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
process.env.POWERTOOLS_METRICS_DISABLED = 'true';

const servers = useChServers({ n: 2, portBase: 21700 });
const ROWS = 200_000;
const PAD = 'y'.repeat(60);
let stack: LocalStack;

beforeAll(async () => {
  for (const [i, url] of servers.current.urls.entries()) {
    await chHttp(url, 'CREATE TABLE default.jr (id UInt64, s String, v Float64, d Date) ENGINE = MergeTree() ORDER BY id');
    await chHttp(
      url,
      `INSERT INTO default.jr SELECT number, concat(toString(number), '${PAD}'), number / 8, toDate('2024-01-01') + number % 300 FROM system.numbers WHERE number % 2 = ${i} LIMIT ${ROWS / 2}`,
    );
  }
  const topo = parseTopology({
    cluster: 'scatter',
    shards: servers.current.urls.map((url) => ({ replicas: [{ url }] })),
    tables: { 'default.jr_dist': { local: 'default.jr', shardingKey: { column: 'id', type: 'UInt64', function: 'identity' } } },
    query: { timeoutMs: 60_000 },
  });
  stack = await startLocalStack({ topo, logLevel: 'SILENT', streamPort: 0 });
}, 180_000);
afterAll(async () => {
  await stack?.stop();
});

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  chunks: number;
  text: string;
}

function postJson(base: string, body: unknown): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}/query`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, chunks: chunks.length, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const byId = (rows: Record<string, unknown>[]) => [...rows].sort((a, b) => Number(a.id) - Number(b.id));

describe("the JSON API's POST /query on the streaming door (18.16)", () => {
  it('a row answer the HTTP API refuses streams whole: every row once, meta first, completeness after the rows', async () => {
    const sql = 'SELECT id, s FROM default.jr_dist';
    const refused = await postJson(stack.url, { sql });
    expect(refused.status, refused.text.slice(0, 300)).toBe(413);
    const r = await postJson(stack.streamUrl!, { sql });
    expect(r.status, r.text.slice(0, 300)).toBe(200);
    expect(r.headers['content-type']).toMatch(/^application\/json/);
    expect(r.headers['transfer-encoding']).toBe('chunked');
    expect(r.chunks).toBeGreaterThan(1);
    const doc = JSON.parse(r.text);
    expect(doc.meta).toEqual([
      { name: 'id', type: 'UInt64' },
      { name: 's', type: 'String' },
    ]);
    expect(doc.rows).toBe(ROWS);
    expect(doc.data).toHaveLength(ROWS);
    expect(doc.partial).toBe(false);
    expect(doc.shards).toMatchObject({ total: 2, queried: 2, skipped: 0, missing: [] });
    // The shards' reads as they reported them while they ran (each polls its engine every 100 ms, so a
    // query that ended before its first reading reports none): never more than the table holds.
    expect(doc.statistics.rowsRead).toBeGreaterThanOrEqual(0);
    expect(doc.statistics.rowsRead).toBeLessThanOrEqual(ROWS);
    let sum = 0n;
    const seen = new Set<string>();
    for (const row of doc.data as { id: string; s: string }[]) {
      sum += BigInt(row.id);
      seen.add(row.id);
      expect(row.s).toBe(`${row.id}${PAD}`);
    }
    expect(seen.size).toBe(ROWS);
    let expected = 0n;
    for (const url of servers.current.urls) expected += BigInt((await chRows(url, 'SELECT toString(sum(id)) AS s FROM default.jr'))[0]!.s as string);
    expect(sum).toBe(expected);
    // The document's order: meta, then the rows, then the completeness fields.
    expect(r.text.indexOf('"meta"')).toBe(1);
    expect(r.text.lastIndexOf('"partial"')).toBeGreaterThan(r.text.lastIndexOf(`"id":"${doc.data.at(-1).id}"`));
  }, 120_000);

  it('a row answer that fits both doors: the same meta, rows and completeness as the HTTP API', async () => {
    const sql = 'SELECT id, s, v, d FROM default.jr_dist WHERE id % 997 = 3 OR v = -0.0';
    const [streamed, whole] = await Promise.all([postJson(stack.streamUrl!, { sql }), postJson(stack.url, { sql })]);
    expect(whole.status, whole.text.slice(0, 300)).toBe(200);
    expect(streamed.status, streamed.text.slice(0, 300)).toBe(200);
    const a = JSON.parse(streamed.text);
    const b = JSON.parse(whole.text);
    expect(a.meta).toEqual(b.meta);
    expect(a.rows).toBe(b.rows);
    expect(b.rows).toBeGreaterThan(100);
    expect(byId(a.data)).toEqual(byId(b.data));
    expect(a.partial).toBe(b.partial);
    expect(a.shards.missing).toEqual(b.shards.missing);
  }, 60_000);

  it("a query that is no row query gets the HTTP API's own answer", async () => {
    const sql = 'SELECT d, count() AS c, sum(v) AS sv FROM default.jr_dist GROUP BY d ORDER BY d LIMIT 5';
    const [streamed, whole] = await Promise.all([postJson(stack.streamUrl!, { sql }), postJson(stack.url, { sql })]);
    expect(streamed.status).toBe(200);
    const a = JSON.parse(streamed.text);
    const b = JSON.parse(whole.text);
    expect({ meta: a.meta, data: a.data, partial: a.partial }).toEqual({ meta: b.meta, data: b.data, partial: b.partial });
    expect(a.data).toHaveLength(5);
    // A bad request is the HTTP API's error, before any row.
    const bad = await postJson(stack.streamUrl!, { sql: 'SELEC 1' });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.text).error.code).toBe('SYNTAX_ERROR');
  }, 60_000);

  it('a shard failing after rows went out: the document ends with partial: true and the error', async () => {
    const r = await postJson(stack.streamUrl!, { sql: 'SELECT id, throwIf(id = 150000) AS t FROM default.jr_dist' });
    expect(r.status).toBe(200);
    const doc = JSON.parse(r.text);
    expect(doc.partial).toBe(true);
    expect(doc.error.code).toBe('QUERY_ERROR');
    expect(doc.error.message).toMatch(/throwIf/);
    expect(doc.rows).toBe(doc.data.length);
    expect(doc.rows).toBeLessThan(ROWS);
    expect(doc.shards.missing).toEqual([expect.objectContaining({ shard: 0 })]);
  }, 60_000);
});
