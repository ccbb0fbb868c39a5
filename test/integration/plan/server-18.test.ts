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
import { tablesRead } from '../../../shared/core/plan/analyze.js';
import { printSelect } from '../../../shared/core/sql/print.js';

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

/** Constant SELECTs the planner asked 18.16 to fold (the sharding key's constant operands). */
const folded: string[] = [];
const runner: SubqueryRunner = async (stmt) => {
  // A statement that reads no table runs on one engine, as the runtime runs it: here, 18.16's.
  if (tablesRead(stmt, topo).length === 0) {
    folded.push(printSelect(stmt));
    const r = await ch.query(printSelect(stmt));
    return { meta: r.meta, rows: r.rows };
  }
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

// The sharding key's constant operands folded by an 18.16 engine: the shards the literals' plan asks,
// and the rows 18.16 answers over them equal those of the literals' plan.
describe("the key's constant operands folded on clickhouse-server 18.16", () => {
  const skippedOf = (p: QueryPlan) => p.shards.map((s) => (s.skipped ? 0 : 1)).join('');
  it.each([
    ['k = toUInt8(7)', 'k = 7'],
    ['k = 1 + 2', 'k = 3'],
    ["k = toUInt16('9')", 'k = 9'],
    ['k IN (1 + 1, intDiv(14, 2), toUInt8(300))', 'k IN (2, 7, 44)'],
    ['k = 3 + 0.5', 'k = 3.5'],
    ["sensor = concat('s-', toString(4))", "sensor = 's-4'"],
    ["sensor IN (lower('S-1'), substring('xs-7', 2))", "sensor IN ('s-1', 's-7')"],
  ])('%s asks the shards %s asks', async (constants, literals) => {
    const table = constants.startsWith('k') ? 'nums_dist' : 'analytics.events_dist';
    folded.length = 0;
    const plan = await planQueryWith(`SELECT * FROM ${table} WHERE ${constants}`, topo, { runSubquery: runner }, passThroughSplit);
    const literal = await planQueryWith(`SELECT * FROM ${table} WHERE ${literals}`, topo, {}, passThroughSplit);
    expect(folded).toHaveLength(1);
    expect(skippedOf(plan)).toBe(skippedOf(literal));
    const rows = (p: QueryPlan) => runAll(p).then((r) => r.rows.map((x) => JSON.stringify(x)).sort());
    expect(await rows(plan)).toEqual(await rows(literal));
  });
});
