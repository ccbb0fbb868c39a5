// Which path answers: the fast path what it covers, the general path what the fast path refuses
// as UNSUPPORTED, ch_scatter_path forcing either; exact top count by default.
import { describe, expect, it } from 'vitest';
import { explainPlan, planQuery } from '../../../../shared/core/plan/index.js';
import { planTwoStage } from '../../../../shared/core/plan/two-stage/plan.js';
import { createHedgeState } from '../../../../shared/core/scatter/hedge.js';
import { runExplain, runQuery, type PlanFn, type RunDeps } from '../../../../shared/core/scatter/run-query.js';
import type { TwoStagePlanner } from '../../../../shared/core/scatter/two-stage/path.js';
import { topo } from '../fakes.js';
import { FINAL_OK, STATE_COLUMNS, scriptedInvoker, stateRows, tsv, uniqPlan } from './fakes.js';

function deps(planTwoStage?: TwoStagePlanner) {
  const inv = scriptedInvoker({
    stageOne: (s) => ({ kind: 'raw', bytes: tsv(STATE_COLUMNS, stateRows(s, ['a'])) }),
    final: () => ({ kind: 'raw', bytes: FINAL_OK }),
  });
  const planned: string[] = [];
  const d: RunDeps = {
    topo: topo([1, 1], { hedge: { enabled: false } }),
    invoker: inv,
    planQuery: planQuery as PlanFn,
    explainPlan,
    hedgeState: createHedgeState(),
    queryId: 'q',
    behindApiGateway: false,
    ...(planTwoStage
      ? {
          planTwoStage: (stmt, t) => {
            planned.push(stmt.kind);
            return planTwoStage(stmt, t);
          },
        }
      : {}),
  };
  return { d, inv, planned };
}

const REFUSED = 'SELECT site, stddevPop(v) FROM db.t_dist GROUP BY site'; // not among the fast path's families
const FAST = 'SELECT count() FROM db.t_dist';
const TOP = 'SELECT site, count() AS c FROM db.t_dist GROUP BY site ORDER BY c DESC LIMIT 2';

