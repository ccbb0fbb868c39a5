// The wire codecs as the Lambda build bundles them (cdk/bundling.ts's esbuild options): LZ4 must load
// and round-trip there, and ZSTD either works (node:zlib's, Node 22.15+) or is refused with 48 (the
// WebAssembly fallback cannot find its .wasm inside a bundle), never a crash of the whole codec set.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { buildSync } from 'esbuild';
import { esbuildOptions, PROJECT_ROOT } from '../../cdk/bundling.js';
import type { WireCodecs } from '../../shared/core/clickhouse-http/block-compression.js';

const dir = mkdtempSync(join(tmpdir(), 'wire-codecs-bundle-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('wire codecs in a Lambda bundle', () => {
  it('LZ4 blocks and frames round-trip; ZSTD works or is 48', async () => {
    buildSync({ ...esbuildOptions(join(PROJECT_ROOT, 'functions', 'coordinator', 'wire-codecs.ts'), dir), logLevel: 'error' });
    const m = (await import(pathToFileURL(join(dir, 'index.mjs')).href)) as { loadWireCodecs(): Promise<WireCodecs> };
    const c = await m.loadWireCodecs();
    const data = Buffer.from('abc '.repeat(500));
    expect(c.lz4Block.decompress(c.lz4Block.compress(data), data.length).equals(data)).toBe(true);
    expect(c.lz4Frame.decompress(c.lz4Frame.compress(data)).equals(data)).toBe(true);
    try {
      expect(c.zstd.decompress(c.zstd.compress(data, 1)).equals(data)).toBe(true);
    } catch (e) {
      expect((e as { chCode?: number }).chCode).toBe(48);
    }
  });
});
