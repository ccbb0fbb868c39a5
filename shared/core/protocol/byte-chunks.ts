// A streamed answer's bytes are an async iterable of chunks (shard-wire.ts `stream`); an answer that
// arrived whole is read through the same shape.

/** `bytes` as a stream of one chunk (none when empty). */
export async function* oneChunk(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  if (bytes.byteLength > 0) yield bytes;
}
