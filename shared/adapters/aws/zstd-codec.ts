// zstd for the exchange's objects (ClickHouse's own default codec family), through
// @bokuweb/zstd-wasm: portable WebAssembly, so the same bundle runs on ARM64 Lambda and on x86 hosts
// (lz4-napi needs a native binary per platform). Level 1: on a 24 MB TabSeparated answer, 4.4x
// smaller in 221 ms against gzip's 3.5x in 146 ms, and 65 ms to decompress
// (docs/architecture.md#the-exchange-stage-one-answers-of-any-size).
import zstd from '@bokuweb/zstd-wasm';

export interface Codec {
  /** The name stored with each object (content-encoding). */
  readonly name: string;
  compress(data: Buffer): Buffer;
  decompress(data: Buffer): Buffer;
}

let ready: Promise<void> | undefined;

/** The codec, its WebAssembly loaded once per process. */
export function zstdCodec(level = 1): Promise<Codec> {
  ready ??= zstd.init();
  return ready.then(() => ({
    name: 'zstd',
    compress: (data) => {
      const c = zstd.compress(data, level);
      return Buffer.from(c.buffer, c.byteOffset, c.byteLength);
    },
    decompress: (data) => {
      // A cut frame fails here (or decompresses short, which the reference's length catches).
      const d = zstd.decompress(data);
      return Buffer.from(d.buffer, d.byteOffset, d.byteLength);
    },
  }));
}
