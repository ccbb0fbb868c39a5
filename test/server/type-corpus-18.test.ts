// The type round-trip corpus (test/support/type-corpus.ts) on Debian's clickhouse-server 18.16,
// with the types 18.16 has (no Int128/256, Date32, DateTime64, IPv4/IPv6, Map, Bool, named tuples):
// two shard tables on one server (each shard's request pointed at its own), against the same query
// on the table holding every row. 18.16's FORMAT JSON writes Decimals unquoted (it has no
// output_format_json_quote_decimals) and String bytes raw: both must still arrive exactly.
// HTTP 19660, TCP 19710 (this file's own range).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpAccess } from '../../shared/adapters/clickhouse/http.js';
import type { ClickHouseAccess } from '../../shared/core/clickhouse/port.js';
import type { RunDeps } from '../../shared/core/scatter/run-query.js';
import type { ShardRequest } from '../../shared/core/protocol/shard-wire.js';
import { oneEngineDeps } from '../support/one-engine-deps.js';
import { chHttp, useChServers } from '../support/ch-servers.js';
import {
  compareOne,
  corpusColumns,
  corpusDdl,
  corpusInsertSelects,
  corpusQueries,
  referenceOn,
  scalarValueQueries,
  type CorpusOutcome,
} from '../support/type-corpus.js';
import { planTwoStage } from '../../shared/core/plan/two-stage/plan.js';

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
const servers = useChServers({ n: 1, portBase: 19660 });
const DIST = 'default.t_dist';
const EXPERIMENTAL = { allow_experimental_low_cardinality_type: 1 };
let access: ClickHouseAccess;

beforeAll(async () => {
  const url = servers.current.urls[0]!;
  for (const t of ['t_all', 't_s0', 't_s1']) await chHttp(url, corpusDdl(`default.${t}`, '18.16'), EXPERIMENTAL);
  for (const ins of corpusInsertSelects('default.t_all', '18.16')) await chHttp(url, ins, EXPERIMENTAL);
  await chHttp(url, 'INSERT INTO default.t_s0 SELECT * FROM default.t_all WHERE id % 3 = 0', EXPERIMENTAL);
  await chHttp(url, 'INSERT INTO default.t_s1 SELECT * FROM default.t_all WHERE id % 3 != 0', EXPERIMENTAL);
  access = createHttpAccess({ url });
}, 120_000);
afterAll(async () => {
  await access?.close();
});

const sent: ShardRequest[] = [];
// Each shard answer crosses JSON as the Lambda payload does (JSON.stringify would write -0 as 0).
const overJson = (d: RunDeps): RunDeps => ({ ...d, invoker: { invoke: async (...a) => JSON.parse(JSON.stringify(await d.invoker.invoke(...a))) } });
const deps = () =>
  overJson(
    oneEngineDeps(
      { cluster: 'scatter', table: DIST, local: 'default.t_local', shardingKey: { column: 'id', type: 'UInt64', function: 'identity' } },
      () => access,
      sent,
      (p) => ({ ...p, sql: p.sql.split('default.t_local').join(`default.t_s${p.shard}`) }),
    ),
  );
const reference = referenceOn(() => access, DIST, 'default.t_all', '18.16');
const unsupported: CorpusOutcome[] = [];

afterAll(() => {
  console.log(`type corpus (18.16): ${unsupported.length} refused by the fast path:\n${unsupported.map((u) => `  ${u.sql}: ${u.detail}`).join('\n')}`);
});

describe('type corpus on 18.16: complete answers equal one-server ClickHouse', () => {
  it('SELECT * ORDER BY id', async () => {
    const o = await compareOne({ sql: `SELECT * FROM ${DIST} ORDER BY id`, ordered: true }, deps, reference);
    expect(o.status, o.detail).toBe('equal');
  });
  for (const c of corpusColumns('18.16')) {
    it(`${c.name} ${c.type}`, async () => {
      const bad: CorpusOutcome[] = [];
      for (const q of corpusQueries(c, DIST, '18.16')) {
        const o = await compareOne(q, deps, reference);
        if (o.status === 'MISMATCH') bad.push(o);
        if (o.status === 'unsupported') unsupported.push(o);
      }
      expect(bad.map((b) => `${b.sql}\n${b.detail}`).join('\n\n')).toBe('');
    });
  }
});

// A scalar subquery's value read back by the shards (test/integration/scatter/type-corpus.test.ts on
// chdb). 18.16 reads the shipped table's structure split at commas and spaces, so a type spelled with
// them (Decimal(P, S), Enum8, Tuple) cannot be shipped to it: its own error, never an altered value.
// Where the one server refuses the query itself (18.16's IN over Decimals, UInt128 literals), so may we.
// A value 18.16 does not read back from its own text (its Float32 parser is off at FLT_MIN): any
// shipped spelling of it, ClickHouse's own literals included, finds no row on that engine.
async function unreadable(col: string, type: string, sql: string): Promise<boolean> {
  const id = /id \+ 0 = (\d+)/.exec(sql)![1];
  const r = await access.query(`SELECT count() AS n FROM default.t_all WHERE id = ${id} AND CAST(toString(${col}) AS ${type}) != ${col}`);
  return Number(r.rows[0]!.n) > 0;
}

describe("type corpus on 18.16: a scalar subquery's value reaches the shards exactly", () => {
  const bothPaths = (): RunDeps => ({ ...deps(), planTwoStage });
  for (const [ci, c] of corpusColumns('18.16').entries()) {
    it(`${c.name} ${c.type}`, async () => {
      const spellable = !/[, ]/.test(c.type);
      const bad: string[] = [];
      for (const sql of scalarValueQueries(c, ci, DIST, '18.16')) {
        const o = await compareOne({ sql, ordered: false }, bothPaths, reference);
        const fine =
          o.status === 'equal' ||
          o.status === 'both-refused' ||
          (!spellable && o.status === 'unsupported' && /Odd number of attributes in section|Syntax error \(data type\)/.test(o.detail ?? '')) ||
          // 18.16 fails on a LowCardinality external table read as JSONEachRow (the fast path's row): its 368, a 5xx naming it.
          (c.type.startsWith('LowCardinality') && !sql.includes('groupArray') && /368.*Bad cast/.test(o.detail ?? '')) ||
          (o.status === 'MISMATCH' && (await unreadable(c.name, c.type, sql)));
        if (!fine) bad.push(`${o.sql}\n${o.status}: ${o.detail}`);
      }
      expect(bad.join('\n\n')).toBe('');
    });
  }
});
