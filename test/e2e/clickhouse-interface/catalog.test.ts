// The ClickHouse HTTP interface on the local stack, through the real coordinator handler: ping,
// handshake and catalog answers (compared byte for byte with chdb holding the same tables under
// the distributed names), errors by code through the official client, query parameters,
// compression, INSERT and authentication.
import { gunzipSync, brotliDecompressSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, ClickHouseError, type ClickHouseClient } from '@clickhouse/client';
import { AUTH_HEADER, startHarness, raw, normalize, ROWS_SQL, type Harness } from './support.js';

let h: Harness;
let client: ClickHouseClient;

beforeAll(async () => {
  h = await startHarness();
  client = createClient({ url: h.stack.url, ...h.auth, request_timeout: 20_000 });
}, 180_000);

afterAll(async () => {
  await client?.close();
  await h?.stop();
});

/** The interface's bytes and chdb's for one statement in one format. */
async function both(sql: string, format: string) {
  const mine = await raw(h.stack.url, { body: `${sql} FORMAT ${format}`, auth: h.auth });
  expect(mine.status, mine.body.toString()).toBe(200);
  const theirs = await h.oracle.queryRaw(sql, { format });
  return { mine: normalize(format, mine.body), theirs: normalize(format, theirs.bytes), headers: mine.headers };
}

describe('ping and handshake', () => {
  it('GET / and /replicas_status answer Ok. as ClickHouse does', async () => {
    for (const p of ['/', '/replicas_status']) {
      const r = await raw(`${h.stack.url}${p}`);
      expect([r.status, r.body.toString()]).toEqual([200, 'Ok.\n']);
    }
  });

  it('GET /ping answers Ok. (the client ping)', async () => {
    const r = await raw(`${h.stack.url}/ping`);
    expect(r.status).toBe(200);
    expect(r.body.toString()).toBe('Ok.\n');
    expect((await client.ping()).success).toBe(true);
  });

  it.each(['TabSeparated', 'JSON', 'JSONCompact', 'JSONEachRow', 'CSVWithNames', 'TSVWithNamesAndTypes', 'RowBinaryWithNamesAndTypes', 'Native'])(
    'SELECT 1, version(), timezone() in %s is ClickHouse bytes',
    async (format) => {
      const { mine, theirs, headers } = await both(
        "SELECT 1, version(), timezone(), toUInt64(18446744073709551615) AS big, 'a\\tb' AS s, nan AS n, -inf AS ni",
        format,
      );
      expect(mine).toBe(theirs);
      expect(headers.get('x-clickhouse-format')).toBe(format);
      expect(headers.get('x-clickhouse-timezone')).toBeTruthy();
    },
  );

  it('currentDatabase() and currentUser() are the request database and the authenticated user', async () => {
    const rs = await client.query({ query: 'SELECT currentDatabase() AS db, currentUser() AS u', format: 'JSONEachRow' });
    expect(await rs.json()).toEqual([{ db: 'default', u: 'analyst' }]);
    const r = await raw(h.stack.url, { query: { database: 'analytics' }, body: 'SELECT currentDatabase()', auth: h.auth });
    expect(r.body.toString()).toBe('analytics\n');
  });

  it('answers the headers ClickHouse clients read', async () => {
    const r = await raw(h.stack.url, { query: { query: 'SELECT 1', query_id: 'my-query-1' }, auth: h.auth });
    expect(r.status).toBe(200);
    expect(r.body.toString()).toBe('1\n');
    expect(r.headers.get('x-clickhouse-query-id')).toBe('my-query-1');
    expect(r.headers.get('content-type')).toBe('text/tab-separated-values; charset=UTF-8');
    const summary = JSON.parse(r.headers.get('x-clickhouse-summary')!);
    expect(summary).toMatchObject({ result_bytes: '2', written_rows: '0' });
    expect(Number(summary.elapsed_ns)).toBeGreaterThan(0);
  });
});

