// xxhash-wasm compiles a WebAssembly module; do it once per process and share the result,
// because the planner, the router and the parity check all ask for placements.
import xxhash from 'xxhash-wasm';

export interface Hasher {
  /** xxHash64, seed 0, of the UTF-8 bytes of a string (what ClickHouse hashes for String). */
  h64(text: string): bigint;
  /** xxHash64, seed 0, of raw bytes. */
  h64Raw(bytes: Uint8Array): bigint;
}

let loading: Promise<Hasher> | undefined;

export function loadHasher(): Promise<Hasher> {
  loading ??= xxhash().then((api) => ({
    h64: (text: string) => api.h64(text, 0n),
    h64Raw: (bytes: Uint8Array) => api.h64Raw(bytes, 0n),
  }));
  return loading;
}
