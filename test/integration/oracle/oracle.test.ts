// THE ORACLE: every corpus query scattered over 5 embedded shards (router placement, one chdb
// process each, one shard empty) and merged in a shuffled arrival order must equal the same query
// on one embedded node holding every row: same column names and types, same rows; floats within
// 1e-9 relative; approximate columns within their stated bound of the exact truth.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ScatterError } from '../../../shared/core/errors.js';
import type { FinalResult } from '../../../shared/core/partials/types.js';
import { HLL_RSE, DDSKETCH_ALPHA } from '../../../shared/core/partials/index.js';
import { CORPUS, type Case } from './corpus.js';
import { rng } from './data.js';
import { startOracle, SHARDS, type Oracle } from './harness.js';

let o: Oracle;
beforeAll(async () => {
  o = await startOracle(20_000);
}, 120_000);
afterAll(async () => {
  await o?.stop();
});

const shuffle = (seed: number) => {
  const r = rng(seed);
  const a = Array.from({ length: SHARDS }, (_, i) => i);
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
};

function close(a: unknown, b: unknown, type: string): boolean {
  if (Array.isArray(a) && Array.isArray(b)) {
    const inner = /^Array\((.*)\)$/.exec(type)?.[1] ?? type;
    return a.length === b.length && a.every((x, i) => close(x, b[i], inner));
  }
  // NaN's sign is not kept (docs/architecture.md#the-value-model): ClickHouse writes 0/0 as -nan.
  if (/Float/.test(type) && typeof a === 'string' && typeof b === 'string' && /^-?nan$/.test(a) && /^-?nan$/.test(b)) return true;
  if (/Float/.test(type) && typeof a === 'number' && typeof b === 'number') {
    return a === b || Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b)) + 1e-9;
  }
  return JSON.stringify(a) === JSON.stringify(b);
}

function sortRows(rows: Record<string, unknown>[]): Record<string, unknown>[] {
  return [...rows].sort((x, y) => (JSON.stringify(x) < JSON.stringify(y) ? -1 : 1));
}

/** Exact neighbours of each quantile, computed on the single node, for `quantile...(x)` columns. */
function quantileTruthSql(sql: string): string {
  return sql.replace(
    /\b(quantileTDigest|quantiles|quantile|median)(If)?(?:\(([^()]*)\))?\(([^(),]+)(?:, ([^()]+))?\)/g,
    (_m, name: string, iff: string | undefined, params: string | undefined, x: string, cond: string | undefined) => {
      const levels = name === 'median' ? ['0.5'] : (params ?? '0.5').split(',').map((s) => s.trim());
      const arr = iff ? `arraySort(groupArrayIf(${x}, ${cond}))` : `arraySort(groupArray(${x}))`;
      const pairs = levels.map((l) => `(${arr}[toUInt64(floor(${l} * (length(${arr}) - 1))) + 1], ${arr}[toUInt64(ceil(${l} * (length(${arr}) - 1))) + 1])`);
      return `[${pairs.join(', ')}]`;
    },
  );
}

function checkQuantile(got: unknown, truth: unknown, f32: boolean): void {
  const vals = Array.isArray(got) ? got : [got];
  const pairs = truth as [number, number][];
  expect(vals.length).toBe(pairs.length);
  vals.forEach((v, i) => {
    const [lo, hi] = pairs[i]!.map(Number) as [number, number];
    const slack = (f32 ? 1e-6 : 1e-9) * Math.max(Math.abs(lo), Math.abs(hi), 1);
    expect(Number(v)).toBeGreaterThanOrEqual(lo - DDSKETCH_ALPHA * Math.abs(lo) - slack);
    expect(Number(v)).toBeLessThanOrEqual(hi + DDSKETCH_ALPHA * Math.abs(hi) + slack);
  });
}

function counts(col: string): Map<string, number> {
  const m = new Map<string, number>();
  for (const r of o.rows) {
    const k = JSON.stringify(r[col] ?? null);
    m.set(k, (m.get(k) ?? 0) + 1);
  }
  return m;
}

