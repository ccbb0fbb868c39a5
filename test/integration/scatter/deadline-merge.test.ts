// The deadline covers the merge and the finalize (shared/core/scatter/merge-budget.ts): heavy partials
// (uniqExact sets and quantileExact values of every row) at small timeouts answer by the deadline
// + 150 ms, complete answers equal the unhurried one, and a partial that arrives too late to be
// merged in time is left out and named. Real planner, runtime and shard function over chdb (both
// shards read the same rows, so each ships every value).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createEmbeddedAccess } from '../../../shared/adapters/clickhouse/embedded.js';
import type { ClickHouseAccess } from '../../../shared/core/clickhouse/port.js';
import type { ShardRequest } from '../../../shared/core/protocol/shard-wire.js';
import { runQuery, type RunDeps } from '../../../shared/core/scatter/run-query.js';
import { mergeRates } from '../../../shared/core/scatter/merge-budget.js';
import { DEMO_DDL, DEMO_LOCAL, demoSelect } from '../../../local/demo.js';
import { oneEngineDeps } from '../../support/one-engine-deps.js';
import { replayInvoker } from '../../support/replay-invoker.js';
import { runqueueWaitMs } from '../../support/cpu-wait.js';
import type { ShardInvoker } from '../../../shared/core/scatter/invoker.js';

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
const T = 'analytics.sensor_events_dist';
const HEAVY = `SELECT site, uniqExact(sensor) AS u, quantileExact(0.5)(value) AS q, count() AS c FROM ${T} GROUP BY site ORDER BY site`;
const ROWS = 300_000;
let dir: string;
let ch: ClickHouseAccess;
const sent: ShardRequest[] = [];

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'deadline-merge-'));
  ch = await createEmbeddedAccess({ path: dir });
  for (const ddl of DEMO_DDL) await ch.exec(ddl);
  await ch.exec(`INSERT INTO ${DEMO_LOCAL} ${demoSelect(ROWS)}`);
}, 120_000);
afterAll(async () => {
  await ch?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

// Shard answers replayed by timer after their first real run (test/support/replay-invoker.ts): the
// shards share this thread here, and what is timed must be the coordinator's merge and finalize.
let replay: ShardInvoker | undefined;
const deps = (delayAfterMs?: (p: ShardRequest) => number): RunDeps => {
  const d = oneEngineDeps(
    { cluster: 'c', table: T, local: DEMO_LOCAL, shardingKey: { column: 'sensor', type: 'String', function: 'xxHash64' } },
    () => ch,
    sent,
  );
  replay ??= replayInvoker(d.invoker);
  if (!delayAfterMs) return { ...d, invoker: replay };
  const inner = replay;
  return {
    ...d,
    invoker: {
      invoke: async (shard, p, signal) => {
        const r = await inner.invoke(shard, p, signal);
        const wait = delayAfterMs(p);
        if (wait > 0) await new Promise((res) => setTimeout(res, wait));
        return r;
      },
    },
  };
};

type Body = {
  data: unknown[];
  partial: boolean;
  shards: { missing: { shard: number; reason: string; message: string }[] };
  statistics: { deadlineAtMs: number; lateMs?: number };
};

/**
 * The answer's time, less the time this process waited for a CPU meanwhile (test/support/cpu-wait.ts):
 * on a loaded machine no deadline logic answers while it is not scheduled. The coordinator's own
 * merge and finalize are running time, so they are never excused.
 */
async function timed(body: Record<string, unknown>, d: RunDeps): Promise<{ status: number; b: Body; ms: number }> {
  const w = runqueueWaitMs();
  const t = performance.now();
  const r = await runQuery(body, d);
  return { status: r.status, b: r.body as Body, ms: performance.now() - t - (runqueueWaitMs() - w) };
}

describe('heavy merges under small timeouts', () => {
  let complete: unknown[];
  let fullMs = 0;

  it('unhurried: the reference answer, and how long it takes here', async () => {
    for (let i = 0; i < 3; i++) {
      const r = await timed({ sql: HEAVY, timeoutMs: 30_000 }, deps());
      expect(r.status).toBe(200);
      expect(r.b.partial).toBe(false);
      complete = r.b.data;
      fullMs = r.ms;
    }
    console.log(`heavy query, ${ROWS} rows per shard: ${Math.round(fullMs)} ms unhurried; rates ${JSON.stringify(mergeRates())}`);
  });

  it('every timeout answers by the deadline + 150 ms; complete answers equal the reference', async () => {
    const late: string[] = [];
    for (const f of [0.2, 0.4, 0.6, 0.8, 0.9, 1.0, 1.1, 1.3]) {
      const timeoutMs = Math.max(20, Math.round(fullMs * f));
      const r = await timed({ sql: HEAVY, timeoutMs }, deps());
      if (r.status !== 200) {
        // No shard in time is a 504 TIMEOUT: allowed, if on time.
        expect(r.status, JSON.stringify(r.b)).toBe(504);
      } else if (!r.b.partial) expect(r.b.data).toEqual(complete);
      // A partial answer says why: a shard missing, or the answer ready after the deadline by the wall clock
      // (on a loaded machine, while this test's clock leaves out the time it waited for a CPU).
      else expect(r.b.shards.missing.length > 0 || (r.b.statistics.lateMs ?? 0) > 0, JSON.stringify(r.b.statistics)).toBe(true);
      if (r.ms > timeoutMs + 150) late.push(`timeout ${timeoutMs} ms answered after ${Math.round(r.ms)} ms`);
    }
    expect(late).toEqual([]);
  });

  it('a shard still out when only the finalize fits is not awaited, and says so; the answer is on time', async () => {
    // Shard 0 answers at once; shard 1 only 5 ms before the deadline. Finalizing shard 0's
    // values takes a good part of a second here, so the gather stops waiting for shard 1 then.
    const timeoutMs = 3000;
    const started = Date.now();
    const r = await timed(
      { sql: HEAVY, timeoutMs },
      deps((p) => (p.shard === 1 ? started + timeoutMs - 5 - Date.now() : 0)),
    );
    expect(r.status, JSON.stringify(r.b)).toBe(200);
    expect(r.ms).toBeLessThanOrEqual(timeoutMs + 150);
    expect(r.b.partial).toBe(true);
    expect(r.b.shards.missing).toEqual([
      expect.objectContaining({ shard: 1, reason: 'timeout', message: expect.stringMatching(/stopped waiting \d+ ms before the deadline/) }),
    ]);
  });

  it('a heavy partial arriving too late to merge and finalize in time is left out and named', async () => {
    // Shard 0 never answers in time; shard 1 answers 5 ms before the deadline with every value of
    // 300,000 rows: merging and finalizing them would end far past the deadline.
    const timeoutMs = 3000;
    const started = Date.now();
    const r = await timed(
      { sql: HEAVY, timeoutMs },
      deps((p) => (p.shard === 1 ? started + timeoutMs - 5 - Date.now() : timeoutMs + 500)),
    );
    expect(r.ms).toBeLessThanOrEqual(timeoutMs + 150);
    expect(r.status, JSON.stringify(r.b)).toBe(504);
    const missing = (r.b as unknown as { shards: Body['shards'] }).shards.missing;
    expect(missing).toEqual(
      expect.arrayContaining([expect.objectContaining({ shard: 1, reason: 'timeout', message: expect.stringMatching(/too late to merge/) })]),
    );
  });
});
