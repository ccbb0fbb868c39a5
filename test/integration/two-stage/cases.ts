// Queries the fast path refuses or answers only approximately, with the two-stage plans the
// planner produces for them (written out here so the runtime is tested on its own), shared by the
// chdb suite and the 18.16 suite. `{T}` is the distributed table. Each case is compared with one
// engine holding every row (chdb) or the Distributed table itself (18.16).
import { expect } from 'vitest';
import type { TwoStagePlan } from '../../../shared/core/plan/two-stage/types.js';
import type { SelectQuery } from '../../../shared/core/sql/ast.js';
import { parseSelect } from '../../../shared/core/sql/parse.js';
import type { TwoStagePlanner } from '../../../shared/core/scatter/two-stage/path.js';

export interface TwoStageCase {
  name: string;
  sql: string;
  leaves: string[];
  finalSql: string;
  /** 18.16 lacks the feature (window functions, newer functions). */
  chdbOnly?: boolean;
  /** Row order is not defined by the query (UNION ALL): compare as sorted. */
  unordered?: boolean;
}

export const CASES: TwoStageCase[] = [
  {
    name: 'states beyond the fast path (stddevPop, uniq as ClickHouse computes it) WITH TOTALS',
    sql: 'SELECT site, count() AS c, uniq(sensor) AS u, stddevPop(value) AS sd FROM {T} GROUP BY site WITH TOTALS ORDER BY site',
    leaves: ['SELECT site AS _k0, countState() AS _a0, uniqState(sensor) AS _a1, stddevPopState(value) AS _a2 FROM {T} GROUP BY site'],
    finalSql: 'SELECT _k0 AS site, countMerge(_a0) AS c, uniqMerge(_a1) AS u, stddevPopMerge(_a2) AS sd FROM _stage0 GROUP BY _k0 WITH TOTALS ORDER BY site',
  },
  {
    name: 'exact top count over a GROUP BY that spans shards',
    sql: 'SELECT round(value) AS v, count() AS c FROM {T} GROUP BY v ORDER BY c DESC, v LIMIT 5',
    leaves: ['SELECT round(value) AS _k0, countState() AS _a0 FROM {T} GROUP BY _k0'],
    finalSql: 'SELECT _k0 AS v, countMerge(_a0) AS c FROM _stage0 GROUP BY _k0 ORDER BY c DESC, v LIMIT 5',
  },
  {
    name: 'quantileExact, groupUniqArray, varSamp, corr',
    sql: 'SELECT site, quantileExact(0.9)(value) AS q, arraySort(groupUniqArray(metric)) AS m, varSamp(value) AS vs, corr(value, status) AS r FROM {T} GROUP BY site ORDER BY site',
    leaves: [
      'SELECT site AS _k0, quantileExactState(0.9)(value) AS _a0, groupUniqArrayState(metric) AS _a1, varSampState(value) AS _a2, corrState(value, status) AS _a3 FROM {T} GROUP BY site',
    ],
    finalSql:
      'SELECT _k0 AS site, quantileExactMerge(0.9)(_a0) AS q, arraySort(groupUniqArrayMerge(_a1)) AS m, varSampMerge(_a2) AS vs, corrMerge(_a3) AS r FROM _stage0 GROUP BY _k0 ORDER BY site',
  },
  {
    name: 'rows: ORDER BY ... LIMIT pushed to the shards, the final stage sorts and cuts',
    sql: 'SELECT sensor, value FROM {T} ORDER BY value DESC, sensor LIMIT 7',
    leaves: ['SELECT sensor, value FROM {T} ORDER BY value DESC, sensor LIMIT 7'],
    finalSql: 'SELECT sensor, value FROM _stage0 ORDER BY value DESC, sensor LIMIT 7',
  },
  {
    name: 'subquery in FROM: the inner query is distributed, the outer one runs in the final stage',
    sql: 'SELECT max(c) AS top, min(c) AS bottom FROM (SELECT site, count() AS c FROM {T} GROUP BY site)',
    leaves: ['SELECT site AS _k0, countState() AS _a0 FROM {T} GROUP BY site'],
    finalSql: 'SELECT max(c) AS top, min(c) AS bottom FROM (SELECT _k0 AS site, countMerge(_a0) AS c FROM _stage0 GROUP BY _k0)',
  },
  {
    name: 'UNION ALL of two distributed SELECTs: two leaves',
    sql: "SELECT 'ams' AS what, count() AS c FROM {T} WHERE site = 'ams' UNION ALL SELECT 'alarm', count() FROM {T} WHERE status = 500",
    leaves: ["SELECT countState() AS _a0 FROM {T} WHERE site = 'ams'", 'SELECT countState() AS _a0 FROM {T} WHERE status = 500'],
    finalSql: "SELECT 'ams' AS what, countMerge(_a0) AS c FROM _stage0 UNION ALL SELECT 'alarm', countMerge(_a0) FROM _stage1",
    unordered: true,
  },
  {
    name: 'a window function over aggregated results',
    sql: 'SELECT site, count() AS c, rank() OVER (ORDER BY count() DESC, site) AS r FROM {T} GROUP BY site ORDER BY site',
    leaves: ['SELECT site AS _k0, countState() AS _a0 FROM {T} GROUP BY site'],
    finalSql: 'SELECT _k0 AS site, countMerge(_a0) AS c, rank() OVER (ORDER BY countMerge(_a0) DESC, _k0) AS r FROM _stage0 GROUP BY _k0 ORDER BY site',
    chdbOnly: true,
  },
  {
    name: 'a function over an aggregate the coordinator does not have',
    sql: 'SELECT formatReadableQuantity(count()) AS n FROM {T}',
    leaves: ['SELECT countState() AS _a0 FROM {T}'],
    finalSql: 'SELECT formatReadableQuantity(countMerge(_a0)) AS n FROM _stage0',
    chdbOnly: true,
  },
];

