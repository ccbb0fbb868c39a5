// The shard wire as the general path uses it: a query request that asks for the engine's own
// output bytes (`format`), optionally over temporary tables it ships (`tables`, the final stage),
// and the base64 `raw` bytes of the answer (docs/architecture.md#two-stage-runtime).
import type { ColumnMeta } from '../../clickhouse/port.js';
import type { ShardRequest, ShardSuccess } from '../../protocol/shard-wire.js';

/** One temporary table of the final stage: a leaf's columns and its rows as TabSeparated. */
export interface StageTable {
  name: string;
  columns: ColumnMeta[];
  tsvBase64: string;
}

export type RawShardRequest = ShardRequest & { format?: string; tables?: StageTable[] };

/** The engine's bytes of a raw answer; throws when the shard answered without them. */
export function rawBytes(r: ShardSuccess): Buffer {
  const raw = (r as ShardSuccess & { raw?: string }).raw;
  if (typeof raw !== 'string') throw new Error(`shard ${r.shard} answered without raw bytes (a shard function older than the general path?)`);
  return Buffer.from(raw, 'base64');
}

/** Length of the base64 text of n bytes. */
export const base64Length = (n: number): number => 4 * Math.ceil(n / 3);

/** The response without its bytes (kept in the outcome for statistics, not for the data). */
export function withoutRaw(r: ShardSuccess): ShardSuccess {
  const { raw: _raw, ...rest } = r as ShardSuccess & { raw?: string };
  return { ...rest, rows: [] };
}
