// ClickHouse's own compressed blocks, as `compress=1` answers and `decompress=1` request bodies carry
// them (and as its TCP protocol and .bin files do): per block, the 16-byte CityHash128 (v1.0.2) of
// what follows, then a method byte (0x82 LZ4, 0x90 ZSTD, 0x02 none), the compressed size counting
// this 9-byte header, the uncompressed size (both UInt32 LE), then the data. The LZ4 and ZSTD codecs
// are packages the core may not import: the caller hands them in (`WireCodecs`).
import { cityHash128Bytes } from './cityhash102.js';
import { ChHttpError } from './exception.js';

/** The raw codecs the wire needs (LZ4 block format, not the LZ4 frame; ZSTD frames). */
export interface WireCodecs {
  lz4Block: { compress(data: Buffer): Buffer; decompress(data: Buffer, size: number): Buffer };
  zstd: { compress(data: Buffer, level: number): Buffer; decompress(data: Buffer, size?: number): Buffer };
  lz4Frame: { compress(data: Buffer): Buffer; decompress(data: Buffer): Buffer };
}

export const METHOD = { none: 0x02, lz4: 0x82, zstd: 0x90 } as const;
export type BlockMethod = keyof typeof METHOD;

const CHECKSUM = 16;
const HEADER = 9;
/** ClickHouse cuts an answer into blocks of its write buffer's size (DBMS_DEFAULT_BUFFER_SIZE). */
export const BLOCK_BYTES = 1024 * 1024;
/** ClickHouse's limit on one block's size (DBMS_MAX_COMPRESSED_SIZE), for both of its sizes. */
const MAX_BLOCK = 0x40000000;

function oneBlock(data: Buffer, method: BlockMethod, codecs: WireCodecs, level: number): Buffer {
  const payload = method === 'lz4' ? codecs.lz4Block.compress(data) : method === 'zstd' ? codecs.zstd.compress(data, level) : data;
  const block = Buffer.alloc(HEADER + payload.length);
  block[0] = METHOD[method];
  block.writeUInt32LE(HEADER + payload.length, 1);
  block.writeUInt32LE(data.length, 5);
  payload.copy(block, HEADER);
  return Buffer.concat([cityHash128Bytes(block), block]);
}

/** `data` as ClickHouse's compressed blocks (none for an empty body, as ClickHouse writes nothing then). */
export function compressBlocks(data: Buffer, method: BlockMethod, codecs: WireCodecs, level = 1): Buffer {
  const out: Buffer[] = [];
  for (let p = 0; p < data.length; p += BLOCK_BYTES) out.push(oneBlock(data.subarray(p, p + BLOCK_BYTES), method, codecs, level));
  return Buffer.concat(out);
}

/**
 * The bytes inside a sequence of compressed blocks, each checked as ClickHouse checks it: a bad
 * checksum is 40, an unknown method 89, a truncated or malformed block 271, and nothing past
 * `maxBytes` is produced.
 */
export function decompressBlocks(body: Buffer, codecs: WireCodecs, maxBytes: number): Buffer {
  const out: Buffer[] = [];
  let total = 0;
  for (let p = 0; p < body.length; ) {
    if (body.length - p < CHECKSUM + HEADER) throw new ChHttpError(271, `Cannot decompress: the block at byte ${p} is cut short`);
    const method = body[p + CHECKSUM]!;
    const size = body.readUInt32LE(p + CHECKSUM + 1);
    const raw = body.readUInt32LE(p + CHECKSUM + 5);
    if (size < HEADER || size > MAX_BLOCK || raw > MAX_BLOCK)
      throw new ChHttpError(271, `Too large size_compressed_without_checksum: ${size}. Most likely corrupted data.`);
    if (p + CHECKSUM + size > body.length) throw new ChHttpError(271, `Cannot decompress: the block at byte ${p} is cut short`);
    const block = body.subarray(p + CHECKSUM, p + CHECKSUM + size);
    const want = body.subarray(p, p + CHECKSUM);
    const got = cityHash128Bytes(block);
    if (!got.equals(want))
      throw new ChHttpError(
        40,
        `Checksum doesn't match: corrupted data. Reference: ${hex128(want)}. Actual: ${hex128(got)}. Size of compressed block: ${size}.`,
      );
    total += raw;
    if (total > maxBytes) throw new ChHttpError(36, `The decompressed request body is over ${maxBytes} bytes`);
    const payload = block.subarray(HEADER);
    let data: Buffer;
    try {
      if (method === METHOD.none) data = Buffer.from(payload);
      else if (method === METHOD.lz4) data = codecs.lz4Block.decompress(payload, raw);
      else if (method === METHOD.zstd) data = codecs.zstd.decompress(payload, raw);
      else throw new ChHttpError(89, `Unknown compression method: ${method}`);
    } catch (e) {
      if (e instanceof ChHttpError) throw e;
      throw new ChHttpError(271, `Cannot decompress the block at byte ${p}: ${(e as Error).message}`);
    }
    if (data.length !== raw) throw new ChHttpError(271, `Cannot decompress the block at byte ${p}: ${data.length} bytes where it says ${raw}`);
    out.push(data);
    p += CHECKSUM + size;
  }
  return Buffer.concat(out);
}

/** A checksum as ClickHouse's message prints it: high 64 bits, then low, in hex. */
function hex128(b: Buffer): string {
  return `${b.readBigUInt64LE(8).toString(16)}${b.readBigUInt64LE(0).toString(16).padStart(16, '0')}`;
}
