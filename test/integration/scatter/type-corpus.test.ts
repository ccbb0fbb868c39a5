// The type round-trip corpus on chdb (test/support/type-corpus.ts): a column of every type the fast
// path carries, edge values included, over two shard tables on one embedded engine (each shard's
// request is pointed at its own table), against the same query on the table holding every row.
// Every answer labelled complete must equal ClickHouse's; a refusal must be a 4xx that says why.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createEmbeddedAccess } from '../../../shared/adapters/clickhouse/embedded.js';
import type { ClickHouseAccess } from '../../../shared/core/clickhouse/port.js';
import type { RunDeps } from '../../../shared/core/scatter/run-query.js';
import type { ShardRequest } from '../../../shared/core/protocol/shard-wire.js';
import { runQuery } from '../../../shared/core/scatter/run-query.js';
import { planTwoStage } from '../../../shared/core/plan/two-stage/plan.js';
import { oneEngineDeps } from '../../support/one-engine-deps.js';
import {
  compareOne,
  corpusColumns,
  corpusDdl,
  corpusInsert,
  corpusQueries,
  referenceOn,
  scalarValueQueries,
  type CorpusOutcome,
} from '../../support/type-corpus.js';

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
const DIST = 'corpus.t_dist';
let dir: string;
let ch: ClickHouseAccess;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'type-corpus-'));
  ch = await createEmbeddedAccess({ path: dir });
  await ch.exec('CREATE DATABASE IF NOT EXISTS corpus');
  for (const t of ['t_all', 't_s0', 't_s1']) await ch.exec(corpusDdl(`corpus.${t}`, 'chdb'));
  await ch.exec(corpusInsert('corpus.t_all', 'chdb'));
  await ch.exec('INSERT INTO corpus.t_s0 SELECT * FROM corpus.t_all WHERE id % 3 = 0');
  await ch.exec('INSERT INTO corpus.t_s1 SELECT * FROM corpus.t_all WHERE id % 3 != 0');
}, 60_000);
afterAll(async () => {
  await ch?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const sent: ShardRequest[] = [];
// Each shard answer crosses JSON as the Lambda payload does (JSON.stringify would write -0 as 0).
const overJson = (d: RunDeps): RunDeps => ({ ...d, invoker: { invoke: async (...a) => JSON.parse(JSON.stringify(await d.invoker.invoke(...a))) } });
const deps = () =>
  overJson(
    oneEngineDeps(
      { cluster: 'c', table: DIST, local: 'corpus.t_local', shardingKey: { column: 'id', type: 'UInt64', function: 'identity' } },
      () => ch,
      sent,
      (p) => ({ ...p, sql: p.sql.split('corpus.t_local').join(`corpus.t_s${p.shard}`) }),
    ),
  );
const reference = referenceOn(() => ch, DIST, 'corpus.t_all', 'chdb');
const unsupported: CorpusOutcome[] = [];

afterAll(() => {
  // What the fast path refuses (400, with the reason) rather than answers: printed, not hidden.
  console.log(`type corpus (chdb): ${unsupported.length} refused by the fast path:\n${unsupported.map((u) => `  ${u.sql}: ${u.detail}`).join('\n')}`);
});

describe('type corpus on chdb: complete answers equal one-engine ClickHouse', () => {
  it('sum and min/max of a Decimal(38, 10) equal ClickHouse digit for digit (text, not a double)', async () => {
    const sql = `SELECT sum(d38) AS s, min(d38) AS lo, max(d38) AS hi, sum(d256) AS s2 FROM ${DIST}`;
    const r = await runQuery({ sql }, deps());
    const want = (await reference(sql)).rows[0]!;
    expect(r.status).toBe(200);
    const got = (r.body as { data: Record<string, unknown>[] }).data[0]!;
    for (const k of ['s', 'lo', 'hi', 's2']) expect(got[k], k).toBe(want[k]);
    expect(String(got.s)).toMatch(/^-?\d+\.\d{6,}$/); // digits a double would have lost
  });
  it('SELECT * ORDER BY id', async () => {
    const o = await compareOne({ sql: `SELECT * FROM ${DIST} ORDER BY id`, ordered: true }, deps, reference);
    expect(o.status, o.detail).toBe('equal');
  });
  for (const c of corpusColumns('chdb')) {
    it(`${c.name} ${c.type}`, async () => {
      const bad: CorpusOutcome[] = [];
      for (const q of corpusQueries(c, DIST)) {
        const o = await compareOne(q, deps, reference);
        if (o.status === 'MISMATCH') bad.push(o);
        if (o.status === 'unsupported') unsupported.push(o);
      }
      expect(bad.map((b) => `${b.sql}\n${b.detail}`).join('\n\n')).toBe('');
    });
  }
});

// A scalar subquery in WHERE runs once on the coordinator and its value is read back by every shard:
// the general path's (an aggregate the fast path refuses) as the engine's TabSeparated bytes, the fast
// path's as its exact JSON. Each shard compares the value it read with its own rows, as text, so a value
// altered on the way (a digit, a byte, a NaN, a state) finds other rows than on one engine.
describe("type corpus on chdb: a scalar subquery's value reaches the shards exactly", () => {
  const bothPaths = (): RunDeps => ({ ...deps(), planTwoStage });
  const columns = corpusColumns('chdb');
  for (const [ci, c] of columns.entries()) {
    it(`${c.name} ${c.type}`, async () => {
      const bad: string[] = [];
      for (const sql of scalarValueQueries(c, ci, DIST)) {
        const o = await compareOne({ sql, ordered: false }, bothPaths, reference);
        if (o.status !== 'equal') bad.push(`${o.sql}\n${o.status}: ${o.detail}`);
      }
      expect(bad.join('\n\n')).toBe('');
    });
  }
  const states = [
    `SELECT id FROM ${DIST} WHERE bitmapContains((SELECT groupBitmapState(u32) FROM ${DIST} WHERE id + 0 < 30), u32)`,
    `SELECT id, s FROM ${DIST} WHERE s = finalizeAggregation((SELECT argMaxState(s, id) FROM ${DIST} WHERE id + 0 < 25))`,
    `SELECT id FROM ${DIST} WHERE fs = finalizeAggregation((SELECT maxState(fs) FROM ${DIST}))`,
    `SELECT id FROM ${DIST} WHERE has(finalizeAggregation((SELECT quantilesExactState(0.1, 0.9)(i64) FROM ${DIST})), i64)`,
    `SELECT id FROM ${DIST} WHERE id + 0 < finalizeAggregation((SELECT uniqExactState(s) FROM ${DIST}))`,
    `SELECT count() AS n FROM ${DIST} WHERE finalizeAggregation((SELECT sumState(d38) FROM ${DIST})) = (SELECT sum(d38) FROM ${DIST})`,
    `SELECT id FROM ${DIST} WHERE hex(toString(d256)) = hex(toString(finalizeAggregation((SELECT anyState(d256) FROM ${DIST} WHERE id + 0 = 7))))`,
  ];
  // A GLOBAL IN set of strings that are not UTF-8 (the fast path's rows, with their bytes).
  for (const c of ['s', 'fs', 'arrs'])
    it(`a GLOBAL IN set of ${c}`, async () => {
      const sql = `SELECT id, hex(toString(${c})) AS h FROM ${DIST} WHERE ${c} GLOBAL IN (SELECT ${c} FROM ${DIST} WHERE id + 0 < 12)`;
      const o = await compareOne({ sql, ordered: false }, bothPaths, reference);
      expect(o.status, o.detail).toBe('equal');
    });
  for (const sql of states)
    it(`an aggregate state: ${sql}`, async () => {
      const o = await compareOne({ sql, ordered: false }, bothPaths, reference);
      expect(o.status, o.detail).toBe('equal');
    });
});
