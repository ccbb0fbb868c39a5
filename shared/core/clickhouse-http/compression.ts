// HTTP compression as ClickHouse's HTTP interface does it: an answer is compressed only when the
// request sets enable_http_compression=1 AND names a codec in Accept-Encoding (gzip, then deflate,
// then br, ClickHouse's order of preference); a request body is decompressed by its Content-Encoding.
// node:zlib only. ClickHouse's own block format (`compress=1` / `decompress=1`) is not spoken.
import { brotliCompressSync, brotliDecompressSync, constants, deflateSync, gunzipSync, gzipSync, inflateSync } from 'node:zlib';
import { ChHttpError } from './exception.js';

export type Codec = 'gzip' | 'deflate' | 'br';

/** The codec for the answer, or undefined for an uncompressed one. */
export function answerCodec(enabled: boolean, acceptEncoding: string | undefined): Codec | undefined {
  if (!enabled || !acceptEncoding) return undefined;
  const offered = new Set(
    acceptEncoding
      .toLowerCase()
      .split(',')
      .map((s) => s.split(';')[0]!.trim()),
  );
  if (offered.has('gzip') || offered.has('x-gzip')) return 'gzip';
  if (offered.has('deflate')) return 'deflate';
  if (offered.has('br')) return 'br';
  return undefined;
}

/** Compress an answer; `level` is http_zlib_compression_level (1..9, ClickHouse's default 3). */
export function compress(body: Buffer, codec: Codec, level = 3): Buffer {
  const l = Math.min(9, Math.max(1, Math.trunc(level) || 3));
  if (codec === 'gzip') return gzipSync(body, { level: l });
  if (codec === 'deflate') return deflateSync(body, { level: l });
  return brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: l } });
}

/** The request body as sent before its Content-Encoding; a bad body or an unknown codec is a 400. */
export function decompressBody(body: Buffer, contentEncoding: string | undefined, maxBytes: number): Buffer {
  const enc = (contentEncoding ?? '').trim().toLowerCase();
  if (enc === '' || enc === 'identity' || body.length === 0) return body;
  try {
    const opts = { maxOutputLength: maxBytes };
    if (enc === 'gzip' || enc === 'x-gzip') return gunzipSync(body, opts);
    if (enc === 'deflate') return inflateSync(body, opts);
    if (enc === 'br') return brotliDecompressSync(body, opts);
  } catch (e) {
    throw new ChHttpError(36, `Cannot decompress the request body (Content-Encoding: ${enc}): ${(e as Error).message}`);
  }
  throw new ChHttpError(36, `Unknown Content-Encoding: ${enc}; supported: gzip, deflate, br`);
}
