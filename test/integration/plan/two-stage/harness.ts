// The two-stage oracle, without the runtime: the same rows in one all-rows table and in N per-shard
// tables of ONE engine. A query is planned by planTwoStage; each leaf goes through the ordinary
// per-shard rewrite (planQueryWith with a pass-through split), runs on every shard table, and the
// shards' TabSeparated bodies (headers stripped, concatenated in a given arrival order) become the
// final stage's temporary table; then finalSql runs. The reference is the query itself over the
// all-rows tables. Names, types, rows and WITH TOTALS rows are compared.
import { expect } from 'vitest';
import { parseTopology } from '../../../../shared/core/config/load.js';
import type { Topology } from '../../../../shared/core/config/schema.js';
import { planQueryWith } from '../../../../shared/core/plan/build.js';
import { planTwoStage, type TwoStageOptions } from '../../../../shared/core/plan/two-stage/plan.js';
import type { TwoStagePlan } from '../../../../shared/core/plan/two-stage/types.js';
import { splitTsvAnswer } from '../../../../shared/core/scatter/two-stage/tsv.js';
import { parseSelect } from '../../../../shared/core/sql/parse.js';
import { printSelect } from '../../../../shared/core/sql/print.js';
import type { SubqueryRunner } from '../../../../shared/core/plan/types.js';
import { createPlacement } from '../../../../shared/core/sharding/index.js';
import { passThroughSplit } from '../../../unit/plan/fixtures.js';
import type { JsonAnswer, StageEngine } from './engines.js';

export const SHARDS = 4;

/** Distributed name -> local name; `o.ev` and `o.us` share their key (uid, identity), `o.evs` is keyed by sensor. */
export const TABLES: Record<string, { local: string; shardingKey: { column: string; type: string; function: 'identity' | 'xxHash64' } }> = {
  'o.ev': { local: 'o.ev_local', shardingKey: { column: 'uid', type: 'UInt32', function: 'identity' } },
  'o.us': { local: 'o.us_local', shardingKey: { column: 'uid', type: 'UInt32', function: 'identity' } },
  'o.evs': { local: 'o.evs_local', shardingKey: { column: 'sensor', type: 'String', function: 'xxHash64' } },
};

export function stageTopology(): Topology {
  return parseTopology({
    cluster: 'two-stage',
    shards: Array.from({ length: SHARDS }, (_, i) => ({ weight: 1, replicas: [{ url: `http://shard-${i}:8123` }] })),
    tables: TABLES,
    query: { maxRowsToTransfer: 100_000 },
  });
}

const EV_COLUMNS =
  '(id UInt32, uid UInt32, sensor String, kind String, ts DateTime, value Float64, amount Int64, n Nullable(Int32), tags Array(String), ks Array(UInt8), vs Array(UInt32))';
/** 2,000 events: 97 users, 13 sensors (kind follows the sensor), NULLs every 7th row, tags 0..3 long. */
const EV_ROWS = `SELECT number, number % 97, concat('s', toString(number % 13)), if(number % 13 < 5, 'a', 'b'),
  toDateTime('2024-01-01 00:00:00') + number * 617, intDiv(number * 37 % 1000, 4) / 25, toInt64((number * 7919) % 1000) - 300,
  if(number % 7 = 0, NULL, toInt32(number % 50)), arrayMap(i -> concat('t', toString(i)), range(number % 4)),
  [toUInt8(number % 3), toUInt8(3 + number % 2)], [toUInt32(number % 5), toUInt32(1)] FROM numbers(2000)`;
/** 60 users; uid % 4 is never 3, so shard 3 holds no row of o.us (an empty shard). */
const US_ROWS = `SELECT number + intDiv(number, 3), ['de', 'fr', 'us'][number % 3 + 1], toInt32(number * 13 % 100) - 20 FROM numbers(60)`;

/** The per-shard tables of `dist` in the test engine (`o.ev_s2`). */
export const shardTable = (local: string, shard: number) => `${local.replace(/_local$/, '')}_s${shard}`;
const allTable = (local: string) => local.replace(/_local$/, '_all');

/** Creates o.*_all and the per-shard tables, placed as the sharding key says (`split` overrides, for the property test). */
export async function loadData(engine: StageEngine, topo: Topology): Promise<void> {
  await engine.exec('CREATE DATABASE IF NOT EXISTS o');
  const defs: Record<string, [string, string]> = {
    'o.ev': [EV_COLUMNS, EV_ROWS],
    'o.evs': [EV_COLUMNS, EV_ROWS],
    'o.us': ['(uid UInt32, country String, score Int32)', US_ROWS],
  };
  for (const [dist, [cols, rows]] of Object.entries(defs)) {
    const local = TABLES[dist]!.local;
    await engine.exec(`CREATE TABLE ${allTable(local)} ${cols} ENGINE = Memory`);
    await engine.exec(`INSERT INTO ${allTable(local)} ${rows}`);
    // Each key value goes where the project's placement (the router's) puts it.
    const key = TABLES[dist]!.shardingKey;
    const placement = await createPlacement(topo.shards, key);
    const values = (await engine.json(`SELECT DISTINCT toString(${key.column}) FROM ${allTable(local)}`)).data.map((r) => String(r[0]));
    for (let s = 0; s < topo.shards.length; s++) {
      await engine.exec(`CREATE TABLE ${shardTable(local, s)} ${cols} ENGINE = Memory`);
      const mine = values.filter((v) => placement.shardOf(v) === s).map((v) => `'${v}'`);
      if (mine.length)
        await engine.exec(`INSERT INTO ${shardTable(local, s)} SELECT * FROM ${allTable(local)} WHERE toString(${key.column}) IN (${mine.join(', ')})`);
    }
  }
}

