// The exchange: where a stage-one answer too large to travel inline waits for its final stage, an
// object store shared by the shard functions (S3 in AWS, a local S3-compatible server on one
// machine). The writer answers the coordinator with a reference (key, rows, bytes, checksum); the
// final stage's function reads the object itself, so those bytes never pass through the coordinator.
// Objects live under one prefix per query and per writing shard, `q/<query>/s<shard>/`, which is
// what each function's IAM policy may write.
import { createHash } from 'node:crypto';
import type { WireExchangeRef } from '../protocol/shard-wire.js';

/** Where the bytes go; compression and transport belong to the adapter (shared/adapters/aws/s3-exchange.ts). */
export interface ExchangeStore {
  /** Store `data` under `key`; resolves with the bytes the store holds (after compression). */
  put(key: string, data: Buffer, signal?: AbortSignal): Promise<{ storedBytes: number }>;
  /** The bytes stored under `key`, decompressed; rejects when the object is missing or cut. */
  get(key: string, signal?: AbortSignal): Promise<Buffer>;
  delete(keys: readonly string[]): Promise<void>;
}

/**
 * What the coordinator holds of the exchange: deleting a query's objects when it ends, with rights of
 * its own (delete only), so the cleanup takes no shard function's concurrency from the next query.
 */
export type ExchangeCleaner = Pick<ExchangeStore, 'delete'>;

/**
 * A stage-one answer left in the exchange: what the final stage needs to read and check it. `bytes`
 * and `sha256` are of the uncompressed rows, as the stage table takes them.
 */
export type ExchangeRef = WireExchangeRef;

/** A reference that could not be read whole (missing, cut, another checksum): names it. */
export class ExchangeLostError extends Error {
  constructor(
    readonly key: string,
    why: string,
  ) {
    super(`exchange object ${key} is unreadable: ${why}`);
    this.name = 'ExchangeLostError';
  }
}

/** A query id as a key segment: readable where it is safe, and its hash so no two ids share a prefix. */
function querySegment(queryId: string): string {
  const readable = queryId.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 64);
  return `${readable}-${sha256Hex(queryId).slice(0, 12)}`;
}

/** The prefix one shard writes under for one query. */
export function exchangePrefix(queryId: string, shard: number): string {
  return `q/${querySegment(queryId)}/s${shard}/`;
}

export function exchangeKey(queryId: string, shard: number, attempt: string, table: string): string {
  return `${exchangePrefix(queryId, shard)}${attempt}-${table}.tsv`;
}

export function sha256Hex(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** The object behind `ref`, checked against the reference's length and checksum. */
export async function readRef(store: ExchangeStore, ref: ExchangeRef, signal?: AbortSignal): Promise<Buffer> {
  let data: Buffer;
  try {
    data = await store.get(ref.key, signal);
  } catch (e) {
    throw new ExchangeLostError(ref.key, e instanceof Error ? e.message : String(e));
  }
  if (data.length !== ref.bytes) throw new ExchangeLostError(ref.key, `${data.length} bytes where ${ref.bytes} were written`);
  if (sha256Hex(data) !== ref.sha256) throw new ExchangeLostError(ref.key, 'its checksum differs from the one written');
  return data;
}

/**
 * A TabSeparatedWithNamesAndTypes answer cut into its two header lines and its rows, with the row
 * count: TabSeparated escapes a newline inside a value, so every raw newline ends a row.
 */
export function splitHeader(answer: Buffer): { header: Buffer; body: Buffer; rows: number } {
  const first = answer.indexOf(10);
  const second = first < 0 ? -1 : answer.indexOf(10, first + 1);
  if (second < 0) throw new Error('the answer has no TabSeparatedWithNamesAndTypes header');
  const body = answer.subarray(second + 1);
  let rows = 0;
  for (let i = body.indexOf(10); i >= 0; i = body.indexOf(10, i + 1)) rows++;
  return { header: answer.subarray(0, second + 1), body, rows };
}
