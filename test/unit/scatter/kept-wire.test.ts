// The kept stage on the shard wire: the session id the shard answers with and the coordinator
// sends back reaches ClickHouse as a URL parameter, so only its own shape passes, both ways.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { shardPayloadSchema } from '../../../shared/core/protocol/shard-request-schema.js';
import { parseShardResponse } from '../../../shared/core/protocol/shard-response-schema.js';

const SESSION = 'chs-0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9';
const success = (kept: unknown) => ({
  ok: true,
  shard: 0,
  replica: 1,
  meta: [],
  rows: [],
  raw: Buffer.from('k\nUInt8\n').toString('base64'),
  kept,
  statistics: { elapsedMs: 1, rowsRead: 1, bytesRead: 1 },
});
const finalRequest = (session: unknown) => ({
  type: 'query',
  queryId: 'q',
  shard: 0,
  replica: 1,
  sql: 'SELECT count() FROM _stage0',
  deadline: Date.now() + 1000,
  format: 'JSON',
  session,
  tables: [{ name: '_stage0', columns: [{ name: 'k', type: 'UInt8' }], tsvBase64: '', kept: true }],
});

describe('kept stages on the shard wire', () => {
  test('a kept answer and a final request in that session pass', () => {
    const r = parseShardResponse(success({ session: SESSION, rows: 3 }));
    expect(r.ok && r.value.ok && r.value.kept).toEqual({ session: SESSION, rows: 3 });
    expect(shardPayloadSchema.safeParse(finalRequest(SESSION)).success).toBe(true);
  });

  test('any other session text is refused, in the answer and in the request', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        fc.pre(!/^chs-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(s));
        expect(parseShardResponse(success({ session: s, rows: 1 })).ok).toBe(false);
        expect(shardPayloadSchema.safeParse(finalRequest(s)).success).toBe(false);
      }),
    );
    for (const s of [`${SESSION}&readonly=0`, SESSION.toUpperCase(), ` ${SESSION}`]) {
      expect(shardPayloadSchema.safeParse(finalRequest(s)).success).toBe(false);
    }
  });

  test('a negative or fractional kept row count is refused', () => {
    for (const rows of [-1, 1.5, '3']) expect(parseShardResponse(success({ session: SESSION, rows })).ok).toBe(false);
  });
});
