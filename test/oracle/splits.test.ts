// The split helper (test/support/oracle-splits.ts), for the general path's property suite:
// - a split is a partition of the rows and an arrival order is a permutation, for any draw;
// - used as the runtime will use it: aggregate states computed per part of a random split and merged
//   in the drawn arrival order give what one node holding every row gives (ClickHouse's two-stage
//   plan, run by hand on one engine, the parts as tables). The seed is the run's (printed).
import fc from 'fast-check';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type JsonEngine, spawnJsonEngine } from '../support/json-engine/json-engine.js';
import { fillChdb, oracleLayout, type OracleLayout } from '../support/oracle-cluster.js';
import { arrivalArbitrary, loadSplit, splitArbitrary, splitRows } from '../support/oracle-splits.js';
import { compareAnswers } from './compare.js';
import { EXACT_JSON_SETTINGS } from './harness.js';
import { createTable, EVENTS } from './schema.js';

const SHARDS = 4;
let dir: string;
let engine: JsonEngine;
let layout: OracleLayout;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ch-scatter-splits-'));
  layout = await oracleLayout();
  engine = await spawnJsonEngine(path.join(dir, 'engine'));
  await engine.set(EXACT_JSON_SETTINGS);
  await fillChdb(engine, layout, (t) => layout.data.rows.get(t)!, false);
  for (let i = 0; i < SHARDS; i++) await engine.exec(createTable(EVENTS, 'chdb', `oracle.part_${i}`));
}, 60_000);
afterAll(async () => {
  await engine?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('splitArbitrary', () => {
  it('draws a partition of the rows over the shards and a permutation of them as the arrival order', () => {
    const rows = Array.from({ length: 500 }, (_, i) => i);
    fc.assert(
      fc.property(splitArbitrary(rows, SHARDS), (s) => {
        expect(s.parts.length).toBe(SHARDS);
        expect(
          s.parts
            .flat()
            .sort((a, b) => a - b)
            .join(','),
        ).toBe(rows.join(','));
        expect([...s.arrival].sort().join(',')).toBe('0,1,2,3');
        // A zero weight leaves its shard empty (all zero: every row on shard 0).
        const allZero = s.weights.every((w) => w === 0);
        s.weights.forEach((w, i) => {
          if (w === 0 && !(allZero && i === 0)) expect(s.parts[i]).toEqual([]);
        });
      }),
    );
    expect(fc.sample(arrivalArbitrary(5), 20).every((a) => [...a].sort().join() === '0,1,2,3,4')).toBe(true);
  });

  it('replays the same split from the same seed and weights', () => {
    const rows = Array.from({ length: 100 }, (_, i) => i);
    expect(splitRows(rows, [1, 0, 3, 2], 7)).toEqual(splitRows(rows, [1, 0, 3, 2], 7));
    expect(splitRows(rows, [0, 0, 0, 0], 7)[0]).toEqual(rows);
  });
});

describe('states of any split, merged in any order', () => {
  // Group keys plus states per part, then -Merge over the parts in arrival order: the general
  // path's two stages, by hand. Functions whose states carry more than a sum.
  const select = (from: string) =>
    `SELECT event, uniqExactState(user_id) AS u, sumState(amount) AS a, quantileExactState(0.9)(duration) AS q, groupUniqArrayState(page) AS g, argMaxState(page, event_id) AS m, uniqCombinedState(tag) AS c FROM ${from} GROUP BY event`;
  const final =
    'SELECT event, uniqExactMerge(u) AS u, sumMerge(a) AS a, quantileExactMerge(0.9)(q) AS q, arraySort(groupUniqArrayMerge(g)) AS g, argMaxMerge(m) AS m, uniqCombinedMerge(c) AS c';

  it('equal one node holding every row', async () => {
    const want = await engine.json(`${final} FROM (${select(EVENTS.local)}) GROUP BY event`);
    await fc.assert(
      fc.asyncProperty(splitArbitrary(layout.data.rows.get(EVENTS)!, SHARDS), async (s) => {
        await loadSplit(
          s.parts.map((_, i) => ({ engine, table: `oracle.part_${i}` })),
          EVENTS,
          s.parts,
        );
        const union = s.arrival.map((i) => select(`oracle.part_${i}`)).join(' UNION ALL ');
        const got = await engine.json(`${final} FROM (${union}) GROUP BY event`);
        const problem = compareAnswers({ meta: got.meta, rows: got.data }, { meta: want.meta, rows: want.data }, { ordered: false });
        expect(problem, `weights ${s.weights}, seed ${s.seed}, arrival ${s.arrival}`).toBeUndefined();
      }),
      { numRuns: 8 },
    );
  }, 60_000);
});
