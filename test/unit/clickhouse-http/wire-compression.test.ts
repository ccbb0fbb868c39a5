// ClickHouse's compressed blocks (compress=1 / decompress=1) against ClickHouse's own: 18.16 reads
// the blocks ch-scatter writes (it checks each CityHash128 checksum and answers 40 for a wrong one),
// and ch-scatter reads the blocks ClickHouse 26 (chdb) writes into MergeTree .bin files, where the
// NONE and ZSTD blocks are the same bytes as ch-scatter's for the same data. 18.16's own compress=1
// answers are empty bodies (that version writes nothing there), so its blocks come from the other way.
import { readdirSync, readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Session } from 'chdb';
import { compressBlocks, decompressBlocks, type WireCodecs } from '../../../shared/core/clickhouse-http/block-compression.js';
import { cityHash128Bytes } from '../../../shared/core/clickhouse-http/cityhash102.js';
import { ChHttpError } from '../../../shared/core/clickhouse-http/exception.js';
import { loadWireCodecs } from '../../../functions/coordinator/wire-codecs.js';
import { ADMIN, chHttp, useChServers } from '../../support/ch-servers.js';

const servers = useChServers({ n: 1, portBase: 21400 });
let codecs: WireCodecs;
beforeAll(async () => {
  codecs = await loadWireCodecs();
});

const LENGTHS = [0, 1, 3, 4, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 150, 191, 192, 255, 256, 257, 300, 1000, 4097];

/** A statement of exactly `len` bytes (a comment pads it) answering `len`. */
const statementOf = (len: number) => {
  const head = `SELECT ${len}`;
  return Buffer.from(len <= head.length + 3 ? `SELECT ${len}`.padEnd(Math.max(len, head.length)) : `${head} --${'x'.repeat(len - head.length - 3)}`);
};

async function post18(body: Buffer, params = 'decompress=1'): Promise<{ status: number; text: string }> {
  const r = await fetch(`${servers.current.urls[0]}/?${params}`, { method: 'POST', body });
  return { status: r.status, text: await r.text() };
}

describe('18.16 reads the blocks ch-scatter writes', () => {
  it.each(['none', 'lz4', 'zstd'] as const)('%s blocks of every length class: checksum and data accepted', async (method) => {
    for (const len of LENGTHS.filter((l) => l >= 8)) {
      const sql = statementOf(len);
      const r = await post18(compressBlocks(sql, method, codecs));
      expect({ len, ...r }).toEqual({ len, status: 200, text: `${len}\n` });
      expect(decompressBlocks(compressBlocks(sql, method, codecs), codecs, 1 << 30).equals(sql)).toBe(true);
    }
  });

  it('a body over one block (1 MiB) is cut into blocks ClickHouse reads back in order', async () => {
    const url = servers.current.urls[0]!;
    await chHttp(url, 'CREATE TABLE IF NOT EXISTS default.wire_rows (i UInt32, s String) ENGINE = Memory');
    const rows = Array.from({ length: 30_000 }, (_, i) => `${i}\t${'ab'.repeat(20 + (i % 50))}`).join('\n');
    const blocks = compressBlocks(Buffer.from(rows), 'lz4', codecs);
    expect(blocks.readUInt32LE(16 + 5)).toBe(1 << 20);
    const q = new URLSearchParams({ decompress: '1', query: 'INSERT INTO default.wire_rows FORMAT TSV', user: ADMIN.username, password: ADMIN.password });
    const r = await fetch(`${url}/?${q}`, { method: 'POST', body: blocks });
    expect(r.status, await r.text()).toBe(200);
    const chars = Array.from({ length: 30_000 }, (_, i) => 2 * (20 + (i % 50))).reduce((a, b) => a + b, 0);
    expect(await chHttp(url, 'SELECT count(), sum(i), sum(length(s)) FROM default.wire_rows')).toBe(`30000\t449985000\t${chars}\n`);
  });

  it('a wrong checksum: 18.16 refuses it with 40, and so does ch-scatter', async () => {
    const blocks = compressBlocks(Buffer.from('SELECT 1'), 'lz4', codecs);
    blocks[3]! ^= 0x01;
    const r = await post18(blocks);
    expect(r.status).toBe(500);
    expect(r.text).toMatch(/^Code: 40\b/);
    expect(() => decompressBlocks(blocks, codecs, 1 << 30)).toThrow(expect.objectContaining({ chCode: 40 }));
  });

  it('an unknown method is 89, a cut block 271, never a crash', () => {
    const blocks = compressBlocks(Buffer.from('SELECT 1'), 'none', codecs);
    const bad = Buffer.from(blocks);
    bad[16] = 0x7f;
    cityHash128Bytes(bad.subarray(16)).copy(bad, 0);
    expect(() => decompressBlocks(bad, codecs, 1 << 30)).toThrow(expect.objectContaining({ chCode: 89 }));
    for (let cut = 1; cut < blocks.length; cut++) {
      try {
        decompressBlocks(blocks.subarray(0, cut), codecs, 1 << 30);
        expect.unreachable(`cut at ${cut} was read`);
      } catch (e) {
        expect(e).toBeInstanceOf(ChHttpError);
        expect([271, 40]).toContain((e as ChHttpError).chCode);
      }
    }
  });
});

describe('ClickHouse 26 (chdb) blocks in MergeTree files', () => {
  let dir: string;
  let files: Record<string, Buffer>;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'wire-bin-'));
    const s = new Session(dir);
    s.query(
      'CREATE TABLE t (k UInt64, a String CODEC(NONE), b String CODEC(ZSTD(1)), c String CODEC(LZ4), d UInt64 CODEC(ZSTD(3))) ENGINE = MergeTree ORDER BY k SETTINGS min_bytes_for_wide_part = 0',
    );
    s.query(
      'INSERT INTO t SELECT number, repeat(toString(number), 3), repeat(toString(number), 3), repeat(toString(number), 3), number * 7 FROM numbers(5000)',
    );
    const part = String(s.query("SELECT path FROM system.parts WHERE table = 't' AND active", 'TSV')).trim();
    files = Object.fromEntries(
      readdirSync(part)
        .filter((f) => f.endsWith('.bin'))
        .map((f) => [f, readFileSync(join(part, f))]),
    );
    s.cleanup?.();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('each file decompresses with its checksums verified, and all three columns hold the same bytes', () => {
    const [a, b, c] = ['a.bin', 'b.bin', 'c.bin'].map((f) => decompressBlocks(files[f]!, codecs, 1 << 30));
    expect(files['a.bin']![16]).toBe(0x02);
    expect(files['b.bin']![16]).toBe(0x90);
    expect(files['c.bin']![16]).toBe(0x82);
    expect(a!.length).toBeGreaterThan(10_000);
    expect(b!.equals(a!)).toBe(true);
    expect(c!.equals(a!)).toBe(true);
  });

  it("NONE and ZSTD blocks written here are ClickHouse's bytes for the same data", () => {
    const a = decompressBlocks(files['a.bin']!, codecs, 1 << 30);
    expect(compressBlocks(a, 'none', codecs).equals(files['a.bin']!)).toBe(true);
    expect(compressBlocks(a, 'zstd', codecs, 1).equals(files['b.bin']!)).toBe(true);
    const d = decompressBlocks(files['d.bin']!, codecs, 1 << 30);
    expect(compressBlocks(d, 'zstd', codecs, 3).equals(files['d.bin']!)).toBe(true);
  });
});
