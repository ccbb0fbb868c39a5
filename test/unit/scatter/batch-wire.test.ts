// The batch request on the shard wire: a list of query items that take their ids, shard, replica,
// deadline and attempt from the batch, and whose ClickHouse query ids all start with the batch's
// attempt prefix, so one cancel of the batch stops every item.
import { describe, expect, test } from 'vitest';
import { shardPayloadSchema } from '../../../shared/core/protocol/shard-request-schema.js';
import { parseShardResponse } from '../../../shared/core/protocol/shard-response-schema.js';
import { batchItems } from '../../../shared/core/shard/batch.js';
import { attemptQueryId } from '../../../shared/core/shard/inflight.js';

const batch = (requests: unknown, extra: Record<string, unknown> = {}) => ({
  type: 'batch',
  queryId: 'q',
  shard: 1,
  replica: 0,
  deadline: Date.now() + 1000,
  attempt: 'primary',
  attemptId: '0123456789abcdef',
  requests,
  ...extra,
});
const stats = { elapsedMs: 1, rowsRead: 1, bytesRead: 1 };

describe('batched shard requests on the wire', () => {
  test('items inherit the batch; their query ids start with the batch attempt prefix', () => {
    const p = shardPayloadSchema.parse(batch([{ sql: 'SELECT 1' }, { sql: 'SELECT 2', format: 'TabSeparated' }]));
    if (p.type !== 'batch') throw new Error(p.type);
    const items = batchItems(p);
    expect(items.map((i) => [i.type, i.queryId, i.shard, i.replica, i.attempt, i.sql])).toEqual([
      ['query', 'q', 1, 0, 'primary', 'SELECT 1'],
      ['query', 'q', 1, 0, 'primary', 'SELECT 2'],
    ]);
    const prefix = attemptQueryId(p);
    for (const i of items) expect(attemptQueryId(i).startsWith(prefix)).toBe(true);
    expect(new Set(items.map((i) => attemptQueryId(i))).size).toBe(2);
  });

  test('an empty batch, a batch of batches and an item without SQL are refused', () => {
    expect(shardPayloadSchema.safeParse(batch([])).success).toBe(false);
    expect(shardPayloadSchema.safeParse(batch([{ requests: [{ sql: 'SELECT 1' }] }])).success).toBe(false);
    expect(shardPayloadSchema.safeParse(batch([{ sql: '' }])).success).toBe(false);
    expect(shardPayloadSchema.safeParse(batch(Array.from({ length: 65 }, () => ({ sql: 'SELECT 1' })))).success).toBe(false);
  });

  test("a batch answer holds each item's success or failure; a nested batch answer is refused", () => {
    const one = { ok: true, shard: 1, replica: 0, meta: [], rows: [], raw: 'AA==', statistics: stats };
    const bad = { ok: false, shard: 1, replica: 0, error: { kind: 'error', chCode: 47, message: 'Missing columns' } };
    const r = parseShardResponse({ ok: true, shard: 1, replica: 0, meta: [], rows: [], statistics: stats, batch: [one, bad] });
    expect(r.ok && r.value.ok && r.value.batch?.map((x) => x.ok)).toEqual([true, false]);
    const nested = parseShardResponse({ ...one, batch: [{ ...one, batch: [one] }] });
    expect(nested.ok && nested.value.ok && nested.value.batch?.[0]).not.toHaveProperty('batch');
  });
});
