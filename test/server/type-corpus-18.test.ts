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
import { compareOne, corpusColumns, corpusDdl, corpusInsertSelects, corpusQueries, referenceOn, type CorpusOutcome } from '../support/type-corpus.js';

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
