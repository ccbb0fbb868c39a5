// What the general path may move into its final stage. A shard's stage-one rows travel inline (to
// the coordinator and on in the final-stage request) or, over the inline threshold, through the
// exchange (the final stage's function reads them itself). Four limits apply, checked as each
// answer arrives (a query over a limit stops asking the other shards at once):
//  - maxRowsToTransfer: rows of every leaf from every shard, together (kept ones too);
//  - maxBytesToTransfer: their TabSeparated bytes, together, inline and exchanged;
//  - maxFinalStageBytes: the same bytes as the final stage's function holds them, sized to its memory;
//  - Lambda's 6 MB invoke payload: the final-stage request carries the inline bytes as base64 plus
//    the SQL and column lists, and must fit in one Invoke.
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
  /** What the final stage's function may hold of stage-one rows, inline and exchanged (0 = unlimited). */
  finalStageBytes: number;
  /** Bytes of the request that are not table data (the SQL, column lists, ids). */
  reserveBytes: number;
}

export function transferLimits(
  maxRows: number,
  maxBytes: number,
  finalSqlBytes: number,
  payloadBytes = INVOKE_PAYLOAD_LIMIT_BYTES,
  finalStageBytes = 0,
): TransferLimits {
  return { maxRows, maxBytes, payloadBytes, finalStageBytes, reserveBytes: FINAL_REQUEST_RESERVE_BYTES + finalSqlBytes };
}

/**
 * The inline threshold per shard when the topology leaves it to the runtime: the shards' share of
 * the final-stage request (base64 of the rows, within the payload less the reserve), at most 1 MiB,
 * so inline rows of every shard together always fit in one Invoke.
 */
export function defaultInlineBytes(shards: number, limits: TransferLimits): number {
  const room = Math.max(0, limits.payloadBytes - limits.reserveBytes);
  return Math.min(1024 * 1024, Math.floor((room * 3) / 4 / Math.max(1, shards)));
}

export class StageBudget {
  rows = 0;
  bytes = 0;
  /** base64 text of every body, as the final-stage request will carry it (per leaf: one string). */
  private readonly perLeaf = new Map<string, number>();
  constructor(private readonly limits: TransferLimits) {}

  /**
   * Count one shard's body of one leaf, as it travels (inline in the final-stage request, through the
   * exchange, or kept where the final stage runs); throws TRANSFER_LIMIT when a total goes over a limit.
   */
  add(leaf: string, shard: number, rows: number, bytes: number, travels: 'inline' | 'exchange' | 'kept' = 'inline'): void {
    this.rows += rows;
    this.bytes += bytes;
    if (travels === 'inline') this.perLeaf.set(leaf, (this.perLeaf.get(leaf) ?? 0) + bytes);
    const { maxRows, maxBytes, finalStageBytes } = this.limits;
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
    if (finalStageBytes > 0 && this.bytes > finalStageBytes) {
      throw limitError(
        `the final stage's input would be more than ${finalStageBytes} bytes (maxFinalStageBytes, sized to the shard function's memory; ${this.bytes} with shard ${shard}'s ${bytes} bytes of ${leaf})`,
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
