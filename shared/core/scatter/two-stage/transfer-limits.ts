// What the general path may move into its final stage. Every shard's stage-one rows travel to the
// coordinator and on to the final-stage engine in one request, so three limits apply, checked as
// each answer arrives (a query over a limit stops asking the other shards at once):
//  - maxRowsToTransfer: rows of every leaf from every shard, together;
//  - maxBytesToTransfer: their TabSeparated bytes, together;
//  - Lambda's 6 MB invoke payload: the final-stage request carries those bytes as base64 plus the
//    SQL and column lists, and must fit in one Invoke.
// Over any of them the answer is 413 TRANSFER_LIMIT naming the limit: a final stage over part of
// the states would give wrong aggregates for the groups whose states were cut, so the general path
// never truncates (transfer_overflow_mode 'break' is honoured by the fast path only).
import { ScatterError } from '../../errors.js';
import { INVOKE_PAYLOAD_LIMIT_BYTES } from '../../protocol/shard-wire.js';
import { base64Length } from './wire.js';

/** Kept back from the 6 MB for the final stage's SQL, column lists, settings and ids. */
export const FINAL_REQUEST_RESERVE_BYTES = 64 * 1024;

export interface TransferLimits {
  maxRows: number; // 0 = unlimited
  maxBytes: number; // 0 = unlimited
  /** The final-stage request's size limit (Lambda's Invoke payload limit). */
  payloadBytes: number;
  /** Bytes of the request that are not table data (the SQL, column lists, ids). */
  reserveBytes: number;
}

export function transferLimits(maxRows: number, maxBytes: number, finalSqlBytes: number, payloadBytes = INVOKE_PAYLOAD_LIMIT_BYTES): TransferLimits {
  return { maxRows, maxBytes, payloadBytes, reserveBytes: FINAL_REQUEST_RESERVE_BYTES + finalSqlBytes };
}

export class StageBudget {
  rows = 0;
  bytes = 0;
  /** base64 text of every body, as the final-stage request will carry it (per leaf: one string). */
  private readonly perLeaf = new Map<string, number>();
  constructor(private readonly limits: TransferLimits) {}

  /** Count one shard's body of one leaf; throws TRANSFER_LIMIT when the total goes over a limit. */
  add(leaf: string, shard: number, rows: number, bytes: number): void {
    this.rows += rows;
    this.bytes += bytes;
    this.perLeaf.set(leaf, (this.perLeaf.get(leaf) ?? 0) + bytes);
    const { maxRows, maxBytes } = this.limits;
    if (maxRows > 0 && this.rows > maxRows) {
      throw limitError(
        `the shards' stage-one answers hold more than ${maxRows} rows (maxRowsToTransfer; ${this.rows} with shard ${shard}'s ${rows} rows of ${leaf})`,
      );
    }
    if (maxBytes > 0 && this.bytes > maxBytes) {
      throw limitError(
        `the shards' stage-one answers hold more than ${maxBytes} bytes (maxBytesToTransfer; ${this.bytes} with shard ${shard}'s ${bytes} bytes of ${leaf})`,
      );
    }
    const request = this.requestBytes();
    if (request > this.limits.payloadBytes) {
      throw limitError(
        `the final stage's request would carry ${request} bytes (the stage-one rows as base64, the SQL and column lists), over Lambda's ${this.limits.payloadBytes}-byte invoke payload limit`,
      );
    }
  }

  /** Take back rows counted for a kept part that is being fetched again (they are counted as they arrive). */
  forget(rows: number): void {
    this.rows -= rows;
  }

  /** The final-stage request's size as far as it is known: the base64 tables plus the reserve. */
  requestBytes(): number {
    let b64 = 0;
    for (const n of this.perLeaf.values()) b64 += base64Length(n);
    return b64 + this.limits.reserveBytes;
  }
}

export function limitError(message: string): ScatterError {
  return new ScatterError('TRANSFER_LIMIT', `${message}. Filter, aggregate further (fewer groups), or select fewer columns`);
}
