// ZSTD as the Lambda bundles carry it: the coordinator's wire codecs (ClickHouse's compressed blocks,
// the zstd HTTP encoding) and the shard's exchange codec, built by the CDK app's own bundling
// (HandlerBundling: cdk/bundling.ts's esbuild options and the packages shipped in node_modules beside
// the bundle), copied to a directory outside the project and run there by a plain `node` with no
// NODE_PATH, as Lambda runs a task root. On this machine that node is Node 20, which has no zstd in
// node:zlib: the codec is @bokuweb/zstd-wasm's WebAssembly, read from the shipped package.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ENTRY, HandlerBundling, PROJECT_ROOT } from '../../cdk/bundling.js';
import { sourceMapFiles } from '../../cdk/bundle-contents.js';
import { loadWireCodecs } from '../../functions/coordinator/wire-codecs.js';
import { decompressBlocks } from '../../shared/core/clickhouse-http/block-compression.js';

const dir = mkdtempSync(join(tmpdir(), 'wire-codecs-bundle-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Bundled as the CDK app bundles a handler, then moved out of the project (its node_modules out of reach). */
function bundle(name: string, entry: string): string {
  const built = join(dir, `${name}-built`);
  expect(new HandlerBundling(entry).local.tryBundle(built, { image: undefined as never })).toBe(true);
  const root = join(dir, `${name}-task`);
  cpSync(built, root, { recursive: true });
  return root;
}

/** `node` in `cwd` with only PATH (no NODE_PATH, no loader), answering the script's JSON line. */
function runNode(cwd: string, script: string): Record<string, unknown> {
  writeFileSync(join(cwd, 'probe.mjs'), script);
  const out = execFileSync(process.execPath, ['probe.mjs'], { cwd, env: { PATH: process.env.PATH ?? '' }, encoding: 'utf8', timeout: 60_000 });
  return JSON.parse(out.trim().split('\n').pop()!) as Record<string, unknown>;
}

const DATA = Buffer.from(`${'SELECT k, count() FROM analytics.events_dist GROUP BY k; '.repeat(300)}`);

describe('ZSTD inside the Lambda bundles, run by node from the bundle directory', () => {
  it('the coordinator and shard handler bundles import the codec from the package shipped beside them', () => {
    for (const [name, entry, source] of [
      ['coordinator', ENTRY.coordinator, 'functions/coordinator/wire-codecs.ts'],
      ['shard', ENTRY.shard, 'shared/adapters/aws/zstd-codec.ts'],
    ] as const) {
      const root = bundle(name, entry);
      // The output file that holds the codec (its source map lists it) imports the package by name.
      const map = sourceMapFiles(root).find((m) =>
        (JSON.parse(readFileSync(join(root, m), 'utf8')) as { sources: string[] }).sources.some((s) => s.endsWith(source)),
      );
      expect(map, `${name}: no output holds ${source}`).toBeDefined();
      const code = readFileSync(join(root, map!.replace(/\.map$/, '')), 'utf8');
      expect(code).toMatch(/["']@bokuweb\/zstd-wasm["']/);
      // Node resolves that name from the output file's directory to the shipped copy, never the project's.
      const resolved = runNode(
        root,
        `import { createRequire } from 'node:module';\nconst r = createRequire(new URL(${JSON.stringify(`./${map!.replace(/\.map$/, '')}`)}, import.meta.url));\nconsole.log(JSON.stringify({ path: r.resolve('@bokuweb/zstd-wasm') }));\n`,
      );
      expect(String(resolved.path).startsWith(join(root, 'node_modules', '@bokuweb', 'zstd-wasm'))).toBe(true);
      expect(readdirSync(join(root, 'node_modules', '@bokuweb', 'zstd-wasm'), { recursive: true }).some((f) => String(f).endsWith('.wasm'))).toBe(true);
    }
  });

  it('the wire codecs and the exchange codec, bundled the same way, compress and decompress ZSTD there (and LZ4)', async () => {
    const probe = join(dir, 'probe-entry.ts');
    writeFileSync(
      probe,
      [
        `export { loadWireCodecs } from ${JSON.stringify(join(PROJECT_ROOT, 'functions/coordinator/wire-codecs.ts'))};`,
        `export { zstdCodec } from ${JSON.stringify(join(PROJECT_ROOT, 'shared/adapters/aws/zstd-codec.ts'))};`,
        `export { compressBlocks, decompressBlocks } from ${JSON.stringify(join(PROJECT_ROOT, 'shared/core/clickhouse-http/block-compression.ts'))};`,
      ].join('\n'),
    );
    const root = bundle('codecs', probe);
    const data = DATA.toString('base64');
    const fromParent = (await loadWireCodecs()).zstd.compress(DATA, 3).toString('base64');
    const r = runNode(
      root,
      `import * as m from './index.mjs';
const data = Buffer.from(${JSON.stringify(data)}, 'base64');
const wire = await m.loadWireCodecs();
const exchange = await m.zstdCodec();
const frame = wire.zstd.compress(data, 1);
const block = m.compressBlocks(data, 'zstd', wire);
const back = m.decompressBlocks(block, wire, 1 << 20);
const parentFrame = wire.zstd.decompress(Buffer.from(${JSON.stringify(fromParent)}, 'base64'));
const object = exchange.compress(data);
console.log(JSON.stringify({ node: process.version, nativeZstd: typeof (await import('node:zlib')).zstdCompressSync === 'function',
  frame: frame.toString('base64'), block: block.toString('base64'), blockBack: back.equals(data), parentFrame: parentFrame.equals(data),
  object: object.toString('base64'), objectBack: exchange.decompress(object).equals(data),
  lz4: wire.lz4Block.decompress(wire.lz4Block.compress(data), data.length).equals(data) && wire.lz4Frame.decompress(wire.lz4Frame.compress(data)).equals(data) }));
`,
    );
    expect(String(r.node)).toMatch(/^v20\./);
    expect(r.nativeZstd).toBe(false);
    const codecs = await loadWireCodecs();
    // What the bundle wrote is ZSTD that another codec reads: a frame, a ClickHouse block (method 0x90), an exchange object.
    expect(codecs.zstd.decompress(Buffer.from(String(r.frame), 'base64')).equals(DATA)).toBe(true);
    const block = Buffer.from(String(r.block), 'base64');
    expect(block[16]).toBe(0x90);
    expect(block.length).toBeLessThan(DATA.length / 4);
    expect(decompressBlocks(block, codecs, 1 << 20).equals(DATA)).toBe(true);
    expect(codecs.zstd.decompress(Buffer.from(String(r.object), 'base64')).equals(DATA)).toBe(true);
    expect([r.blockBack, r.parentFrame, r.objectBack, r.lz4]).toEqual([true, true, true, true]);
  });
});