async function checkApprox(c: Case, got: FinalResult, single: Record<string, unknown>[]): Promise<void> {
  const truthRows = c.sql.includes('uniq')
    ? (await o.single(c.sql.replace(/\buniq(Combined|HLL12)?(If)?\(/g, (_m, _v, iff) => `uniqExact${iff ?? ''}(`))).rows
    : /quantile|median/.test(c.sql)
      ? (await o.single(quantileTruthSql(c.sql))).rows
      : single;
  expect(got.data.length).toBe(truthRows.length);
  for (const [name, kind] of Object.entries(c.approx!)) {
    const info = got.approximate?.[name];
    got.data.forEach((row, i) => {
      const v = row[name];
      const t = truthRows[i]![name];
      if (kind === 'hll') {
        expect(info?.method).toBe('hll');
        const truth = Number(t);
        expect(Math.abs(Number(v) - truth)).toBeLessThanOrEqual(4 * HLL_RSE * truth + 1);
      } else if (kind === 'quantile') {
        expect(info?.method).toBe('ddsketch');
        checkQuantile(v, t, /TDigest/.test(c.sql));
      } else if (kind === 'topk') {
        const col = /topK\(\d+\)\((\w+)\)/.exec(c.sql)![1]!;
        const n = Number(/topK\((\d+)\)/.exec(c.sql)![1]);
        const truth = counts(col);
        const sorted = [...truth.values()].sort((a, b) => b - a);
        const nth = sorted[Math.min(n, sorted.length) - 1]!;
        const bound = Number(info?.errorUpperBound ?? 0);
        const list = v as unknown[];
        expect(list.length).toBe(Math.min(n, truth.size));
        for (const x of list) expect(truth.get(JSON.stringify(x))! + bound).toBeGreaterThanOrEqual(nth);
        if (!info) expect(list.map((x) => truth.get(JSON.stringify(x)))).toEqual(sorted.slice(0, n));
      } else if (kind === 'topk-count') {
        const keyCol = got.meta[0]!.name;
        const truth = counts(keyCol);
        const reported = Number(v);
        const real = truth.get(JSON.stringify(row[keyCol] ?? null))!;
        const per = Number(info?.perRowErrorUpperBound?.[i] ?? 0);
        expect(reported).toBeLessThanOrEqual(real);
        expect(real).toBeLessThanOrEqual(reported + per);
        if (!info) expect(row).toEqual(single[i]);
      }
    });
  }
}

describe('oracle: scatter-gather equals one node', () => {
  test('the data really is spread, with one empty shard', () => {
    expect(o.perShard['oracle.ev']![4]).toBe(0);
    expect(o.perShard['oracle.ev']!.filter((n) => n > 0).length).toBe(4);
    expect(o.perShard['oracle.evs']!.every((n) => n > 0)).toBe(true);
  });

  test('top-k by count: shards cut their lists on the uid-keyed table (bounds reported), not on the sensor-keyed one', async () => {
    const q = (t: string) => `SELECT sensor, count() AS c FROM ${t} GROUP BY sensor ORDER BY c DESC, sensor LIMIT 10`;
    const cut = await o.scatter(q('oracle.ev'));
    expect(cut.approximate?.c?.method).toBe('topk-shard-size');
    expect(Number(cut.approximate!.c!.errorUpperBound)).toBeGreaterThan(0);
    expect(cut.approximate!.c!.perRowErrorUpperBound).toHaveLength(10);
    const exact = await o.scatter(q('oracle.evs'));
    expect(exact.approximate).toBeUndefined();
    expect(exact.data).toEqual((await o.single(q('oracle.evs'))).rows);
    const tk = await o.scatter('SELECT topK(5)(sensor) AS t FROM oracle.ev');
    expect(Number(tk.approximate?.t?.errorUpperBound)).toBeGreaterThan(0);
  });

  test('the corpus has at least 100 queries', () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(100);
  });

  CORPUS.forEach((c, idx) => {
    test(`#${idx} ${c.sql}`, async () => {
      if (c.expectError) {
        const err = await o.scatter(c.sql).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(ScatterError);
        expect((err as ScatterError).code).toBe(c.expectError);
        return;
      }
      const got = await o.scatter(c.sql, shuffle(idx + 1));
      const single = await o.single(c.sql);
      expect(got.meta).toEqual(single.meta);
      if (c.approx) {
        await checkApprox(c, got, single.rows);
        // Columns not listed as approximate must still be exact.
        const exactCols = got.meta.filter((m) => !(m.name in c.approx!)).map((m) => m.name);
        if (!Object.values(c.approx).includes('topk-count')) {
          for (const [i, r] of got.data.entries())
            for (const [j, k] of exactCols.entries()) expect(close(r[k], single.rows[i]![k], got.meta[j]!.type), `${k} row ${i}`).toBe(true);
        }
        return;
      }
      expect(got.approximate).toBeUndefined();
      const a = c.unordered ? sortRows(got.data) : got.data;
      const b = c.unordered ? sortRows(single.rows) : single.rows;
      expect(a.length).toBe(b.length);
      a.forEach((row, i) => {
        for (const m of got.meta) {
          expect(close(row[m.name], b[i]![m.name], m.type), `${m.name} row ${i}: ${JSON.stringify(row[m.name])} vs ${JSON.stringify(b[i]![m.name])}`).toBe(
            true,
          );
        }
      });
      // Arrival order cannot change the answer.
      const reversed = await o.scatter(c.sql, shuffle(idx + 1).reverse());
      expect(reversed).toEqual(got);
    });
  });
});
