// External data on Debian's clickhouse-server 18.16: the local stack over two 18.16 shards, and a
// third 18.16 server holding every row under the distributed table's name (the oracle). The same
// multipart request goes to both, and the answers are compared byte for byte; bad input gets the
// oracle's own code.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTopology } from '../../shared/core/config/load.js';
import { startLocalStack, type LocalStack } from '../../local/stack.js';
import { chHttp, useChServers } from '../support/ch-servers.js';

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
process.env.POWERTOOLS_METRICS_DISABLED = 'true';

const servers = useChServers({ n: 3, portBase: 21600 });
let stack: LocalStack;
let oracleUrl: string;

const DDL = (name: string) => `CREATE TABLE ${name} (k String, v UInt32, x Float64) ENGINE = MergeTree ORDER BY v`;
const ROWS = (name: string, where: string) =>
  `INSERT INTO ${name} SELECT concat('k-', toString(number % 20)), toUInt32(number), number / 4 FROM system.numbers WHERE ${where} LIMIT 200`;

beforeAll(async () => {
  const urls = servers.current.urls;
  oracleUrl = urls[2]!;
  for (const url of urls) await chHttp(url, 'CREATE DATABASE IF NOT EXISTS analytics');
  // `identity` on v over two shards of weight 1: shard i holds v % 2 = i.
  for (const i of [0, 1]) {
    await chHttp(urls[i]!, DDL('analytics.events'));
    await chHttp(urls[i]!, ROWS('analytics.events', `number < 200 AND number % 2 = ${i}`).replace('LIMIT 200', 'LIMIT 100'));
  }
  await chHttp(oracleUrl, DDL('analytics.events_dist'));
  await chHttp(oracleUrl, ROWS('analytics.events_dist', 'number < 200'));
  const topo = parseTopology({
    cluster: 'scatter',
    shards: [{ replicas: [{ url: urls[0]! }] }, { replicas: [{ url: urls[1]! }] }],
    tables: { 'analytics.events_dist': { local: 'analytics.events', shardingKey: { column: 'v', type: 'UInt32', function: 'identity' } } },
  });
  stack = await startLocalStack({ topo, logLevel: 'SILENT' });
}, 180_000);
afterAll(async () => {
  await stack?.stop();
});

const IDS = 'k-1\nk-3\nk-7\nk-19\n';
const LABELS = '1,"one"\n5,"five, with a comma"\n42,"forty-two"\n199,"last"\n';
const BOUNDARY = '------------------------7d1b2c3e4f5a6b7c';

/** curl -F's body: one file part per table. */
function body(parts: Record<string, string>): Buffer {
  const out = Object.entries(parts).map(
    ([name, data]) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"; filename="${name}.txt"\r\nContent-Type: text/plain\r\n\r\n${data}\r\n`,
  );
  return Buffer.from(`${out.join('')}--${BOUNDARY}--\r\n`);
}

