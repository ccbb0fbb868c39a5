// The codecs of ClickHouse's wire (shared/core/clickhouse-http/block-compression.ts): LZ4's raw block
// format and frames from lz4js (pure JavaScript: the Lambda bundle needs no native module for its
// architecture), ZSTD from node:zlib where Node has it, else @bokuweb/zstd-wasm. Loaded on the first
// request that needs them.
import type { WireCodecs } from '../../shared/core/clickhouse-http/block-compression.js';
import { ChHttpError } from '../../shared/core/clickhouse-http/exception.js';

let loading: Promise<WireCodecs> | undefined;

/** A CommonJS module's exports: Node names them on the namespace, an esbuild bundle only under `default`. */
function cjs<T extends object>(ns: T): T {
  const d = (ns as { default?: T }).default;
  return d && typeof d === 'object' ? d : ns;
}

export function loadWireCodecs(): Promise<WireCodecs> {
  loading ??= build();
  loading.catch(() => {
    loading = undefined;
  });
  return loading;
}

/** An LZ4 block of one literal run: lz4js answers 0 for input it cannot shorten, ClickHouse still needs a block. */
function literalsOnly(data: Buffer): Buffer {
  const len: number[] = [];
  if (data.length >= 15) {
    len.push(0xf0);
    let n = data.length - 15;
    for (; n >= 255; n -= 255) len.push(255);
    len.push(n);
  } else len.push(data.length << 4);
  return Buffer.concat([Buffer.from(len), data]);
}

/** Node's own ZSTD (node:zlib from Node 22.15, Lambda's runtime), else the WebAssembly build (Node 20 here). */
async function zstdCodec(): Promise<WireCodecs['zstd']> {
  const z = (await import('node:zlib')) as unknown as {
    zstdCompressSync?: (b: Buffer, o: object) => Buffer;
    zstdDecompressSync?: (b: Buffer, o?: object) => Buffer;
    constants: Record<string, number>;
  };
  if (z.zstdCompressSync && z.zstdDecompressSync) {
    const { zstdCompressSync, zstdDecompressSync } = z;
    const levelKey = z.constants.ZSTD_c_compressionLevel!;
    return { compress: (data, level) => zstdCompressSync(data, { params: { [levelKey]: level } }), decompress: (data) => zstdDecompressSync(data) };
  }
  // The WebAssembly build reads zstd.wasm beside its own file: that works from node_modules, not from a
  // bundle. Without it LZ4 still works, and what needs ZSTD is 48.
  try {
    const zstd = cjs(await import('@bokuweb/zstd-wasm'));
    await zstd.init();
    return { compress: (data, level) => Buffer.from(zstd.compress(data, level)), decompress: (data) => Buffer.from(zstd.decompress(data)) };
  } catch (e) {
    const missing = () => {
      throw new ChHttpError(48, `ZSTD is not available in this runtime (${(e as Error).message})`);
    };
    return { compress: missing, decompress: missing };
  }
}

async function build(): Promise<WireCodecs> {
  const [lz4, zstd] = await Promise.all([import('lz4js').then(cjs), zstdCodec()]);
  const hashTable = new Uint32Array(1 << 16);
  return {
    lz4Block: {
      compress(data) {
        const dst = Buffer.alloc(lz4.compressBound(data.length));
        hashTable.fill(0);
        const n = lz4.compressBlock(data, dst, 0, data.length, hashTable);
        return n > 0 ? dst.subarray(0, n) : literalsOnly(data);
      },
      decompress(data, size) {
        const dst = Buffer.alloc(size);
        // lz4js writes past a typed array's end without complaint: the sizes are checked by the caller.
        const n = lz4.decompressBlock(data, dst, 0, data.length, 0);
        return n === size ? dst : dst.subarray(0, Math.min(n, size));
      },
    },
    zstd,
    lz4Frame: {
      compress: (data) => Buffer.from(lz4.compress(data)),
      decompress: (data) => Buffer.from(lz4.decompress(data)),
    },
  };
}
