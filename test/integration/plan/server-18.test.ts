// Every per-shard SQL of the golden corpus is valid on Debian's clickhouse-server 18.16 too (the
// oldest engine we target), with shipped GLOBAL data as HTTP external tables. One server holds
// every shard's local tables (this checks the text, not placement: 18.16 has no xxHash64).
// One server through test/support/ch-servers.ts: HTTP 19400, TCP 19450 (this area's range).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpAccess } from '../../../shared/adapters/clickhouse/http.js';
import type { ClickHouseAccess } from '../../../shared/core/clickhouse/port.js';
import { planQueryWith } from '../../../shared/core/plan/build.js';
import type { QueryPlan, SubqueryRunner } from '../../../shared/core/plan/types.js';
import { ADMIN, useChServers } from '../../support/ch-servers.js';
import { CORPUS } from '../../unit/plan/corpus.js';
import { LOCAL_DDL, passThroughSplit, testTopology } from '../../unit/plan/fixtures.js';
import { externalsFor, generateData } from './cluster-fixture.js';

const servers = useChServers({ n: 1, portBase: 19400 });
const topo = testTopology();
let ch: ClickHouseAccess;

// 18.16 refuses a JOIN without ANY/ALL unless join_default_strictness is set (a forwarded setting).
const SETTINGS_18 = { join_default_strictness: 'ALL' };

// Runs after useChServers' beforeAll (hooks run in the order registered), so the server answers.
beforeAll(async () => {
  ch = createHttpAccess({ url: servers.current.urls[0]! });
  const admin = createHttpAccess({ url: servers.current.urls[0]!, ...ADMIN });
  for (const ddl of LOCAL_DDL) await admin.exec(ddl);
  for (const [table, rows] of Object.entries(generateData())) if (rows.length) await admin.insert(table, rows);
  await admin.close();
}, 60_000);

afterAll(async () => {
  await ch?.close();
});

async function runAll(plan: QueryPlan): Promise<{ rows: Record<string, unknown>[]; meta: { name: string; type: string }[] }> {
  const rows: Record<string, unknown>[] = [];
  let meta: { name: string; type: string }[] = [];
  for (const s of plan.shards) {
    if (s.skipped) continue;
    const res = await ch.query(s.sql!, { settings: { ...plan.settings, ...SETTINGS_18 }, external: externalsFor(plan, s.shard) });
    rows.push(...res.rows);
    meta = res.meta;
  }
  return { rows, meta };
}

const runner: SubqueryRunner = async (stmt) => {
  const plan = await planQueryWith(stmt, topo, {}, passThroughSplit);
  return runAll(plan);
};

describe('corpus shard SQL on clickhouse-server 18.16', () => {
  it.each(CORPUS.map((e, i) => [i, e.sql, e] as const))('[%i] %s', async (_i, sql, entry) => {
    const plan = await planQueryWith(sql, topo, { ...entry.opts, runSubquery: runner }, passThroughSplit);
    const queried = plan.shards.filter((s) => !s.skipped);
    expect(queried.length).toBeGreaterThan(0);
    if (entry.rejectedBy18) {
      // 18.16 refuses the user's own query (e.g. a string in an integer IN set); the rewrite keeps the literal as written.
      await expect(runAll(plan)).rejects.toThrow(entry.rejectedBy18);
      return;
    }
    await runAll(plan); // throws with the server's message if 18.16 rejects a shard's text
  });
});