/** The same request to a server: its status, exception code and body. */
async function ask(base: string, sql: string, params: Record<string, string> = {}, parts: Record<string, string> = { ids: IDS, labels: LABELS }) {
  const u = new URL(base);
  const all = { query: sql, ids_structure: 'k String', labels_structure: 'v UInt32, label String', labels_format: 'CSV', ...params };
  for (const [k, v] of Object.entries(all)) u.searchParams.set(k, v);
  const r = await fetch(u, { method: 'POST', headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` }, body: body(parts) });
  const text = await r.text();
  // 18.16 sends no X-ClickHouse-Exception-Code: its code is in the text.
  return { status: r.status, code: r.headers.get('x-clickhouse-exception-code') ?? /^Code: (\d+)/.exec(text)?.[1] ?? null, text };
}

describe('external data on 18.16: ch-scatter and one server holding every row', () => {
  it.each([
    ['IN a table name', 'SELECT k, count() AS c, sum(v) AS s FROM analytics.events_dist WHERE k IN ids GROUP BY k ORDER BY k'],
    ['IN (SELECT ... FROM it)', 'SELECT k, v FROM analytics.events_dist WHERE v IN (SELECT v FROM labels) ORDER BY v'],
    ['JOIN', 'SELECT v, k, label FROM analytics.events_dist ALL INNER JOIN labels USING (v) ORDER BY v'],
    ['the final stage (HAVING) reads it', 'SELECT k, count() AS c FROM analytics.events_dist GROUP BY k HAVING k IN ids ORDER BY k'],
    ['external data alone', 'SELECT label, v FROM labels ORDER BY v DESC'],
    ['column names (FORMAT TSVWithNames)', 'SELECT k IN ids, k NOT IN ids AS outside, v FROM analytics.events_dist WHERE v < 4 ORDER BY v FORMAT TSVWithNames'],
  ])('%s', async (_what, sql) => {
    const theirs = await ask(oracleUrl, sql);
    expect(theirs.status, theirs.text).toBe(200);
    const mine = await ask(stack.url, sql);
    expect(mine.status, mine.text).toBe(200);
    expect(mine.text).toBe(theirs.text);
    expect(mine.text.length).toBeGreaterThan(1);
  });

  // Not JOIN ... ON v = _1: 18.16 itself answers that with heap bytes and dies (seen with numbers(10) too).
  it('the `_types` form (columns _1, _2) and TabSeparated by default', async () => {
    const sql = 'SELECT k, v FROM analytics.events_dist WHERE v IN (SELECT _1 FROM t) ORDER BY v';
    const params = { t_types: 'UInt32,String' };
    const theirs = await ask(oracleUrl, sql, params, { t: '3\tx\n4\ty\n' });
    const mine = await ask(stack.url, sql, params, { t: '3\tx\n4\ty\n' });
    expect(theirs.status, theirs.text).toBe(200);
    expect(mine.text).toBe(theirs.text);
  });

  it.each([
    ['an unknown format', { ids_format: 'Nope' }],
    ['an unknown type', { ids_structure: 'k Nope' }],
    ['a structure that does not parse', { labels_structure: 'v UInt32, label' }],
    ['a type with a comma inside, which 18.16 splits', { labels_structure: 'v Decimal(9, 2), label String' }],
    ['a row that does not parse', { labels_structure: 'v Date, label String' }],
  ])("%s: the oracle's code", async (_what, params) => {
    const sql = 'SELECT count() FROM analytics.events_dist WHERE k IN ids OR toUInt32(v) IN (SELECT toUInt32(v) FROM labels)';
    const theirs = await ask(oracleUrl, sql, params);
    const mine = await ask(stack.url, sql, params);
    expect(theirs.code, theirs.text).toMatch(/^\d+$/);
    expect(mine.code, mine.text).toBe(theirs.code);
  });

  it("a declared table whose part is missing: the query's unknown table, as 18.16 answers (60)", async () => {
    const sql = 'SELECT count() FROM analytics.events_dist WHERE k IN ids';
    const theirs = await ask(oracleUrl, sql, {}, { labels: LABELS });
    const mine = await ask(stack.url, sql, {}, { labels: LABELS });
    expect([mine.code, theirs.code]).toEqual(['60', '60']);
  });

  it('no structure: 36 with the text 18.16 writes', async () => {
    const sql = 'SELECT count() FROM x';
    const theirs = await ask(oracleUrl, sql, {}, { x: '1\n' });
    const mine = await ask(stack.url, sql, {}, { x: '1\n' });
    expect([mine.code, theirs.code]).toEqual(['36', '36']);
    const text = 'Neither structure nor types have not been provided for external table x. Use fields x_structure or x_types to do so.';
    expect(theirs.text).toContain(text);
    expect(mine.text).toContain(text);
  });

  it('max_rows_to_transfer: the table is refused before any shard is asked (396)', async () => {
    const mine = await ask(stack.url, 'SELECT count() FROM analytics.events_dist WHERE k IN ids', { max_rows_to_transfer: '3' });
    expect(mine.code, mine.text).toBe('396');
    expect(mine.text).toContain('external table ids: 4 rows exceed max_rows_to_transfer = 3');
  });
});
