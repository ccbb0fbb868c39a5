// HTTP compression as ClickHouse's HTTP interface does it: an answer is compressed only when the
// request sets enable_http_compression=1 AND names a codec in Accept-Encoding (chosen by
// chooseHTTPCompressionMethod's order: zstd, br, lz4, gzip, deflate; a substring match, as there); a
// request body is decompressed by its Content-Encoding. gzip, deflate and br are node:zlib; zstd
// (frames) and lz4 (the LZ4 frame format, as ClickHouse's Lz4DeflatingWriteBuffer writes it) come
// from the caller's codecs. ClickHouse's own block format (`compress=1`) is block-compression.ts.
import { brotliCompressSync, brotliDecompressSync, constants, deflateSync, gunzipSync, gzipSync, inflateSync } from 'node:zlib';
import type { WireCodecs } from './block-compression.js';
import { ChHttpError } from './exception.js';

export type Codec = 'zstd' | 'br' | 'lz4' | 'gzip' | 'deflate';
const ORDER: Codec[] = ['zstd', 'br', 'lz4', 'gzip', 'deflate'];

/** The codec for the answer, or undefined for an uncompressed one. */
export function answerCodec(enabled: boolean, acceptEncoding: string | undefined): Codec | undefined {
  if (!enabled || !acceptEncoding) return undefined;
  const list = acceptEncoding.toLowerCase();
  return ORDER.find((c) => list.includes(c));
}

/** Whether a codec needs the caller's codecs (not node:zlib). */
export const needsWireCodecs = (c: string | undefined) => c === 'zstd' || c === 'lz4';

/** Compress an answer; `level` is http_zlib_compression_level (1..9, ClickHouse's default 3). */
export function compress(body: Buffer, codec: Codec, level = 3, codecs?: WireCodecs): Buffer {
  const l = Math.min(9, Math.max(1, Math.trunc(level) || 3));
  if (codec === 'gzip') return gzipSync(body, { level: l });
  if (codec === 'deflate') return deflateSync(body, { level: l });
  if (codec === 'br') return brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: l } });
  if (!codecs) throw new ChHttpError(1001, `The ${codec} codec is not loaded`);
  return codec === 'zstd' ? codecs.zstd.compress(body, l) : codecs.lz4Frame.compress(body);
}

/** The request body as sent before its Content-Encoding; a bad body or an unknown codec is a 400. */
export function decompressBody(body: Buffer, contentEncoding: string | undefined, maxBytes: number, codecs?: WireCodecs): Buffer {
  const enc = (contentEncoding ?? '').trim().toLowerCase();
  if (enc === '' || enc === 'identity' || body.length === 0) return body;
  let out: Buffer | undefined;
  try {
    const opts = { maxOutputLength: maxBytes };
    if (enc === 'gzip' || enc === 'x-gzip') out = gunzipSync(body, opts);
    else if (enc === 'deflate') out = inflateSync(body, opts);
    else if (enc === 'br') out = brotliDecompressSync(body, opts);
    else if (codecs && enc === 'zstd') out = codecs.zstd.decompress(body);
    else if (codecs && enc === 'lz4') out = codecs.lz4Frame.decompress(body);
  } catch (e) {
    throw new ChHttpError(36, `Cannot decompress the request body (Content-Encoding: ${enc}): ${(e as Error).message}`);
  }
  if (!out) throw new ChHttpError(36, `Unknown Content-Encoding: ${enc}; supported: gzip, deflate, br, zstd, lz4`);
  if (out.length > maxBytes) throw new ChHttpError(36, `The decompressed request body is over ${maxBytes} bytes`);
  return out;
}
