// Validation of what comes back from a shard. A shard that answers with something that is not a
// ShardResponse (a bug, a version skew, a truncated payload) must become a typed failure for that
// shard, never a crash of the coordinator or rows merged from garbage.
import { z } from 'zod';
import { base64Schema } from './base64-schema.js';
import { rowsSchema } from './row-schema.js';
import { exchangeRefSchema } from './shard-request-schema.js';
import { sessionIdSchema } from './session-id-schema.js';
import type { ShardResponse } from './shard-wire.js';

const columnMeta = z.object({ name: z.string(), type: z.string() });
const stats = z.object({ elapsedMs: z.number(), rowsRead: z.number(), bytesRead: z.number() });

const one = z.object({
  ok: z.literal(true),
  shard: z.number().int().nonnegative(),
  replica: z.number().int().nonnegative(),
  meta: z.array(columnMeta),
  rows: rowsSchema,
  statistics: stats,
  raw: base64Schema.optional(),
  kept: z.object({ session: sessionIdSchema, rows: z.number().int().nonnegative() }).optional(),
  exchanged: exchangeRefSchema.optional(),
});

const failure = z.object({
  ok: z.literal(false),
  shard: z.number().int().nonnegative(),
  replica: z.number().int().nonnegative(),
  error: z.object({
    kind: z.enum(['timeout', 'error', 'unavailable', 'cancelled']),
    code: z.string().optional(),
    chCode: z.number().optional(),
    message: z.string(),
  }),
  statistics: stats.partial().optional(),
});

/** A batch's answer holds its items' answers, one level deep. */
const success = one.extend({ batch: z.array(z.discriminatedUnion('ok', [one, failure])).optional() });

export const shardResponseSchema = z.discriminatedUnion('ok', [success, failure]);

/** The response, or a one-line reason why it is not one. */
export function parseShardResponse(value: unknown): { ok: true; value: ShardResponse } | { ok: false; problem: string } {
  const r = shardResponseSchema.safeParse(value);
  if (r.success) return { ok: true, value: r.data as ShardResponse };
  const first = r.error.issues[0];
  return { ok: false, problem: first ? `${first.path.join('.') || '$'}: ${first.message}` : 'not a shard response' };
}
