// zod schemas for what a shard receives (shard-wire.ts). The shard validates every payload
// itself: it is reachable by anything that can invoke the function, and a malformed request
// must come back as a typed failure, never a crash.
import { z } from 'zod';
import { base64Schema } from './base64-schema.js';
import { rowsSchema } from './row-schema.js';
import { sessionIdSchema } from './session-id-schema.js';

const settingName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'a ClickHouse setting name');
const settingValue = z.union([z.string().max(4096), z.number().finite(), z.boolean()]);

export const columnMetaSchema = z.object({ name: z.string().min(1).max(256), type: z.string().min(1).max(1024) });

export const externalTableSchema = z.object({
  name: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'an identifier'),
  columns: z.array(columnMetaSchema).min(1),
  rows: rowsSchema.default([]),
  /** The rows pre-encoded as JSONEachRow lines (the coordinator encodes a shipped set once per query). */
  jsonEachRow: z.string().optional(),
  /** A client's external data as sent, in an input format (spliced after FORMAT or into format(): a plain name). */
  data: z.object({ format: z.string().regex(/^[A-Za-z][A-Za-z0-9]{0,63}$/, 'a format name'), base64: base64Schema }).optional(),
});

export const exchangeRefSchema = z.object({
  shard: z.number().int().nonnegative(),
  key: z.string().regex(/^q\/[A-Za-z0-9._/-]{1,900}$/, 'an exchange key'),
  rows: z.number().int().nonnegative(),
  bytes: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/, 'a SHA-256 (hex)'),
});

export const stageTableSchema = z.object({
  name: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'an identifier'),
  columns: z.array(columnMetaSchema).min(1).max(4096),
  tsvBase64: base64Schema,
  rowBinaryBase64: base64Schema.optional(),
  kept: z.boolean().optional(),
  objects: z.array(exchangeRefSchema).max(4096).optional(),
});

const identifier = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'an identifier');
/** The coordinator's name for one attempt: the tail of its ClickHouse query ids, which a cancel names. */
const attemptId = z.string().regex(/^[0-9a-f]{8,32}$/, 'an attempt id (hex)');

const common = {
  queryId: z.string().min(1).max(256),
  shard: z.number().int().nonnegative(),
  replica: z.number().int().nonnegative(),
  deadline: z.number().finite().positive(),
};

export const shardQueryRequestSchema = z.object({
  type: z.literal('query'),
  ...common,
  sql: z.string().min(1).max(4_000_000),
  settings: z.record(settingName, settingValue).default({}),
  external: z.array(externalTableSchema).default([]),
  attempt: z.enum(['primary', 'hedge', 'retry']).default('primary'),
  attemptId: attemptId.optional(),
  format: z
    .string()
    .regex(/^[A-Za-z][A-Za-z0-9]{0,63}$/, 'a ClickHouse format name')
    .optional(),
  tables: z.array(stageTableSchema).max(64).optional(),
  keep: z.object({ table: identifier, until: z.number().finite().positive() }).optional(),
  session: sessionIdSchema.optional(),
  describe: z.boolean().optional(),
  answer: z.boolean().optional(),
  stream: z.boolean().optional(),
  exchange: z.object({ inlineBytes: z.number().int().nonnegative() }).optional(),
});

/** A batch's items: queries whose ids, shard, replica, deadline and attempt are the batch's. */
export const shardBatchRequestSchema = z.object({
  type: z.literal('batch'),
  ...common,
  attempt: shardQueryRequestSchema.shape.attempt,
  attemptId: attemptId.optional(),
  requests: z
    .array(shardQueryRequestSchema.omit({ type: true, queryId: true, shard: true, replica: true, deadline: true, attempt: true, attemptId: true }))
    .min(1)
    .max(64),
});

export const shardAdminRequestSchema = z.object({
  type: z.enum(['exec', 'insert']),
  ...common,
  sql: z.string().min(1).optional(),
  table: z.string().min(1).max(512).optional(),
  rows: rowsSchema.optional(),
  /** insert: the rows as JSONEachRow text, written verbatim (instead of `rows`). */
  jsonEachRow: z.string().max(6_000_000).optional(),
  /** insert: ClickHouse's insert_deduplication_token for this batch (a retry of it is not written twice). */
  dedupToken: z.string().min(1).max(256).optional(),
  /** insert: the rows as bytes in a text input format, one base64 text a row (instead of `rows`). */
  data: z
    .object({
      format: z.enum(['JSONEachRow', 'CSV', 'TabSeparated', 'Native']),
      columns: z.array(z.string().min(1).max(256)).max(4096).optional(),
      rows: z.array(base64Schema).max(10_000_000),
    })
    .optional(),
  /** insert: parse the rows into a temporary copy of the table and commit nothing. */
  checkOnly: z.boolean().optional(),
});

/**
 * Stop what an attempt started on this shard's replica: its ClickHouse queries (their ids start
 * with the attempt's prefix) and, with `kept`, the stage-one rows a session keeps for a final stage
 * that will not come. Served to any caller that may invoke the function: it ends only queries of
 * the query id it names.
 */
export const shardCancelRequestSchema = z.object({
  type: z.literal('cancel'),
  ...common,
  /** The attempt whose queries are KILLed; absent, none are (only `kept` is dropped). */
  attemptId: attemptId.optional(),
  kept: z.object({ session: sessionIdSchema, table: identifier }).optional(),
});

export const shardPayloadSchema = z.discriminatedUnion('type', [
  shardQueryRequestSchema,
  shardBatchRequestSchema,
  shardCancelRequestSchema,
  shardAdminRequestSchema.extend({ type: z.literal('exec'), sql: z.string().min(1) }),
  shardAdminRequestSchema.extend({ type: z.literal('insert'), table: z.string().min(1).max(512), rows: rowsSchema.default([]) }),
]);

export type ShardPayload = z.output<typeof shardPayloadSchema>;
