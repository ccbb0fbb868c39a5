// The POST /query and /explain body (docs/api.md#2-http-api), validated with zod. Unknown fields are
// refused: a typo like "timeout" instead of "timeoutMs" would otherwise be silently ignored.
import { z } from 'zod';
import { ScatterError } from '../errors.js';
import { jsonPath } from '../json-path.js';

/** Request bodies above this are refused with 413 before parsing (API Gateway itself allows 10 MB). */
export const MAX_BODY_BYTES = 1_048_576;

export const queryRequestSchema = z
  .object({
    sql: z.string().refine((s) => s.trim().length > 0, 'sql must be a non-empty string'),
    timeoutMs: z.number().int().positive().max(900_000).optional(),
    requireComplete: z.boolean().optional(),
    /** Answer only when the shards that answered hold at least this share of each table's rows (504 INCOMPLETE_RESULT otherwise). */
    requireCoverage: z.number().min(0).max(1).optional(),
    hedge: z.boolean().optional(),
    settings: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
    cursor: z.string().min(1).optional(),
    /** Values of the query's `{name:Type}` parameters, bound as typed values (never spliced into the text). */
    params: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])).optional(),
  })
  .strict();

export type QueryRequest = z.output<typeof queryRequestSchema>;

/** Parse a raw body (string as received, or an already-parsed value). Throws 400 BAD_REQUEST / 413 TOO_LARGE. */
export function parseQueryRequest(raw: unknown): QueryRequest {
  let value = raw;
  if (typeof raw === 'string') {
    if (Buffer.byteLength(raw, 'utf8') > MAX_BODY_BYTES) {
      throw new ScatterError('TOO_LARGE', `request body is larger than ${MAX_BODY_BYTES} bytes`);
    }
    if (raw.trim() === '') throw new ScatterError('BAD_REQUEST', 'request body is empty; expected JSON like {"sql": "SELECT ..."}');
    try {
      value = JSON.parse(raw);
    } catch (e) {
      throw new ScatterError('BAD_REQUEST', `request body is not valid JSON: ${(e as Error).message}`);
    }
  }
  const r = queryRequestSchema.safeParse(value);
  if (!r.success) {
    const msg = r.error.issues.map((i) => `${jsonPath(i.path)}: ${i.message}`).join('; ');
    throw new ScatterError('BAD_REQUEST', msg);
  }
  return r.data;
}
