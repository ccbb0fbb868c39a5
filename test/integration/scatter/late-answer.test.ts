// An answer ready after its query's deadline is never labelled complete (lateBy and judgeLateness in shared/core/scatter/completeness.ts).
// The last shard answer (fast path) or the final stage's answer (general path) arrives in time, then
// the coordinator's thread stalls past the deadline before it can use it (what an oversubscribed
// machine or a long synchronous parse does): the answer is partial, and a 504 TIMEOUT with
// requireComplete. Real planner, runtime and shard function over chdb.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createEmbeddedAccess } from '../../../shared/adapters/clickhouse/embedded.js';
import type { ClickHouseAccess } from '../../../shared/core/clickhouse/port.js';
import type { ShardRequest } from '../../../shared/core/protocol/shard-wire.js';
import { planTwoStage } from '../../../shared/core/plan/two-stage/plan.js';
import { runQuery, type RunDeps } from '../../../shared/core/scatter/run-query.js';
import { DEMO_DDL, DEMO_LOCAL, demoSelect } from '../../../local/demo.js';
import { oneEngineDeps } from '../../support/one-engine-deps.js';

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
const T = 'analytics.sensor_events_dist';
const ROWS = 10_000;
const STALL_PAST_MS = 40;
let dir: string;
let ch: ClickHouseAccess;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'late-answer-'));
  ch = await createEmbeddedAccess({ path: dir });
  for (const ddl of DEMO_DDL) await ch.exec(ddl);
  await ch.exec(`INSERT INTO ${DEMO_LOCAL} ${demoSelect(ROWS)}`);
}, 120_000);
afterAll(async () => {
  await ch?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Blocks this thread until `until` (epoch ms): no timer, the deadline's included, runs meanwhile. */
function stallUntil(until: number): void {
  while (Date.now() < until) {
    // busy: the point is that the event loop cannot turn
  }
}

type Stall = { after: 'answer'; when: (p: ShardRequest) => boolean } | { after: 'merge'; of: number };

/**
 * Deps that stall the thread past the query's deadline: after the answer of a request `when` picks
 * came (before the coordinator takes it), or after the `of`-th shard answer was merged (onShard runs then).
 */
function deps(stall?: Stall): RunDeps {
  const sent: ShardRequest[] = [];
  const d = oneEngineDeps(
    { cluster: 'c', table: T, local: DEMO_LOCAL, shardingKey: { column: 'sensor', type: 'String', function: 'xxHash64' } },
    () => ch,
    sent,
  );
  const inner = d.invoker;
  let deadline = 0;
  let merged = 0;
  return {
    ...d,
    planTwoStage,
    invoker: {
      invoke: async (shard, p, signal) => {
        deadline = p.deadline;
        const r = await inner.invoke(shard, p, signal);
        if (stall?.after === 'answer' && stall.when(p)) stallUntil(p.deadline + STALL_PAST_MS);
        return r;
      },
    },
    onShard: (o) => {
      if (stall?.after === 'merge' && o.status === 'ok' && ++merged === stall.of) stallUntil(deadline + STALL_PAST_MS);
    },
  };
}

type Body = { data: { c: string }[]; partial: boolean; path: string; statistics: { lateMs?: number }; error?: { code: string } };

const paths: { name: string; sql: string; settings: Record<string, string>; stall: Stall }[] = [
  // Both shards answer the count and are merged; the finalize comes after the stall. (A shard answer
  // arriving that late is not merged at all: merge-budget.ts leaves it out and names it missing.)
  { name: 'fast path (the merge)', sql: `SELECT count() AS c FROM ${T}`, settings: {}, stall: { after: 'merge', of: 2 } },
  // The final stage is the request that carries the stage-one tables.
  {
    name: 'general path (the final stage)',
    sql: `SELECT count() AS c FROM ${T}`,
    settings: { ch_scatter_path: 'general' },
    stall: { after: 'answer', when: (p) => p.tables !== undefined },
  },
];

describe('an answer ready after the deadline', () => {
  for (const c of paths) {
    it(`${c.name}: in time it is complete; late it is partial, and 504 TIMEOUT with requireComplete`, async () => {
      const onTime = await runQuery({ sql: c.sql, settings: c.settings, timeoutMs: 800 }, deps());
      const ok = onTime.body as Body;
      expect(onTime.status, JSON.stringify(ok)).toBe(200);
      expect(ok.partial).toBe(false);
      expect(ok.statistics.lateMs).toBeUndefined();
      expect(ok.data[0]!.c).toBe(String(2 * ROWS)); // both shards read the one engine

      const late = await runQuery({ sql: c.sql, settings: c.settings, timeoutMs: 800 }, deps(c.stall));
      const lb = late.body as Body;
      expect(late.status, JSON.stringify(lb)).toBe(200);
      expect(lb.path).toBe(c.settings.ch_scatter_path === 'general' ? 'general' : 'fast');
      expect(lb.partial).toBe(true);
      expect(lb.statistics.lateMs).toBeGreaterThanOrEqual(STALL_PAST_MS);
      // The rows are all there: only the label says it came too late.
      expect(lb.data[0]!.c).toBe(String(2 * ROWS));

      const refused = await runQuery({ sql: c.sql, settings: c.settings, timeoutMs: 800, requireComplete: true }, deps(c.stall));
      expect(refused.status, JSON.stringify(refused.body)).toBe(504);
      expect((refused.body as Body).error?.code).toBe('TIMEOUT');
    }, 60_000);
  }
});