describe('path choice', () => {
  it('auto: a query the fast path refuses as UNSUPPORTED runs on the general path', async () => {
    const { d, inv } = deps(() => uniqPlan());
    const r = await runQuery({ sql: REFUSED }, d);
    expect(r.status).toBe(200);
    const b = r.body as Record<string, any>;
    expect(b.path).toBe('general');
    expect(b.data).toEqual([{ site: 'a', 'uniq(sensor)': '3' }]);
    expect(b.totals).toEqual({ site: '', 'uniq(sensor)': '9' });
    expect(b.statistics.finalStage.shard).toBeGreaterThanOrEqual(0);
    expect(inv.calls.filter((c) => !c.final).every((c) => c.payload.format === 'TabSeparatedWithNamesAndTypes')).toBe(true);
  });

  it('auto: what the fast path covers stays on it', async () => {
    const { d, planned } = deps(() => uniqPlan());
    const r = await runQuery({ sql: FAST }, d);
    expect(r.status).toBe(200);
    expect((r.body as Record<string, unknown>).path).toBe('fast');
    expect(planned).toEqual([]);
  });

  it("ch_scatter_path = 'general' (request settings or SETTINGS clause) forces the general path", async () => {
    for (const req of [{ sql: FAST, settings: { ch_scatter_path: 'general' } }, { sql: `${FAST} SETTINGS ch_scatter_path = 'general'` }]) {
      const { d, planned } = deps(() => uniqPlan());
      const r = await runQuery(req, d);
      expect(r.status).toBe(200);
      expect((r.body as Record<string, unknown>).path).toBe('general');
      expect(planned).toEqual(['select']);
    }
  });

  it("ch_scatter_path = 'fast' keeps the fast path's refusal", async () => {
    const { d, planned } = deps(() => uniqPlan());
    const r = await runQuery({ sql: REFUSED, settings: { ch_scatter_path: 'fast' } }, d);
    expect(r.status).toBe(400);
    expect((r.body as any).error.code).toBe('UNSUPPORTED');
    expect((r.body as any).error.message).toMatch(/stddevPop/);
    expect(planned).toEqual([]);
  });

  it('a bad ch_scatter_path value is a 400 naming the values', async () => {
    const { d } = deps(() => uniqPlan());
    const r = await runQuery({ sql: FAST, settings: { ch_scatter_path: 'fastest' } }, d);
    expect(r.status).toBe(400);
    expect((r.body as any).error.message).toMatch(/'auto', 'fast' or 'general'/);
  });

  it('without a two-stage planner the fast path refusal stands', async () => {
    const { d } = deps();
    const r = await runQuery({ sql: REFUSED }, d);
    expect(r.status).toBe(400);
    expect((r.body as any).error.code).toBe('UNSUPPORTED');
  });

  it('ORDER BY count() DESC LIMIT over a non-key GROUP BY is exact by default (general path); shard_size is an opt-in', async () => {
    const { d } = deps(() => uniqPlan());
    const exact = await runQuery({ sql: TOP }, d);
    expect((exact.body as Record<string, unknown>).path).toBe('general');
    const approx = await runQuery({ sql: TOP, settings: { ch_scatter_top_count: 'shard_size' } }, deps(() => uniqPlan()).d);
    expect(approx.status).toBe(200);
    expect((approx.body as Record<string, unknown>).path).toBe('fast');
    // Forced onto the fast path, or with no general path at all: still exact, every group transferred.
    for (const [req, d] of [
      [{ sql: TOP, settings: { ch_scatter_path: 'fast' } }, deps(() => uniqPlan())],
      [{ sql: TOP }, deps()],
    ] as const) {
      const r = await runQuery(req, d.d);
      expect(r.status).toBe(200);
      expect((r.body as Record<string, unknown>).path).toBe('fast');
      expect((r.body as Record<string, unknown>).approximate).toBeUndefined();
      // TPUT's rounds (shared/core/scatter/tput/) go first; the query's own shard SQL has no push-down.
      const shardSql = d.inv.calls.map((c) => c.payload.sql).filter((s) => !s.includes('_tput_'));
      expect(shardSql.every((s) => !/LIMIT/.test(s))).toBe(true); // no shard_size push-down
    }
  });

  it('what no path may run is refused before the general path plans it, and no shard is asked', async () => {
    for (const [sql, msg] of [
      ["SELECT site, stddevPop(v), file('/etc/passwd') FROM db.t_dist GROUP BY site", /function file\(\) is not allowed/],
      ["SELECT c FROM (SELECT site, getSetting('readonly') AS c FROM db.t_dist) GROUP BY c", /function getSetting\(\) is not allowed/],
      ["SELECT site, stddevPop(v) FROM db.t_dist GROUP BY site LIMIT 'a'", /LIMIT must be a non-negative integer literal/],
      ['SELECT x FROM (SELECT site AS x FROM db.t_dist LIMIT -1)', /LIMIT must be a non-negative integer literal/],
      ['SELECT site, stddevPop(v) FROM db.t_dist GROUP BY site FORMAT Native', /FORMAT Native/],
    ] as const) {
      for (const route of [runQuery, runExplain]) {
        const { d, inv, planned } = deps(() => uniqPlan());
        const r = await route({ sql, settings: { ch_scatter_path: 'general' } }, d);
        expect(r.status, sql).toBe(400);
        expect((r.body as any).error.code).toBe('UNSUPPORTED');
        expect((r.body as any).error.message).toMatch(msg);
        expect(inv.calls).toEqual([]);
        expect(planned).toEqual([]);
      }
    }
  });

  it('a query parameter the request does not give is refused before planning (456), and no shard is asked', async () => {
    for (const route of [runQuery, runExplain]) {
      const { d, inv, planned } = deps(() => uniqPlan());
      const r = await route({ sql: 'SELECT site, stddevPop(v) FROM db.t_dist GROUP BY site LIMIT {n:UInt8}', settings: { ch_scatter_path: 'general' } }, d);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ error: { code: 'BAD_REQUEST', message: 'Substitution `n` is not set' }, clickhouse: { code: 456 } });
      expect(inv.calls).toEqual([]);
      expect(planned).toEqual([]);
    }
  });

  it('/explain shows the chosen path, each shard SQL and the final-stage SQL', async () => {
    const { d } = deps(() => uniqPlan());
    const g = (await runExplain({ sql: REFUSED }, d)).body as Record<string, any>;
    expect(g.path).toBe('general');
    expect(g.fastPathRefused).toMatch(/stddevPop/);
    expect(g.shards.map((s: { sql: string }) => s.sql)).toEqual([expect.stringMatching(/uniqState\(sensor\) AS _a0 FROM db\.t /), expect.any(String)]);
    expect(g.leaves[0].name).toBe('_stage0');
    expect(g.finalStage.sql).toBe(uniqPlan().finalSql);
    expect(g.finalStage.runsOn).toMatch(/keeps its own stage-one rows in a session/);
    expect(g.finalStage.initiatorKeepsItsRows).toBe(true);
    expect(g.notes).toEqual(uniqPlan().notes);
    const shipped = (await runExplain({ sql: REFUSED, settings: { ch_scatter_keep_initiator_rows: 0 } }, d)).body as Record<string, any>;
    expect(shipped.finalStage.runsOn).not.toMatch(/keeps/);
    expect(shipped.finalStage.initiatorKeepsItsRows).toBeUndefined();
    expect(shipped.truncated).toBeUndefined();
    // A truncating overflow mode: no shard keeps its rows, and the answer's label is said beforehand.
    const cut = (await runExplain({ sql: REFUSED, settings: { max_rows_to_group_by: 5, group_by_overflow_mode: 'any' } }, d)).body as Record<string, any>;
    expect(cut.finalStage.initiatorKeepsItsRows).toBeUndefined();
    expect(cut.truncated).toEqual([expect.stringContaining("group_by_overflow_mode = 'any' at max_rows_to_group_by = 5")]);
    const f = (await runExplain({ sql: FAST }, d)).body as Record<string, any>;
    expect(f.path).toBe('fast');
    expect(f.shards).toHaveLength(2);
  });

  it('/explain with the real planner: count/sum/max as plain values (with the empty-shard guard), avg as a state', async () => {
    const { d } = deps(planTwoStage);
    const sql = 'SELECT count() AS c, sum(v) AS s, avg(v) AS a, max(site) AS m FROM db.t_dist';
    const g = (await runExplain({ sql, settings: { ch_scatter_path: 'general' } }, d)).body as Record<string, any>;
    expect(g.path).toBe('general');
    for (const s of g.shards)
      expect(s.sql).toMatch(/^SELECT count\(\) AS _a0, sum\(v\) AS _a1, avgState\(v\) AS _a2, max\(site\) AS _a3 FROM db\.t .*HAVING count\(\) > 0/);
    expect(g.finalStage.sql).toBe('SELECT sum(_a0) AS c, sum(_a1) AS s, avgMerge(_a2) AS a, max(_a3) AS m FROM _stage0');
    expect(g.notes.join('\n')).toMatch(/aggregates travel as plain values: count\(\) AS _a0, sum\(v\) AS _a1, max\(site\) AS _a3/);
    expect(g.notes.join('\n')).toMatch(/aggregates travel as states: avgState\(v\) AS _a2/);
  });
});
