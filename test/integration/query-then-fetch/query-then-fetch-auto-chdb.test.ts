// Query-then-fetch's `auto` (the default) on three chdb shard engines: it estimates the bytes a row
// carries beyond its sort keys (fixed widths from the types, String columns measured on a shard) and
// runs two rounds only over the threshold: a wide row query takes two, a narrow one one, and a cursor
// page continues either. Every answer equals one engine holding every row.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseTopology } from '../../../shared/core/config/load.js';
import type { Topology } from '../../../shared/core/config/schema.js';
import type { QueryThenFetchInfo } from '../../../shared/core/plan/query-then-fetch.js';
import { runExplain, runQuery, type QueryResponse } from '../../../shared/core/scatter/run-query.js';
import { createTableColumns, type TableColumns } from '../../../shared/core/scatter/table-columns.js';
import { startEmbeddedCluster, type EmbeddedCluster } from '../../support/embedded-cluster.js';
import { JSON_SETTINGS, depsFor, type Wiring } from '../tput/fixture.js';

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
const LOCAL = 'default.qtf_auto';
const DIST = 'default.qtf_auto_dist';
const BODY = 700;
let cluster: EmbeddedCluster;
let topo: Topology;
let widths: TableColumns;

beforeAll(async () => {
  cluster = await startEmbeddedCluster({ shards: 3, withOracle: true });
  await cluster.execAll(`CREATE TABLE ${LOCAL} (id UInt64, score UInt32, tag String, body String) ENGINE = MergeTree ORDER BY id`);
  // score takes 500 values over 3000 rows: ties at every boundary, broken by id.
  const rows = (shard: number | undefined) =>
    `INSERT INTO ${LOCAL} SELECT number, (number * 7919) % 500, concat('t', toString(number % 10)), repeat(char(97 + number % 26), ${BODY}) FROM numbers(3000)` +
    (shard === undefined ? '' : ` WHERE number % 3 = ${shard}`);
  await Promise.all([...cluster.shards.map((e, s) => e.exec(rows(s))), cluster.oracle!.exec(rows(undefined))]);
  topo = parseTopology({
    cluster: 'c',
    shards: [0, 1, 2].map((i) => ({ replicas: [{ embedded: path.join(cluster.dir, `shard-${i}`) }] })),
    tables: { [DIST]: { local: LOCAL, shardingKey: { column: 'id', type: 'UInt64', function: 'identity' } } },
    query: { hedge: { enabled: false }, timeoutMs: 20_000 },
  });
  widths = createTableColumns();
}, 120_000);
afterAll(async () => {
  await cluster?.stop();
});

const deps = (columns: TableColumns = widths, wiring: Wiring = {}) => ({ ...depsFor(topo, cluster.shards, wiring), tableColumns: columns });
const reference = async (sql: string) =>
  JSON.parse((await cluster.oracle!.queryRaw(sql.replaceAll(DIST, LOCAL), { format: 'JSON', settings: JSON_SETTINGS })).bytes.toString('utf8')).data;

async function explained(sql: string, settings: Record<string, string> = {}, columns: TableColumns = widths): Promise<QueryThenFetchInfo | undefined> {
  const e = await runExplain({ sql, settings }, deps(columns));
  expect(e.status, JSON.stringify(e.body).slice(0, 400)).toBe(200);
  return (e.body as { queryThenFetch?: QueryThenFetchInfo }).queryThenFetch;
}

/** The answer, and how many shard requests were round one's. */
async function answered(sql: string, settings: Record<string, string> = {}, cursor?: string, d = deps()) {
  const r = await runQuery({ sql, settings, ...(cursor ? { cursor } : {}) }, d);
  expect(r.status, JSON.stringify(r.body).slice(0, 400)).toBe(200);
  const body = r.body as QueryResponse;
  expect(body.partial).toBe(false);
  return { body, roundOne: d.sent.filter((q) => JSON.stringify(q).includes('_qtf_o')).length };
}

const WIDE = `SELECT id, score, body FROM ${DIST} ORDER BY score DESC, id LIMIT 10`;
const NARROW = `SELECT id, score, tag FROM ${DIST} ORDER BY score DESC, id LIMIT 10`;