export function sqlOf(c: TwoStageCase, table: string): string {
  return c.sql.replaceAll('{T}', table);
}

export function planOf(c: TwoStageCase, table: string): TwoStagePlan {
  return {
    leaves: c.leaves.map((l, i) => ({ name: `_stage${i}`, query: parseSelect(l.replaceAll('{T}', table)) as SelectQuery })),
    finalSql: c.finalSql,
    notes: [`hand-written plan: ${c.name}`],
  };
}

/** A planner that knows exactly these cases (by their SQL), as the real one would plan them. */
export function casePlanner(cases: TwoStageCase[], table: string, extra: Record<string, TwoStagePlan> = {}): TwoStagePlanner {
  const byText = new Map<string, () => TwoStagePlan>(Object.entries(extra).map(([k, p]) => [k, () => p]));
  for (const c of cases) byText.set(sqlOf(c, table), () => planOf(c, table));
  return (stmt) => {
    const text = [...byText.keys()].find((k) => sameStatement(k, stmt));
    if (!text) throw new Error('no hand-written plan for this statement');
    return byText.get(text)!();
  };
}

function sameStatement(text: string, stmt: unknown): boolean {
  const strip = (x: unknown) => JSON.stringify(x, (k, v) => (k === 'pos' || k === 'settings' ? undefined : v));
  return strip(parseSelect(text)) === strip(stmt);
}

/** ClickHouse JSON (quoted 64-bit integers, quoted denormals), as the final stage answers. */
export const JSON_SETTINGS = { output_format_json_quote_64bit_integers: 1, output_format_json_quote_denormals: 1 };

type Row = Record<string, unknown>;

/** Same rows; floats within 1e-9 relative (the states were summed in another order), everything else exactly. */
export function expectSameAnswer(
  got: { meta?: unknown; data?: Row[]; totals?: Row },
  want: { meta: unknown; data: Row[]; totals?: Row },
  c: TwoStageCase,
): void {
  expect(got.meta, c.name).toEqual(want.meta);
  const order = (rows: Row[]) => (c.unordered ? [...rows].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))) : rows);
  const g = order(got.data ?? []);
  const w = order(want.data);
  expect(g.length, c.name).toBe(w.length);
  expect(w.length, `${c.name}: the reference has rows`).toBeGreaterThan(0);
  for (const [i, row] of g.entries()) expectSameRow(row, w[i]!, `${c.name} row ${i}`);
  if (want.totals) expectSameRow(got.totals ?? {}, want.totals, `${c.name} totals`);
  else expect(got.totals, c.name).toBeUndefined();
}

function expectSameRow(a: Row, b: Row, what: string): void {
  expect(Object.keys(a), what).toEqual(Object.keys(b));
  for (const k of Object.keys(b)) {
    const x = a[k];
    const y = b[k];
    if (typeof x === 'number' && typeof y === 'number' && !Number.isInteger(y)) {
      expect(Math.abs(x - y), `${what} ${k}: ${x} vs ${y}`).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(y)));
    } else expect(x, `${what} ${k}`).toEqual(y);
  }
}
