// Cursor pagination against the oracle: paging a sorted row query with the returned cursor
// yields exactly the single node's full sorted result, page by page, and each page's shard query
// asks every shard for one page (LIMIT size + 1, no OFFSET) after the cursor.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { planQuery } from '../../../shared/core/plan/index.js';
import { startOracle, type Oracle } from './harness.js';

let o: Oracle;
beforeAll(async () => {
  o = await startOracle(6000);
}, 120_000);
afterAll(async () => {
  await o?.stop();
});

const PAGES: [string, string][] = [
  ['SELECT uid, v, f FROM oracle.ev ORDER BY v DESC, uid, f LIMIT 40', 'SELECT uid, v, f FROM oracle.ev ORDER BY v DESC, uid, f LIMIT 200'],
  ['SELECT uid, n, f FROM oracle.evs ORDER BY n, f LIMIT 50', 'SELECT uid, n, f FROM oracle.evs ORDER BY n, f LIMIT 250'],
  [
    'SELECT sensor, s, f FROM oracle.ev WHERE flag = 1 ORDER BY s DESC NULLS FIRST, f LIMIT 30',
    'SELECT sensor, s, f FROM oracle.ev WHERE flag = 1 ORDER BY s DESC NULLS FIRST, f LIMIT 150',
  ],
];

test.each(PAGES)('pages of %s equal one long page', async (pageSql, allSql) => {
  const expected = (await o.single(allSql)).rows;
  const got: Record<string, unknown>[] = [];
  let cursor: string | undefined;
  for (let p = 0; p < 5; p++) {
    const plan = await planQuery(pageSql, o.topo, cursor ? { cursor } : {});
    for (const s of plan.shards.filter((x) => !x.skipped)) {
      expect(s.sql).not.toMatch(/OFFSET/i);
      expect(s.sql).toMatch(/LIMIT \d+\s*$/);
      if (cursor) expect(s.sql).toMatch(/WHERE/);
    }
    const res = await o.scatter(pageSql, undefined, cursor ? { cursor } : {});
    got.push(...res.data);
    expect(res.cursor).toBeTypeOf('string');
    cursor = res.cursor;
  }
  expect(got).toEqual(expected);
});

test('the last page carries no cursor', async () => {
  const sql = "SELECT uid, f FROM oracle.ev WHERE sensor = 's-9' ORDER BY f, uid LIMIT 7";
  const all = (await o.single("SELECT uid, f FROM oracle.ev WHERE sensor = 's-9' ORDER BY f, uid")).rows;
  const got: Record<string, unknown>[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 1000; i++) {
    const res = await o.scatter(sql, undefined, cursor ? { cursor } : {});
    got.push(...res.data);
    if (!res.cursor) break;
    cursor = res.cursor;
  }
  expect(got).toEqual(all);
});

test('a cursor from another query is refused', async () => {
  const a = await o.scatter('SELECT uid, v FROM oracle.ev ORDER BY v, uid LIMIT 3');
  await expect(o.scatter('SELECT uid, f FROM oracle.ev ORDER BY f, uid LIMIT 3', undefined, { cursor: a.cursor! })).rejects.toMatchObject({
    code: 'BAD_CURSOR',
    status: 400,
  });
});

test('a forged or altered cursor is a 400 BAD_CURSOR before any value in it is read (not a 500)', async () => {
  const sql = 'SELECT uid, v FROM oracle.ev ORDER BY uid LIMIT 3';
  const a = await o.scatter(sql);
  const [body, tag] = a.cursor!.split('.') as [string, string];
  const doc = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  doc.k[0].json = '2 OR 1=1';
  const forgedBody = Buffer.from(JSON.stringify(doc)).toString('base64url');
  const flipped = `${tag.slice(0, -2)}${tag.endsWith('AA') ? 'AB' : 'AA'}`;
  for (const cursor of [`${forgedBody}.${tag}`, forgedBody, `${body}.${flipped}`, `${body}.`, 'garbage', '']) {
    if (cursor === '') continue; // an empty cursor is "no cursor"
    await expect(o.scatter(sql, undefined, { cursor }), cursor).rejects.toMatchObject({ code: 'BAD_CURSOR', status: 400 });
  }
  // The genuine one still pages on.
  expect((await o.scatter(sql, undefined, { cursor: a.cursor! })).data).toHaveLength(3);
});

test('a signed cursor whose key is not of its type is refused too', async () => {
  const { encodeCursor } = await import('../../../shared/core/partials/cursor.js');
  const sql = 'SELECT uid, v FROM oracle.ev ORDER BY uid LIMIT 3';
  const a = await o.scatter(sql);
  const doc = JSON.parse(Buffer.from(a.cursor!.split('.')[0]!, 'base64url').toString('utf8'));
  const cursor = encodeCursor(doc.q, [{ json: '2 OR 1=1', type: doc.k[0].type }], 1);
  await expect(o.scatter(sql, undefined, { cursor })).rejects.toMatchObject({ code: 'BAD_CURSOR', status: 400 });
});

test("a cursor verifies only under the coordinator's key it was issued with", async () => {
  const { cursorKeyOf } = await import('../../../shared/core/partials/cursor.js');
  const k1 = cursorKeyOf('k1-0123456789abcdef');
  const k2 = cursorKeyOf('k2-0123456789abcdef'); // another deployment, or a rotated key
  const sql = 'SELECT uid, v FROM oracle.ev ORDER BY uid LIMIT 3';
  const first = await o.scatter(sql, undefined, { cursorKey: k1 });
  const cursor = first.cursor!;
  await expect(o.scatter(sql, undefined, { cursor, cursorKey: k2 })).rejects.toMatchObject({ code: 'BAD_CURSOR', status: 400 });
  await expect(o.scatter(sql, undefined, { cursor })).rejects.toMatchObject({ code: 'BAD_CURSOR', status: 400 });
  const next = await o.scatter(sql, undefined, { cursor, cursorKey: k1 });
  expect(next.data).toHaveLength(3);
  expect(next.data).not.toEqual(first.data);
});