describe('query-then-fetch auto on chdb shards', () => {
  it('estimates the row width from the columns once the widths are read; /explain shows the choice', async () => {
    // The first query starts the widths' read and does not wait long for it: poll until it is known.
    await vi.waitFor(async () => expect((await explained(WIDE))?.rowBytes).toBeDefined(), { timeout: 30_000, interval: 50 });
    const wide = (await explained(WIDE))!;
    // body's measured mean length (700), nothing else beyond the sort keys.
    expect(wide).toMatchObject({ applied: true, mode: 'auto', rowBytes: BODY, thresholdBytes: 500 });
    expect(wide.roundSql).toMatch(/_qtf_o0/);
    const narrow = (await explained(NARROW))!;
    // tag: 't0'..'t9', two bytes.
    expect(narrow).toMatchObject({ applied: false, mode: 'auto', rowBytes: 2, thresholdBytes: 500 });
    expect(narrow.reason).toMatch(/not over 500/);
    expect(narrow.roundSql).toBeUndefined();
  });

  it('wide rows take two rounds, narrow rows one; each answer equals one engine holding every row', async () => {
    const wide = await answered(WIDE);
    expect(wide.body.queryThenFetch).toMatchObject({ applied: true, mode: 'auto', rowBytes: BODY });
    expect(wide.roundOne).toBe(3);
    expect(wide.body.data).toEqual(await reference(WIDE));
    const narrow = await answered(NARROW);
    expect(narrow.body.queryThenFetch).toBeUndefined();
    expect(narrow.roundOne).toBe(0);
    expect(narrow.body.data).toEqual(await reference(NARROW));
    // Forced either way, the same rows.
    expect((await answered(WIDE, { ch_scatter_query_then_fetch: '0' })).roundOne).toBe(0);
    expect((await answered(NARROW, { ch_scatter_query_then_fetch: '1' })).body.data).toEqual(narrow.body.data);
  });

  it('the threshold setting moves the choice: two rounds just under the estimate, one at it', async () => {
    const under = await answered(NARROW, { ch_scatter_query_then_fetch_row_bytes: '1' });
    expect(under.body.queryThenFetch).toMatchObject({ applied: true, rowBytes: 2, thresholdBytes: 1 });
    expect(under.body.data).toEqual(await reference(NARROW));
    const at = await answered(`${NARROW} SETTINGS ch_scatter_query_then_fetch_row_bytes = 2`);
    expect(at.roundOne).toBe(0);
    const bad = await runQuery({ sql: NARROW, settings: { ch_scatter_query_then_fetch_row_bytes: '-3' } }, deps());
    expect(bad.status).toBe(400);
    const badClause = await runQuery({ sql: `${NARROW} SETTINGS ch_scatter_query_then_fetch_row_bytes = 'wide'` }, deps());
    expect(badClause.status).toBe(400);
    expect(JSON.stringify(badClause.body)).toMatch(/ch_scatter_query_then_fetch_row_bytes must be a non-negative integer of bytes \(line 1, column \d+\)/);
  });

  it('one shard asked, or a shape it refuses: one round', async () => {
    const oneShard = `SELECT id, score, body FROM ${DIST} WHERE id IN (3, 6, 9, 12) ORDER BY score DESC, id LIMIT 2`;
    const one = await answered(oneShard);
    expect(one.roundOne).toBe(0);
    expect(one.body.queryThenFetch).toBeUndefined();
    expect(one.body.data).toEqual(await reference(oneShard));
    expect(await explained(oneShard)).toMatchObject({ applied: false, mode: 'auto', rowBytes: BODY, reason: expect.stringContaining('one shard asked') });
    const distinct = await answered(`SELECT DISTINCT score, body FROM ${DIST} ORDER BY score DESC, body LIMIT 3`);
    expect(distinct.roundOne).toBe(0);
    expect(distinct.body.queryThenFetch).toBeUndefined();
  });

  it('a page of a two-round answer carries a cursor the next page continues from', async () => {
    const first = await answered(WIDE);
    expect(first.body.queryThenFetch?.applied).toBe(true);
    expect(first.body.cursor).toBeDefined();
    const next = await answered(WIDE, {}, first.body.cursor);
    expect(next.body.data).toEqual(await reference(`${WIDE} OFFSET 10`));
  });

  it('past their life the widths are read again while the last ones still choose: no query waits for the read', async () => {
    // A life of 1 ms: every query finds them expired and starts a read.
    const short = createTableColumns(1);
    await vi.waitFor(async () => expect((await explained(WIDE, {}, short))?.rowBytes).toBe(BODY), { timeout: 30_000, interval: 50 });
    // Now the measuring read takes 2 s, far past the 250 ms a query would wait for it.
    const slow = deps(short, { delay: (_, req) => (req.sql.includes('avg(length(') ? 2_000 : 0) });
    const wide = await answered(WIDE, {}, undefined, slow);
    expect(wide.body.queryThenFetch).toMatchObject({ applied: true, rowBytes: BODY });
    expect(wide.body.data).toEqual(await reference(WIDE));
    expect(slow.sent.some((q) => q.sql.includes('avg(length('))).toBe(true);
    // The slow read ends, and its widths are the entry's.
    await vi.waitFor(() => expect(short.widths.get(DIST)?.settled?.measured.get('body')).toBe(BODY), { timeout: 30_000, interval: 50 });
  });
});
