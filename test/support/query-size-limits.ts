// The same checks of ClickHouse's max_query_size against ch-scatter's own limits, run on each
// engine (chdb and Debian's 18.16): the engine's refusal is what maxShardQueryBytes exists for,
// ch-scatter refuses first, and the defaults stay under it.
import { describe, expect, it } from 'vitest';
import type { ShardRequest } from '../../shared/core/protocol/shard-wire.js';
import { runQuery, type RunDeps } from '../../shared/core/scatter/run-query.js';

type ErrBody = { error: { code: string; message: string } };
type Deps = (edit?: (p: ShardRequest) => ShardRequest, query?: Record<string, unknown>) => RunDeps;

/** `table` is the distributed table, `column` a non-key integer column of it, `sent` every request the deps' invoker sent. */
export function describeQuerySizeLimits(table: string, column: string, deps: Deps, sent: ShardRequest[]): void {
  describe('shard queries over max_query_size', () => {
    // A non-key IN list of 6-digit numbers: 8 bytes a value. ~32k values pass, ~33k do not.
    const sqlOf = (n: number) => `SELECT count() AS c FROM ${table} WHERE ${column} IN (${Array.from({ length: n }, (_, i) => 100000 + i).join(', ')})`;

    it('the engine refuses a query text over 256 KiB (what the limit is for)', async () => {
      sent.length = 0;
      const r = await runQuery({ sql: sqlOf(34_000) }, deps(undefined, { maxShardQueryBytes: 1_000_000, maxInListValues: 100_000 }));
      expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(400);
      expect((r.body as ErrBody).error.message).toMatch(/Max query size exceeded|max_query_size|Query is too large/i);
      expect(sent.length).toBeGreaterThan(0);
    });

    it('ch-scatter refuses it first: 413 TOO_LARGE naming the limit, no shard asked', async () => {
      sent.length = 0;
      const r = await runQuery({ sql: sqlOf(34_000) }, deps(undefined, { maxInListValues: 100_000 }));
      expect(r.status).toBe(413);
      expect((r.body as ErrBody).error.code).toBe('TOO_LARGE');
      expect((r.body as ErrBody).error.message).toMatch(/query\.maxShardQueryBytes/);
      expect(sent).toHaveLength(0);
    });

    it('just under the default limit, the engine answers', async () => {
      const r = await runQuery({ sql: sqlOf(31_500) }, deps(undefined, { maxInListValues: 100_000 }));
      expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(200);
    });

    it('the default maxInListValues (20,000) of 10-digit values passes', async () => {
      const sql = `SELECT count() AS c FROM ${table} WHERE ${column} IN (${Array.from({ length: 20_000 }, (_, i) => 4_000_000_000 + i).join(', ')})`;
      const r = await runQuery({ sql }, deps());
      expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(200);
    });
  });
}
