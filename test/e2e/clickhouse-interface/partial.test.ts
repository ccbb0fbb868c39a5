// Missing shards through the ClickHouse interface, with ClickHouse's skip_unavailable_shards
// semantics: 0 (the default) fails the query with ClickHouse's code; 1 answers from the shards that
// answered and says which did not, in X-ClickHouse-Summary's neighbours X-Ch-Scatter-Partial and
// X-Ch-Scatter-Missing-Shards. Shard 1 of three fails every call (its replica's injected fault);
// max_execution_time is the one deadline. Parameters prune shards: a key on a healthy shard answers
// completely even with skip_unavailable_shards=0.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, ClickHouseError, type ClickHouseClient } from '@clickhouse/client';
import { AUTH_HEADER, startHarness, raw, type Harness } from './support.js';

let h: Harness;
let client: ClickHouseClient;

beforeAll(async () => {
  h = await startHarness({ shards: 3, shardFault: { 1: { error: 'injected: replica down', errorProbability: 1 } } });
  client = createClient({ url: h.stack.url, ...h.auth, request_timeout: 30_000 });
  // 200 rows, 10 per key, routed by the key; the faulty shard refuses its part, the others commit theirs.
  const lines = Array.from({ length: 200 }, (_, i) => JSON.stringify({ k: `k-${i % 20}`, v: i, x: i / 4, ts: '2024-01-01 00:00:00', tags: [] })).join('\n');
  const r = await fetch(`${h.stack.url}/admin/insert?table=analytics.events_dist`, { method: 'POST', headers: AUTH_HEADER, body: lines });
  const out = (await r.json()) as { failedShards?: number[] };
  expect(r.status).toBe(502);
  expect(out.failedShards).toEqual([1]);
}, 240_000);

afterAll(async () => {
  await client?.close();
  await h?.stop();
});

const SQL = 'SELECT k, count() AS c FROM analytics.events_dist GROUP BY k ORDER BY k';

describe('skip_unavailable_shards', () => {
  it('0 (default): a missing shard is an error with ClickHouse code 279, typed by the client', async () => {
    const err = await client.query({ query: SQL, format: 'JSONEachRow' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ClickHouseError);
    expect((err as ClickHouseError).code).toBe('279');
    const r = await raw(h.stack.url, { body: SQL, auth: h.auth });
    expect(r.status).toBe(500);
    expect(r.headers.get('x-clickhouse-exception-code')).toBe('279');
  });

  it('1: the answer of the shards that answered, flagged partial with the missing shard and its reason', async () => {
    const r = await raw(h.stack.url, { query: { skip_unavailable_shards: '1', default_format: 'JSONEachRow' }, body: SQL, auth: h.auth });
    expect(r.status, r.body.toString()).toBe(200);
    expect(r.headers.get('x-ch-scatter-partial')).toBe('1');
    expect(JSON.parse(r.headers.get('x-ch-scatter-missing-shards')!)).toEqual([{ shard: 1, reason: expect.stringMatching(/error|unavailable/) }]);
    const summary = JSON.parse(r.headers.get('x-clickhouse-summary')!);
    expect(Number(summary.read_rows)).toBeGreaterThan(0);
    const rows = r.body
      .toString()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { k: string; c: number | string });
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.length).toBeLessThan(20); // shard 1's keys are missing
    // The client sees the same partial rows when it asks for them.
    const rs = await client.query({ query: SQL, format: 'JSONEachRow', clickhouse_settings: { skip_unavailable_shards: 1 } });
    expect((await rs.json()).length).toBe(rows.length);
  });

  it('a parameter on the key prunes to a healthy shard: complete, no flag, even with the default', async () => {
    const shardOf = new Map<string, number>();
    const explain = await fetch(`${h.stack.url}/explain`, {
      method: 'POST',
      headers: AUTH_HEADER,
      body: JSON.stringify({ sql: 'SELECT count() FROM analytics.events_dist WHERE k = {k:String}', params: { k: 'k-3' } }),
    });
    const shards = ((await explain.json()) as { shards: { shard: number; skipped: boolean }[] }).shards.filter((s) => !s.skipped);
    expect(shards).toHaveLength(1);
    shardOf.set('k-3', shards[0]!.shard);
    // Find a key that lives on a healthy shard.
    let key = 'k-3';
    for (let i = 0; i < 20 && shardOf.get(key) === 1; i++) {
      key = `k-${i}`;
      const e = await fetch(`${h.stack.url}/explain`, {
        method: 'POST',
        headers: AUTH_HEADER,
        body: JSON.stringify({ sql: 'SELECT count() FROM analytics.events_dist WHERE k = {k:String}', params: { k: key } }),
      });
      shardOf.set(key, ((await e.json()) as { shards: { shard: number; skipped: boolean }[] }).shards.find((s) => !s.skipped)!.shard);
    }
    expect(shardOf.get(key)).not.toBe(1);
    const rs = await client.query({
      query: 'SELECT count() AS c FROM analytics.events_dist WHERE k = {k:String}',
      format: 'JSONEachRow',
      query_params: { k: key },
    });
    expect((await rs.json<{ c: string | number }>()).map((x) => Number(x.c))).toEqual([10]);
    const r = await raw(h.stack.url, { query: { param_k: key }, body: 'SELECT count() FROM analytics.events_dist WHERE k = {k:String}', auth: h.auth });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-ch-scatter-partial')).toBeNull();
  });

  it('max_execution_time is the deadline: a shard slower than it is missing (159 when nothing else answers)', async () => {
    const r = await raw(h.stack.url, { query: { max_execution_time: '0.001' }, body: SQL, auth: h.auth });
    expect(r.status).not.toBe(200);
    expect(['159', '279']).toContain(r.headers.get('x-clickhouse-exception-code'));
  });
});
