// The wire format between a coordinator and a SUB-coordinator in the aggregation tree
// (tree.ts). A sub-coordinator is the coordinator function invoked on a subset of the shards:
// it fans out to them under the SAME absolute deadline and answers with their partials already
// merged (when the query's partials can be pre-merged, tree-premerge.ts) or relayed per shard.
import { z } from 'zod';
import { rowsSchema } from './row-schema.js';
import type { ColumnMeta, ExternalTable, SettingValue } from '../clickhouse/port.js';
import type { HedgeSettings, MissingReason } from './shard-call.js';

export interface TreeShardTask {
  shard: number;
  sql: string;
  /** Names into TreeRequest.external, plus per-shard overrides (pruned shipped sets). */
  external: string[];
  externalOverrides?: ExternalTable[];
}

export interface TreeRequest {
  type: 'tree';
  queryId: string;
  /** Which subtree this is (0-based), for logs. */
  group: number;
  deadline: number; // absolute epoch ms, the root's deadline
  settings: Record<string, SettingValue>;
  external: ExternalTable[];
  hedge: HedgeSettings;
  tasks: TreeShardTask[];
  /** Pre-merge the shards' partials before answering (tree-premerge.ts decides; else relay). */
  premerge: boolean;
}

/** What one shard did, as the root's statistics need it (shared/core/scatter/call-shard.ts's ShardOutcome without the rows). */
export interface TreeShardOutcome {
  shard: number;
  status: 'ok' | MissingReason;
  replica: number;
  elapsedMs: number;
  hedged: boolean;
  retried: boolean;
  message?: string;
  /** As on ShardOutcome: ClickHouse's code and the shard's own, so the root classifies a failure as the flat path does. */
  chCode?: number;
  code?: string;
  rowsRead: number;
  bytesRead: number;
  attempts: number;
}

export interface TreePart {
  shard: number; // the merge identity: a shard, or the first shard of a pre-merged subtree
  meta: ColumnMeta[];
  /**
   * Partial rows as shards write them (ClickHouse JSON, non-finite floats as "inf"/"-inf"/"nan"),
   * except that a pre-merged float sum is the terms of its exact sum: a number, an array of numbers,
   * or one of those strings (tree-premerge.ts; shared/core/partials/values.ts reads all three).
   */
  rows: Record<string, unknown>[];
}

export interface TreeResponse {
  ok: true;
  group: number;
  /** premerged: one part for the whole subtree; relayed: one part per answering shard. */
  mode: 'premerged' | 'relayed';
  parts: TreePart[];
  outcomes: TreeShardOutcome[];
  statistics: { elapsedMs: number; cpuMs: number };
}

export type MissingReasonT = MissingReason;

const meta = z.object({ name: z.string(), type: z.string() });
export const treeResponseSchema = z.object({
  ok: z.literal(true),
  group: z.number().int().nonnegative(),
  mode: z.enum(['premerged', 'relayed']),
  parts: z.array(z.object({ shard: z.number().int().nonnegative(), meta: z.array(meta), rows: rowsSchema })),
  outcomes: z.array(
    z.object({
      shard: z.number().int().nonnegative(),
      status: z.enum(['ok', 'timeout', 'error', 'unavailable', 'throttled', 'cancelled']),
      replica: z.number().int(),
      elapsedMs: z.number(),
      hedged: z.boolean(),
      retried: z.boolean(),
      message: z.string().optional(),
      chCode: z.number().int().optional(),
      code: z.string().optional(),
      rowsRead: z.number(),
      bytesRead: z.number(),
      attempts: z.number().int(),
    }),
  ),
  statistics: z.object({ elapsedMs: z.number(), cpuMs: z.number() }),
});