/** The query as written, over the all-rows tables. */
export function onAllRows(sql: string): string {
  let out = sql;
  for (const [dist, t] of Object.entries(TABLES)) out = out.replace(new RegExp(`\\b${dist.replace('.', '\\.')}\\b`, 'g'), allTable(t.local));
  return out;
}

export interface RunOptions extends TwoStageOptions {
  /** Arrival order of the shards' bodies (indexes into the shards that answer); default in shard order. */
  order?: number[];
  /** Shard table name for (local table, shard) (the property test's random split). */
  tableOf?: (local: string, shard: number) => string;
}

/** Plans the query, runs every leaf on every shard table and the final stage on the same engine. */
export async function runTwoStage(
  engine: StageEngine,
  topo: Topology,
  sql: string,
  opts: RunOptions = {},
): Promise<{ plan: TwoStagePlan; answer: JsonAnswer }> {
  const plan = planTwoStage(parseSelect(sql), topo, opts);
  const tableOf = opts.tableOf ?? shardTable;
  for (const leaf of plan.leaves) {
    const mode = leaf.distributedProductMode ?? opts.distributedProductMode;
    // GLOBAL IN right sides run once, over all rows (what the scatter of that subquery returns).
    const runSubquery: SubqueryRunner = async (stmt) => {
      const a = await engine.json(onAllRows(printSelect(stmt)));
      return { meta: a.meta, rows: a.data.map((r) => Object.fromEntries(a.meta.map((m, i) => [m.name, r[i]]))) };
    };
    const perShard = await planQueryWith(leaf.query, topo, { runSubquery, ...(mode ? { distributedProductMode: mode } : {}) }, passThroughSplit);
    for (const ext of perShard.external) {
      const lines = ext.rows.map((r) => ext.columns.map((c) => tsvValue(r[c.name])).join('\t') + '\n').join('');
      await engine.loadTemp(ext.name, ext.columns, Buffer.from(lines));
    }
    const live = perShard.shards.filter((s) => !s.skipped);
    const outputs: { columns: { name: string; type: string }[]; body: Buffer }[] = [];
    for (const s of live) {
      let text = s.sql!;
      for (const t of Object.values(TABLES)) text = text.replace(new RegExp(`\\b${t.local.replace('.', '\\.')}\\b`, 'g'), tableOf(t.local, s.shard));
      outputs.push(splitTsvAnswer(await engine.tsv(text)));
    }
    const order = (opts.order ?? outputs.map((_o, i) => i)).filter((i) => i < outputs.length);
    for (let i = 0; i < outputs.length; i++) if (!order.includes(i)) order.push(i);
    const body = Buffer.concat(order.map((i) => outputs[i]!.body));
    await engine.loadTemp(leaf.name, outputs[0]!.columns, body);
  }
  return { plan, answer: await engine.json(plan.finalSql) };
}

function tsvValue(v: unknown): string {
  if (v === null || v === undefined) return '\\N';
  const s = typeof v === 'object' ? JSON.stringify(v) : String(v);
  return s.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n');
}

function canon(v: unknown): unknown {
  if (typeof v === 'number') return Number.isInteger(v) ? v : Number(v.toPrecision(10));
  if (typeof v === 'string' && /^-?\d+\.\d+(e[-+]?\d+)?$/.test(v)) return Number(Number(v).toPrecision(10));
  if (Array.isArray(v)) return v.map(canon);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, canon(x)]));
  return v;
}

/** Does the statement's result order matter (an ORDER BY on the outermost SELECT)? */
export function ordered(sql: string): boolean {
  const s = parseSelect(sql);
  return s.kind === 'select' && s.orderBy !== undefined;
}

/** Our answer equals ClickHouse's on the all-rows tables (rows in order when the query orders them). */
export function expectSameAnswer(ours: JsonAnswer, theirs: JsonAnswer, sql: string, opts: { names?: boolean } = {}): void {
  if (opts.names !== false) expect(ours.meta).toEqual(theirs.meta);
  else expect(ours.meta.map((m) => m.type)).toEqual(theirs.meta.map((m) => m.type));
  const rows = (a: JsonAnswer) => {
    const r = a.data.map(canon);
    return ordered(sql) ? r : r.map((x) => JSON.stringify(x)).sort();
  };
  expect(rows(ours)).toEqual(rows(theirs));
  expect(canon(ours.totals)).toEqual(canon(theirs.totals));
}
