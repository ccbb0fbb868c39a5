// The streaming front door over embedded (chdb) shards in the local stack: each shard's part comes
// whole through its shard host (the whole-answer streamer) and is written on before the next is
// read. Every format that concatenates answers what one chdb engine holding all the rows answers:
// the same header once, the same rows (in shard order, so compared sorted), the same byte count.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTopology } from '../../../shared/core/config/load.js';
import { startLocalStack, type LocalStack } from '../../../local/stack.js';
import { startEmbeddedCluster, type EmbeddedCluster } from '../../support/embedded-cluster.js';

const ROWS = 3000;
const DDL = 'CREATE TABLE default.ev (id UInt64, site String, v Float64, at DateTime) ENGINE = MergeTree ORDER BY id';
const row = (i: number) => ({ id: i, site: `s-${i % 7}\t"x"`, v: i / 8, at: '2026-01-02 03:04:05' });
let dir: string;
let stack: LocalStack;
let oracle: EmbeddedCluster;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stream-door-chdb-'));
  const topo = parseTopology({
    cluster: 'c',
    shards: [0, 1, 2].map((i) => ({ replicas: [{ embedded: path.join(dir, `shard-${i}`) }] })),
    tables: { 'default.ev_dist': { local: 'default.ev', shardingKey: { column: 'id', type: 'UInt64', function: 'identity' } } },
  });
  stack = await startLocalStack({ topo, logLevel: 'SILENT', streamPort: 0 });
  const exec = await fetch(`${stack.url}/admin/exec`, { method: 'POST', body: JSON.stringify({ sql: DDL }) });
  expect(exec.status, await exec.text()).toBe(200);
  const lines = Array.from({ length: ROWS }, (_, i) => JSON.stringify(row(i))).join('\n');
  const ins = await fetch(`${stack.url}/admin/insert?table=default.ev_dist`, { method: 'POST', body: lines });
  expect(ins.status, await ins.text()).toBe(200);
  oracle = await startEmbeddedCluster({ shards: 1 });
  await oracle.execAll(DDL);
  await oracle.shards[0]!.insert(
    'default.ev',
    Array.from({ length: ROWS }, (_, i) => row(i)),
  );
}, 180_000);
afterAll(async () => {
  await stack?.stop();
  await oracle?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

async function door(sql: string): Promise<{ status: number; body: Buffer; headers: Headers }> {
  const r = await fetch(`${stack.streamUrl}/`, { method: 'POST', body: sql });
  return { status: r.status, body: Buffer.from(await r.arrayBuffer()), headers: r.headers };
}

/** Header lines as they are, the rest sorted. */
function lines(b: Buffer, header: number): { head: string[]; rows: string[] } {
  const all = b
    .toString('utf8')
    .split('\n')
    .filter((l) => l !== '');
  return { head: all.slice(0, header), rows: all.slice(header).sort() };
}

describe('the streaming door over chdb shards', () => {
  for (const [format, header] of [
    ['TabSeparatedWithNamesAndTypes', 2],
    ['CSVWithNames', 1],
    ['JSONEachRow', 0],
    ['TSV', 0],
  ] as const) {
    it(`${format}: the header once and every row, as one engine answers`, async () => {
      const sql = `SELECT id, site, v, at FROM default.ev_dist WHERE id % 3 != 1 FORMAT ${format}`;
      const got = await door(sql);
      expect(got.status, got.body.toString()).toBe(200);
      expect(got.headers.get('x-clickhouse-exception-tag')).toMatch(/^[a-z]{16}$/);
      const want = await oracle.shards[0]!.queryRaw(sql.replace('ev_dist', 'ev').replace(/ FORMAT \w+$/, ''), { format });
      expect(lines(got.body, header)).toEqual(lines(want.bytes, header));
      expect(got.body.length).toBe(want.bytes.length);
    });
  }

  it('RowBinaryWithNamesAndTypes: the header once, the same bytes in all', async () => {
    const got = await door('SELECT id, v FROM default.ev_dist FORMAT RowBinaryWithNamesAndTypes');
    const want = await oracle.shards[0]!.queryRaw('SELECT id, v FROM default.ev', { format: 'RowBinaryWithNamesAndTypes' });
    const headerBytes = 1 + 3 + 2 + 7 + 8; // the column count, then "id", "v", "UInt64", "Float64", each length-prefixed
    expect(got.body.subarray(0, headerBytes)).toEqual(want.bytes.subarray(0, headerBytes));
    expect(got.body.length).toBe(want.bytes.length);
    // 16 bytes a row: the same multiset of rows.
    const rowsOf = (b: Buffer) =>
      Array.from({ length: (b.length - headerBytes) / 16 }, (_, i) => b.subarray(headerBytes + i * 16, headerBytes + i * 16 + 16).toString('hex')).sort();
    expect(rowsOf(got.body)).toEqual(rowsOf(want.bytes));
  });

  it('what does not stream (an ORDER BY ... LIMIT, a non-concatenating format) is answered whole, as the interface does', async () => {
    const got = await door('SELECT id FROM default.ev_dist ORDER BY id DESC LIMIT 3 FORMAT JSONCompact');
    expect(got.status).toBe(200);
    expect(got.headers.get('x-clickhouse-exception-tag')).toBeNull();
    expect(JSON.parse(got.body.toString()).data.map(([id]: [unknown]) => Number(id))).toEqual([2999, 2998, 2997]);
  });

  it('a truncating overflow mode is answered whole (the final stage applies it too), with the truncated label', async () => {
    const settings = "SETTINGS max_rows_to_read = 100, read_overflow_mode = 'break', max_block_size = 10, max_threads = 1";
    const got = await door(`SELECT id FROM default.ev_dist ${settings} FORMAT TSV`);
    expect(got.status, got.body.toString().slice(0, 300)).toBe(200);
    expect(got.headers.get('x-clickhouse-exception-tag')).toBeNull();
    // Each shard's 1000 rows are read in one block here, so the limit cuts nothing the engine reports: the label stays.
    expect(got.body.toString().trim().split('\n').length).toBeLessThanOrEqual(ROWS);
    expect(JSON.parse(got.headers.get('x-ch-scatter-truncated')!)).toEqual([expect.stringContaining("read_overflow_mode = 'break' at max_rows_to_read = 100")]);
    // The door's JSON API: never the streamed answer's partial: false.
    const r = await fetch(`${stack.streamUrl}/query`, { method: 'POST', body: JSON.stringify({ sql: `SELECT id FROM default.ev_dist ${settings}` }) });
    const b = (await r.json()) as { rows: number; partial: boolean; truncated: string[] };
    expect(r.status, JSON.stringify(b).slice(0, 300)).toBe(200);
    expect([b.partial, b.truncated.length, b.rows <= ROWS]).toEqual([true, 1, true]);
  });

  it("the key's constant operands are folded on one engine: streamed from the shards their values live on, under force_optimize_skip_unused_shards", async () => {
    const where = 'id IN (1 + 1, toUInt64(5), intDiv(4000, 2))';
    const got = await door(`SELECT id, site FROM default.ev_dist WHERE ${where} SETTINGS force_optimize_skip_unused_shards = 1 FORMAT TSV`);
    expect(got.status, got.body.toString().slice(0, 300)).toBe(200);
    // Streamed (the exception tag), not answered whole.
    expect(got.headers.get('x-clickhouse-exception-tag')).toMatch(/^[a-z]{16}$/);
    const want = await oracle.shards[0]!.queryRaw(`SELECT id, site FROM default.ev WHERE ${where}`, { format: 'TSV' });
    expect(lines(got.body, 0)).toEqual(lines(want.bytes, 0));
    // The door's JSON API streams rows the same way.
    const r = await fetch(`${stack.streamUrl}/query`, {
      method: 'POST',
      body: JSON.stringify({ sql: `SELECT id FROM default.ev_dist WHERE ${where}`, settings: { force_optimize_skip_unused_shards: 1 } }),
    });
    const b = (await r.json()) as { data: { id: string }[]; shards: { skipped: number } };
    expect(r.status, JSON.stringify(b).slice(0, 300)).toBe(200);
    expect(b.data.map((x) => Number(x.id)).sort((x, y) => x - y)).toEqual([2, 5, 2000]);
    expect(b.shards.skipped).toBeGreaterThan(0);
  });

  it('an unknown column before the first byte: an ordinary exception answer', async () => {
    const got = await door('SELECT nope FROM default.ev_dist FORMAT TSV');
    expect(got.status).toBe(404);
    expect(got.headers.get('x-clickhouse-exception-code')).toBe('47');
    expect(got.body.toString()).toMatch(/^Code: 47\. DB::Exception: /);
  });

  it('with send_progress_in_http_headers=1 (the shards answer in frames): the same bytes, an error as before', async () => {
    const sql = 'SELECT id, site, v, at FROM default.ev_dist FORMAT TSV';
    const plain = await door(sql);
    const r = await fetch(`${stack.streamUrl}/?send_progress_in_http_headers=1`, { method: 'POST', body: sql });
    expect(r.status).toBe(200);
    const framed = Buffer.from(await r.arrayBuffer());
    expect(lines(framed, 0)).toEqual(lines(plain.body, 0));
    const bad = await fetch(`${stack.streamUrl}/?send_progress_in_http_headers=1`, { method: 'POST', body: 'SELECT nope FROM default.ev_dist FORMAT TSV' });
    expect([bad.status, bad.headers.get('x-clickhouse-exception-code')]).toEqual([404, '47']);
    // Parts one after another (CSV): the first shard fails while the later ones have started and wait.
    const late = await fetch(`${stack.streamUrl}/?send_progress_in_http_headers=1`, {
      method: 'POST',
      body: 'SELECT id, throwIf(id = 3) FROM default.ev_dist FORMAT CSV',
    });
    expect([late.status, late.headers.get('x-clickhouse-exception-code')]).toEqual([500, '395']);
  });
});
