// A cancel request on an embedded (chdb) shard (shared/core/shard/execute.ts, inflight.ts): chdb runs one
// query at a time and cannot interrupt the one inside it, so what a cancel frees is the engine's
// queue. A loser waiting behind another query is answered 'cancelled' within 100 ms and never
// runs (the next query starts when the one ahead of it ends, not after the loser); a loser inside
// the engine is answered within 100 ms too, its query left to max_execution_time. Other attempts
// of the same query on the same engine (another leaf) are untouched.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createEmbeddedAccess } from '../../../shared/adapters/clickhouse/embedded.js';
import type { ClickHouseAccess } from '../../../shared/core/clickhouse/port.js';
import type { ShardRequest, ShardResponse } from '../../../shared/core/protocol/shard-wire.js';
import { executeShardRequest } from '../../../shared/core/shard/execute.js';
import { InflightAttempts } from '../../../shared/core/shard/inflight.js';

let dir: string;
let ch: ClickHouseAccess;
const inflight = new InflightAttempts();

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shard-cancel-'));
  ch = await createEmbeddedAccess({ path: dir });
}, 120_000);
afterAll(async () => {
  await ch?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const SLEEP_S = 1;

function query(queryId: string, attemptId: string, sql: string): ShardRequest {
  return { type: 'query', queryId, shard: 0, replica: 0, sql, deadline: Date.now() + 10_000, settings: {}, external: [], attempt: 'primary', attemptId };
}

/** Query ids the engine was asked for, and who waits for one to be asked. */
const asked = new Set<string>();
const waiters: { prefix: string; resolve: () => void }[] = [];
function watched(): ClickHouseAccess {
  return new Proxy(ch, {
    get(target, key, receiver) {
      const v = Reflect.get(target, key, receiver);
      if (key !== 'query' || typeof v !== 'function') return v;
      return (sql: string, o?: { queryId?: string }) => {
        const id = o?.queryId ?? '';
        asked.add(id);
        for (const w of waiters.filter((x) => id.startsWith(x.prefix))) w.resolve();
        return (v as ClickHouseAccess['query']).call(target, sql, o);
      };
    },
  });
}
/** Resolves once the engine was asked for a query of `queryId`. */
function entered(queryId: string): Promise<void> {
  if ([...asked].some((id) => id.startsWith(queryId))) return Promise.resolve();
  return new Promise((resolve) => waiters.push({ prefix: queryId, resolve }));
}

function run(p: ShardRequest): Promise<{ r: ShardResponse; at: number }> {
  return executeShardRequest(p, watched(), { now: Date.now, inflight }).then((r) => ({ r, at: performance.now() }));
}

async function cancel(queryId: string, attemptId: string): Promise<ShardResponse> {
  return executeShardRequest({ type: 'cancel', queryId, shard: 0, replica: 0, attemptId, deadline: Date.now() + 5000 }, ch, { now: Date.now, inflight });
}

describe('a cancel on an embedded shard', () => {
  it("drops a queued loser within 100 ms; it never runs, and the same query's other attempt is untouched", async () => {
    const t0 = performance.now();
    const ahead = run(query('q-other', 'a0000001', `SELECT sleep(${SLEEP_S}) AS s`));
    const loser = run(query('q-lose', 'b0000001', `SELECT sleep(${SLEEP_S}) AS s`));
    const sibling = run(query('q-lose', 'b0000002', 'SELECT 42 AS x'));
    // The loser waits behind `ahead` from its first call: the engine takes one query at a time.
    await entered('q-other');
    const sentAt = performance.now();
    const c = await cancel('q-lose', 'b0000001');
    expect(c.ok).toBe(true);
    const l = await loser;
    expect(l.r.ok).toBe(false);
    expect(!l.r.ok && l.r.error.kind).toBe('cancelled');
    expect(l.at - sentAt).toBeLessThan(100);
    // The other attempt of q-lose ran, right after the query ahead: the loser's second never came.
    const s = await sibling;
    expect(s.r.ok && s.r.rows).toEqual([{ x: 42 }]);
    expect((await ahead).r.ok).toBe(true);
    expect(s.at - t0).toBeLessThan(SLEEP_S * 1000 * 1.8);
  }, 30_000);

  it('answers a loser inside the engine within 100 ms (its query runs out in the engine)', async () => {
    const loser = run(query('q-inside', 'c0000001', `SELECT sleep(${SLEEP_S}) AS s`));
    await entered('q-inside'); // the engine's queue is empty: asked is inside
    const sentAt = performance.now();
    await cancel('q-inside', 'c0000001');
    const l = await loser;
    expect(!l.r.ok && l.r.error.kind).toBe('cancelled');
    expect(l.at - sentAt).toBeLessThan(100);
  }, 30_000);

  it('refuses a malformed cancel with BAD_REQUEST; one for rows chdb never keeps is a no-op', async () => {
    const bad = await executeShardRequest({ type: 'cancel', queryId: 'q', shard: 0, replica: 0, attemptId: "x' OR 1", deadline: Date.now() + 5000 }, ch, {
      now: Date.now,
    });
    expect(!bad.ok && bad.error.code).toBe('BAD_REQUEST');
    const noKeep = await executeShardRequest(
      {
        type: 'cancel',
        queryId: 'q',
        shard: 0,
        replica: 0,
        kept: { session: 'chs-00000000-0000-0000-0000-000000000000', table: '_stage0' },
        deadline: Date.now() + 5000,
      },
      ch,
      { now: Date.now },
    );
    expect(noKeep.ok).toBe(true);
  });

  it('stops an attempt that arrives after its cancel (the cancel overtook it)', async () => {
    await cancel('q-late', 'd0000001');
    const l = await run(query('q-late', 'd0000001', 'SELECT 1 AS x'));
    expect(!l.r.ok && l.r.error.kind).toBe('cancelled');
  });
});
