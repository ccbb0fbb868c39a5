// The shard wire as the general path uses it (shared/core/protocol/shard-wire.ts): a query request that
// asks for the engine's own output bytes (`format`), optionally over temporary tables it ships
// (`tables`, the final stage), and the base64 `raw` bytes of the answer.
import type { StageFormat } from '../../clickhouse/port.js';
import { base64Bytes } from '../../protocol/base64-schema.js';
import type { ShardRequest, ShardSuccess, WireStageTable } from '../../protocol/shard-wire.js';

export type StageTable = WireStageTable;
export type RawShardRequest = ShardRequest;

/** The engine's bytes of a raw answer; throws when the shard answered without them. */
export function rawBytes(r: ShardSuccess): Buffer {
  if (typeof r.raw !== 'string') throw new Error(`shard ${r.shard} answered without raw bytes (a shard function older than the general path?)`);
  return base64Bytes(r.raw);
}

/** A stage table's rows on the wire: base64 in the field that names their format. */
export function wireRows(data: Buffer, format: StageFormat | undefined): Pick<WireStageTable, 'tsvBase64' | 'rowBinaryBase64'> {
  return format === 'RowBinary' ? { tsvBase64: '', rowBinaryBase64: data.toString('base64') } : { tsvBase64: data.toString('base64') };
}

/** Length of the base64 text of n bytes. */
export const base64Length = (n: number): number => 4 * Math.ceil(n / 3);