describe('catalog', () => {
  it('SHOW DATABASES lists the distributed tables databases only', async () => {
    const r = await raw(h.stack.url, { body: 'SHOW DATABASES', auth: h.auth });
    expect(r.body.toString()).toBe('analytics\n');
  });

  it('SHOW TABLES FROM analytics is ClickHouse bytes for the configured tables', async () => {
    for (const format of ['TabSeparated', 'JSONEachRow', 'JSONCompact']) {
      const { mine, theirs } = await both('SHOW TABLES FROM analytics', format);
      expect(mine).toBe(theirs);
    }
  });

  it('DESCRIBE TABLE is the local table described, under the distributed name (all formats alike)', async () => {
    for (const format of ['TabSeparated', 'JSON', 'TSVWithNamesAndTypes']) {
      const { mine, theirs } = await both('DESCRIBE TABLE analytics.events_dist', format);
      expect(mine).toBe(theirs);
    }
    const viaDb = await raw(h.stack.url, { query: { database: 'analytics' }, body: 'DESC events_dist', auth: h.auth });
    expect(viaDb.body.toString()).toBe((await h.oracle.queryRaw('DESC analytics.events_dist', { format: 'TabSeparated' })).bytes.toString());
  });

  it('EXISTS TABLE answers 1 for a configured table and 0 otherwise, as ClickHouse writes them', async () => {
    for (const [sql, want] of [
      ['EXISTS TABLE analytics.events_dist', '1'],
      ['EXISTS analytics.nope', '0'],
    ] as const) {
      const { mine, theirs } = await both(sql, 'JSONCompact');
      expect(mine).toBe(theirs);
      expect(JSON.parse(mine).data).toEqual([[Number(want)]]);
    }
  });

  it('system.tables and system.columns show the distributed tables with the local columns', async () => {
    const sql = "SELECT database, name, engine FROM system.tables WHERE database = 'analytics' ORDER BY name";
    const rs = await client.query({ query: sql, format: 'JSONEachRow' });
    expect(await rs.json()).toEqual([
      { database: 'analytics', name: 'events_dist', engine: 'Distributed' },
      { database: 'analytics', name: 'readonly_dist', engine: 'Distributed' },
    ]);
    const cols = "SELECT name, type, position FROM system.columns WHERE database = 'analytics' AND table = 'events_dist' ORDER BY position";
    const { mine, theirs } = await both(cols, 'JSONCompactEachRow');
    expect(mine).toBe(theirs);
  });

  it('system tables that describe the cluster are not shown', async () => {
    const err = await client.query({ query: 'SELECT * FROM system.clusters' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ClickHouseError);
    expect((err as ClickHouseError).code).toBe('60');
  });
});

describe('errors by code', () => {
  const cases: [string, string, string, number][] = [
    ['SELEC 1', '62', 'SYNTAX_ERROR', 400],
    ['DROP TABLE analytics.events_dist', '164', 'READONLY', 500],
    ['CREATE TABLE x (a UInt8) ENGINE = Memory', '164', 'READONLY', 500],
    ['DESCRIBE TABLE analytics.nope', '60', 'UNKNOWN_TABLE', 404],
    ['SHOW PROCESSLIST', '48', 'NOT_IMPLEMENTED', 501],
    ['SELECT {x:UInt8}', '456', 'UNKNOWN_QUERY_PARAMETER', 500],
    ['SELECT nosuchfunction(1)', '46', 'UNKNOWN_FUNCTION', 404],
  ];
  it.each(cases)('%s -> %s %s', async (sql, code, type, status) => {
    const err = await client.query({ query: sql }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ClickHouseError);
    expect((err as ClickHouseError).code).toBe(code);
    expect((err as ClickHouseError).type).toBe(type);
    const r = await raw(h.stack.url, { body: sql, auth: h.auth });
    expect(r.status).toBe(status);
    expect(r.headers.get('x-clickhouse-exception-code')).toBe(code);
    // The user's words only: never the rewritten SQL or the runtime's settings.
    expect(r.body.toString()).not.toMatch(/readonly = 2|max_rows_to_read|_c0|in scope/i);
    expect(r.body.toString()).toMatch(new RegExp(`^Code: ${code}\\. DB::Exception: .+\\(${type}\\)( \\(version [^)]+\\))?\\n$`, 's'));
  });

  it('an unknown setting is 115; a known one ch-scatter does not take is 452 (system.settings says readonly = 1)', async () => {
    const r = await raw(h.stack.url, { query: { no_such_setting: '1' }, body: 'SELECT 1', auth: h.auth });
    expect([r.status, r.headers.get('x-clickhouse-exception-code')]).toEqual([404, '115']);
    const known = await raw(h.stack.url, { query: { cast_string_to_dynamic_use_inference: '1' }, body: 'SELECT 1', auth: h.auth });
    expect(known.headers.get('x-clickhouse-exception-code')).toBe('452');
  });
});

describe('query parameters', () => {
  it('binds typed values; injection attempts stay values', async () => {
    const rs = await client.query({
      query: 'SELECT {s:String} AS s, {n:UInt64} AS n, {d:Date} AS d, {a:Array(String)} AS a',
      format: 'JSONEachRow',
      query_params: { s: "x' OR 1=1 --\\", n: '18446744073709551615', d: '2024-02-29', a: ['p', "q'"] },
    });
    const want = await h.oracle.queryRaw(
      "SELECT 'x\\' OR 1=1 --\\\\' AS s, toUInt64('18446744073709551615') AS n, toDate('2024-02-29') AS d, ['p', 'q\\''] AS a",
      { format: 'JSONEachRow' },
    );
    expect(await rs.text()).toBe(want.bytes.toString());
    expect(want.bytes.toString()).toContain('18446744073709551615');
  });

  it('an ill-typed value is 457 BAD_QUERY_PARAMETER, a bad Date 38, as ClickHouse says', async () => {
    const err = await client.query({ query: 'SELECT {x:UInt8}', query_params: { x: 'abc' } }).catch((e: unknown) => e);
    expect((err as ClickHouseError).code).toBe('457');
    const date = await client.query({ query: 'SELECT {x:Date}', query_params: { x: 'hello' } }).catch((e: unknown) => e);
    expect((date as ClickHouseError).code).toBe('38');
  });

  it('parameters in a multipart body (use_multipart_params) bind the same', async () => {
    const c = createClient({ url: h.stack.url, ...h.auth, use_multipart_params: true });
    try {
      const rs = await c.query({
        query: 'SELECT {s:String} AS s, length({a:Array(String)}) AS n',
        format: 'JSONEachRow',
        query_params: { s: "multi'part", a: ['x', 'y', 'z'] },
      });
      expect(await rs.json()).toEqual([{ s: "multi'part", n: expect.anything() }]);
      const again = await c.query({ query: 'SELECT length({a:Array(String)}) AS n', format: 'TabSeparated', query_params: { a: ['x', 'y', 'z'] } });
      expect(await again.text()).toBe('3\n');
    } finally {
      await c.close();
    }
  });

  it('a parameter named like a column stays a value, and an aliased one keeps its alias', async () => {
    const rs = await client.query({ query: 'SELECT {n:UInt8} + 1 AS m, {s:String} AS s', format: 'JSONEachRow', query_params: { n: 41, s: 'k) OR (1' } });
    expect(await rs.json()).toEqual([{ m: 42, s: 'k) OR (1' }]);
  });
});

describe('compression', () => {
  it('compresses the answer only with enable_http_compression=1 and a codec the client accepts', async () => {
    const q = { query: 'SELECT number FROM system.numbers LIMIT 1000', enable_http_compression: '1' };
    const gz = await raw(h.stack.url, { query: q, headers: { 'accept-encoding': 'gzip' }, auth: h.auth });
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    // fetch undoes gzip itself; the body is the plain answer either way
    expect(gz.body.toString().split('\n').length).toBe(1001);
    const off = await raw(h.stack.url, { query: { query: q.query }, headers: { 'accept-encoding': 'gzip' }, auth: h.auth });
    expect(off.headers.get('content-encoding')).toBeNull();
    expect(gunzipSync).toBeTypeOf('function');
    expect(brotliDecompressSync).toBeTypeOf('function');
  });

  it('reads a gzip request body (Content-Encoding)', async () => {
    const r = await raw(h.stack.url, { body: gzipSync('SELECT 40 + 2'), headers: { 'content-encoding': 'gzip' }, auth: h.auth });
    expect(r.status, r.body.toString()).toBe(200);
    expect(r.body.toString()).toBe('42\n');
  });

  it('the official client with response compression on', async () => {
    const c = createClient({ url: h.stack.url, ...h.auth, compression: { response: true, request: true } });
    try {
      const sql = 'SELECT number, toString(number) AS s FROM system.numbers LIMIT 3';
      const rs = await c.query({ query: sql, format: 'JSONCompactEachRow' });
      expect(await rs.text()).toBe((await h.oracle.queryRaw(sql, { format: 'JSONCompactEachRow' })).bytes.toString());
    } finally {
      await c.close();
    }
  });
});

describe('authentication', () => {
  it('no credentials, an unknown user and a wrong password all get the same 516 and 401', async () => {
    const bodies = new Set<string>();
    for (const auth of [undefined, { username: 'nobody', password: 'x' }, { username: 'analyst', password: 'wrong' }]) {
      const r = await raw(h.stack.url, { body: 'SELECT 1', ...(auth ? { auth } : {}) });
      expect(r.status).toBe(401);
      expect(r.headers.get('x-clickhouse-exception-code')).toBe('516');
      bodies.add(r.body.toString().replace(/^Code: 516\. DB::Exception: [^:]*:/, ''));
    }
    expect(bodies.size).toBe(1);
    const c = createClient({ url: h.stack.url, username: 'analyst', password: 'wrong' });
    const err = await c.query({ query: 'SELECT 1' }).catch((e: unknown) => e);
    await c.close();
    expect((err as ClickHouseError).code).toBe('516');
    expect((err as ClickHouseError).type).toBe('AUTHENTICATION_FAILED');
  });

  it('X-ClickHouse-User / X-ClickHouse-Key work like Basic auth', async () => {
    const r = await raw(h.stack.url, { body: 'SELECT currentUser()', headers: { 'x-clickhouse-user': h.auth.username, 'x-clickhouse-key': h.auth.password } });
    expect(r.status, r.body.toString()).toBe(200);
    expect(r.body.toString()).toBe('analyst\n');
  });
});

describe('INSERT', () => {
  const count = async () => {
    const r = await fetch(`${h.stack.url}/query`, {
      method: 'POST',
      headers: AUTH_HEADER,
      body: JSON.stringify({ sql: 'SELECT count() AS c FROM analytics.events_dist' }),
    });
    return Number(((await r.json()) as { data: { c: string }[] }).data[0]!.c);
  };

  it('JSONEachRow, CSV and TabSeparated rows are routed by the key, counted per shard', async () => {
    const before = await count();
    await client.insert({
      table: 'analytics.events_dist',
      values: [
        { k: 'a', v: 1, x: 0.5, ts: '2024-01-01 00:00:00', tags: ['t'] },
        { k: 'b', v: 2, x: 1.5, ts: '2024-01-01 00:00:01', tags: [] },
      ],
      format: 'JSONEachRow',
    });
    const csv = await raw(h.stack.url, {
      query: { query: 'INSERT INTO analytics.events_dist (k, v, x, ts) FORMAT CSV' },
      body: '"c",3,2.5,"2024-01-02 00:00:00"\n"d ""q""",4,nan,2024-01-02 00:00:01\n',
      auth: h.auth,
    });
    expect(csv.status, csv.body.toString()).toBe(200);
    const summary = JSON.parse(csv.headers.get('x-clickhouse-summary')!);
    expect(summary.written_rows).toBe('2');
    expect(summary.shards_written_rows.map(Number).reduce((a: number, b: number) => a + b, 0)).toBe(2);
    const tsv = await raw(h.stack.url, {
      query: { query: 'INSERT INTO analytics.events_dist (k, v, x, ts) FORMAT TabSeparated' },
      body: 'e\\tf\t5\t1\t2024-01-03 00:00:00\n',
      auth: h.auth,
    });
    expect(tsv.status, tsv.body.toString()).toBe(200);
    expect(await count()).toBe(before + 5);
  });

  it('a table without "insert": true is 164 READONLY, and nothing is written', async () => {
    const err = await client
      .insert({ table: 'analytics.readonly_dist', values: [{ k: 'z', v: 1, x: 1, ts: '2024-01-01 00:00:00', tags: [] }], format: 'JSONEachRow' })
      .catch((e: unknown) => e);
    expect((err as ClickHouseError).code).toBe('164');
  });

  it('bad rows refuse the whole insert', async () => {
    const before = await count();
    const r = await raw(h.stack.url, {
      query: { query: 'INSERT INTO analytics.events_dist FORMAT JSONEachRow' },
      body: '{"k":"ok","v":1,"x":1,"ts":"2024-01-01 00:00:00","tags":[]}\n{"k":"bad","v":"nope","x":1,"ts":"2024-01-01 00:00:00","tags":[]}\n',
      auth: h.auth,
    });
    expect(r.headers.get('x-clickhouse-exception-code')).toBe('27');
    expect(await count()).toBe(before);
  });

  it('loads the rows the other tests read', async () => {
    const r = await fetch(`${h.stack.url}/admin/exec`, { method: 'POST', headers: AUTH_HEADER, body: JSON.stringify({ sql: ROWS_SQL('analytics.events') }) });
    expect(r.status).toBe(200);
  });

  it('max_result_rows with result_overflow_mode=throw is applied where ClickHouse applies it: on the answer', async () => {
    const ok = await raw(h.stack.url, {
      query: { max_result_rows: '100', result_overflow_mode: 'throw' },
      body: 'SELECT count() FROM analytics.events_dist',
      auth: h.auth,
    });
    expect(ok.status, ok.body.toString()).toBe(200);
    const over = await raw(h.stack.url, {
      query: { max_result_rows: '3', result_overflow_mode: 'throw' },
      body: 'SELECT k FROM analytics.events_dist GROUP BY k ORDER BY k',
      auth: h.auth,
    });
    expect(over.headers.get('x-clickhouse-exception-code')).toBe('396');
  });
  it("system.tables' total_rows and total_bytes are summed over the shards", async () => {
    const rs = await client.query({ query: "SELECT total_rows, total_bytes FROM system.tables WHERE name = 'events_dist'", format: 'JSONEachRow' });
    const [row] = (await rs.json()) as { total_rows: string; total_bytes: string }[];
    expect(Number(row!.total_rows)).toBe(await count());
    expect(Number(row!.total_bytes)).toBeGreaterThan(0);
  });
});
