// The two-stage plan on clickhouse-server 18.16 (the oldest engine we target): the subset of the
// oracle's queries that 18.16 supports (no window functions there) runs its leaves on four shard
// tables of one server and its final stage in an HTTP session (temporary tables loaded with
// INSERT ... FORMAT TabSeparated), and must equal the query over all rows on the same server.
// Types and rows are compared; 18.16 names some expressions differently from ClickHouse 26, whose
// names the final stage gives, so names are not. One server: HTTP 19500, TCP 19550.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useChServers } from '../../support/ch-servers.js';
import { httpEngine, type StageEngine } from './two-stage/engines.js';
import { expectSameAnswer, loadData, onAllRows, runTwoStage, stageTopology } from './two-stage/harness.js';
import { QUERIES } from './two-stage/queries.js';

const servers = useChServers({ n: 1, portBase: 19500 });
const topo = stageTopology();
let engine: StageEngine;

beforeAll(async () => {
  engine = httpEngine(servers.current.urls[0]!);
  await loadData(engine, topo);
}, 120_000);
afterAll(() => engine?.close());

const ON_18 = QUERIES.filter((x) => x.on18);

describe('two-stage plan = ClickHouse 18.16 on all rows', () => {
  it('runs a real subset', () => expect(ON_18.length).toBeGreaterThanOrEqual(40));
  it.each(ON_18.map((x, i) => [i, x.sql] as const))('[%i] %s', async (_i, sql) => {
    const { answer } = await runTwoStage(engine, topo, sql);
    expectSameAnswer(answer, await engine.json(onAllRows(sql)), sql, { names: false });
  });
});
