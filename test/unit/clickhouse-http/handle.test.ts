// handleClickHouseHttp with a scripted shard engine: routes, auth order, headers, compression,
// INSERT routing decisions, and the query id that reaches the shards. What the engine renders is
// tested against real engines in test/e2e/clickhouse-interface/.
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parseTopology } from '../../../shared/core/config/load.js';
import { handleClickHouseHttp, type ChHttpDeps } from '../../../shared/core/clickhouse-http/handle.js';
import { ChHttpError } from '../../../shared/core/clickhouse-http/exception.js';
import type { RawQuery } from '../../../shared/core/clickhouse-http/types.js';
import { decompressBlocks } from '../../../shared/core/clickhouse-http/block-compression.js';
import { loadWireCodecs } from '../../../functions/coordinator/wire-codecs.js';
import { createRunningQueries } from '../../../shared/core/clickhouse-http/running-queries.js';

const topoInput = {
  cluster: 'c',
  shards: [{ replicas: [{ url: 'http://a:8123' }] }, { replicas: [{ url: 'http://b:8123' }] }],
  tables: {
    'db.t_dist': { local: 'db.t', shardingKey: { column: 'k', type: 'String', function: 'xxHash64' }, insert: true },
    'db.r_dist': { local: 'db.r', shardingKey: { column: 'k', type: 'String', function: 'xxHash64' } },
  },
};
const topo = parseTopology(topoInput);

function engine() {
  const calls: { sql: string; format: string; queryId?: string }[] = [];
  const raw: RawQuery = async (sql, o) => {
    calls.push({ sql, format: o.format, ...(o.queryId ? { queryId: o.queryId } : {}) });
    if (sql.startsWith('SELECT version()'))
      return { bytes: Buffer.from('{"version":"26.7.2.1","timezone":"Etc/UTC"}\n'), statistics: { elapsedMs: 1, rowsRead: 1, bytesRead: 1 } };
    if (sql.includes("FROM system.columns WHERE database = 'db'"))
      return { bytes: Buffer.from('{"name":"k"}\n{"name":"v"}\n'), statistics: { elapsedMs: 1, rowsRead: 2, bytesRead: 2 } };
    return { bytes: Buffer.from('x'.repeat(2000)), statistics: { elapsedMs: 1, rowsRead: 7, bytesRead: 70 } };
  };
  return { raw, calls };
}

const ask = (deps: ChHttpDeps, o: { method?: string; path?: string; query?: Record<string, string>; headers?: Record<string, string>; body?: string }) =>
  handleClickHouseHttp(
    { method: o.method ?? 'POST', path: o.path ?? '/', query: new URLSearchParams(o.query ?? {}), headers: o.headers ?? {}, body: Buffer.from(o.body ?? '') },
    deps,
  );

describe('handleClickHouseHttp', () => {
  it('/ping answers Ok. without asking for credentials; other methods are refused', async () => {
    const { raw } = engine();
    const deps: ChHttpDeps = {
      topo,
      raw,
      userCheck: () => {
        throw new ChHttpError(516, 'no');
      },
    };
    const r = await ask(deps, { method: 'GET', path: '/ping' });
    expect([r.status, r.body.toString()]).toEqual([200, 'Ok.\n']);
    expect((await ask(deps, { method: 'POST', path: '/ping' })).headers['x-clickhouse-exception-code']).toBe('1');
    expect((await ask(deps, { method: 'PUT', body: 'SELECT 1' })).status).toBe(500);
  });

  it('GET / and HEAD / without a query, and /replicas_status, answer Ok. as ClickHouse does', async () => {
    const { raw, calls } = engine();
    const deps: ChHttpDeps = { topo, raw };
    for (const [method, path] of [
      ['GET', '/'],
      ['HEAD', '/'],
      ['GET', '/replicas_status'],
      ['HEAD', '/ping'],
    ] as const) {
      const r = await ask(deps, { method, path });
      expect([r.status, r.body.toString()], `${method} ${path}`).toEqual([200, 'Ok.\n']);
    }
    expect((await ask(deps, { method: 'GET', path: '/', query: { query: 'SELECT 1' } })).headers['x-clickhouse-format']).toBe('TabSeparated');
    expect((await ask(deps, { method: 'POST', path: '/replicas_status' })).headers['x-clickhouse-exception-code']).toBe('1');
    expect(calls.filter((c) => !c.sql.startsWith('SELECT version()')).map((c) => c.sql)).toEqual(['SELECT 1']);
  });

  it('CORS: an allowed origin gets its headers on answers and errors, and a preflight without credentials; others none', async () => {
    const { raw } = engine();
    const cors = parseTopology({ ...topoInput, clickhouseHttp: { corsOrigins: ['https://app.example.com'], displayName: 'analytics-ch' } });
    const deps: ChHttpDeps = {
      topo: cors,
      raw,
      userCheck: async (c) => {
        if (c.user !== 'u') throw new ChHttpError(516, 'u: Authentication failed');
        return 'u';
      },
    };
    const origin = { origin: 'https://app.example.com' };
    const pre = await ask(deps, { method: 'OPTIONS', headers: { ...origin, 'access-control-request-headers': 'authorization, content-type' } });
    expect(pre.status).toBe(204);
    expect(pre.headers).toMatchObject({
      'access-control-allow-origin': 'https://app.example.com',
      'access-control-allow-methods': 'POST, GET, OPTIONS',
      'access-control-allow-headers': 'authorization, content-type',
      'access-control-max-age': '86400',
    });
    const ok = await ask(deps, { headers: { ...origin, 'x-clickhouse-user': 'u' }, body: 'SELECT 1', query: { add_http_cors_header: '1' } });
    expect(ok.status).toBe(200);
    expect(ok.headers['access-control-allow-origin']).toBe('https://app.example.com');
    expect(ok.headers['access-control-expose-headers']).toContain('X-ClickHouse-Summary');
    expect(ok.headers['x-clickhouse-server-display-name']).toBe('analytics-ch');
    const denied = await ask(deps, { headers: origin, body: 'SELECT 1' });
    expect([denied.status, denied.headers['access-control-allow-origin'], denied.headers['x-clickhouse-exception-code']]).toEqual([
      401,
      'https://app.example.com',
      '516',
    ]);
    const stranger = await ask(deps, {
      headers: { origin: 'https://evil.example', 'x-clickhouse-user': 'u' },
      body: 'SELECT 1',
      query: { add_http_cors_header: '1' },
    });
    expect(stranger.status).toBe(200);
    expect(stranger.headers['access-control-allow-origin']).toBeUndefined();
    expect((await ask(deps, { method: 'OPTIONS', headers: { origin: 'https://evil.example' } })).headers['access-control-allow-origin']).toBeUndefined();
    // Without an allowlist, no CORS header at all; the display name defaults to ch-scatter.
    const plain = await ask({ topo, raw }, { headers: origin, body: 'SELECT 1' });
    expect([plain.headers['access-control-allow-origin'], plain.headers['x-clickhouse-server-display-name']]).toEqual([undefined, 'ch-scatter']);
  });

  it("KILL QUERY WHERE query_id cancels the same user's running query (394), not another user's", async () => {
    const { raw, calls } = engine();
    const running = createRunningQueries();
    let started!: () => void;
    const isRunning = new Promise<void>((resolve) => {
      started = resolve;
    });
    const deps: ChHttpDeps = {
      topo,
      raw,
      running,
      userCheck: async (c) => c.user ?? 'default',
      // A distributed query that runs until its signal stops it, as the fan-out does.
      select: (req) =>
        new Promise((_resolve, reject) => {
          started();
          req.signal?.addEventListener('abort', () => reject(new Error('the fan-out stopped')));
        }),
    };
    const slow = ask(deps, { query: { query_id: 'cube-1' }, headers: { 'x-clickhouse-user': 'cube' }, body: 'SELECT count() FROM db.t_dist' });
    await isRunning;
    const other = await ask(deps, { headers: { 'x-clickhouse-user': 'mallory' }, body: "KILL QUERY WHERE query_id = 'cube-1'" });
    expect(other.status).toBe(200);
    expect(calls.at(-1)!.sql).toMatch(/ WHERE 0$/); // no row: not mallory's query
    const kill = await ask(deps, { headers: { 'x-clickhouse-user': 'cube' }, body: "KILL QUERY WHERE query_id = 'cube-1' SYNC FORMAT JSONEachRow" });
    expect([kill.status, kill.headers['x-clickhouse-format']]).toEqual([200, 'JSONEachRow']);
    expect(calls.at(-1)!.sql).toBe("SELECT 'waiting' AS kill_status, 'cube-1' AS query_id, 'cube' AS user, '' AS query");
    const r = await slow;
    expect([r.headers['x-clickhouse-exception-code'], r.body.toString()]).toEqual([
      '394',
      'Code: 394. DB::Exception: Query was cancelled. (QUERY_WAS_CANCELLED) (version 26.7.2.1)\n',
    ]);
    expect((await ask(deps, { body: 'KILL QUERY WHERE user = 1' })).headers['x-clickhouse-exception-code']).toBe('48');
    expect((await ask(deps, { body: 'KILL MUTATION WHERE 1' })).headers['x-clickhouse-exception-code']).toBe('164');
  });

  it('credentials are checked before the body is read: a bad body from a stranger is 516, not 62', async () => {
    const { raw, calls } = engine();
    const r = await ask(
      {
        topo,
        raw,
        userCheck: () => {
          throw new ChHttpError(516, 'x: Authentication failed');
        },
      },
      { body: 'SELEC garbage' },
    );
    expect(r.status).toBe(401);
    expect(r.headers['x-clickhouse-exception-code']).toBe('516');
    expect(r.headers['www-authenticate']).toMatch(/^Basic/);
    expect(calls).toHaveLength(0);
  });

  it('headers: query id, format, time zone, summary; gzip only when asked both ways', async () => {
    const { raw } = engine();
    const r = await ask(
      { topo, raw },
      { query: { query_id: 'abc', enable_http_compression: '1' }, headers: { 'accept-encoding': 'gzip' }, body: 'SELECT 1 FORMAT CSV' },
    );
    expect(r.status).toBe(200);
    expect(r.headers).toMatchObject({
      'x-clickhouse-query-id': 'abc',
      'x-clickhouse-format': 'CSV',
      'x-clickhouse-timezone': 'Etc/UTC',
      'content-encoding': 'gzip',
    });
    expect(gunzipSync(r.body).toString()).toBe('x'.repeat(2000));
    expect(JSON.parse(r.headers['x-clickhouse-summary']!)).toMatchObject({ read_rows: '7', read_bytes: '70', result_bytes: '2000' });
    expect(JSON.parse(r.headers['x-clickhouse-summary']!).result_rows).toBeUndefined();
  });

  it('compress=1 with gzip: ClickHouse blocks first, the HTTP encoding around them, as ClickHouse nests them', async () => {
    const { raw } = engine();
    const loadCodecs = loadWireCodecs;
    const r = await ask(
      { topo, raw, loadCodecs },
      { query: { compress: '1', enable_http_compression: '1' }, headers: { 'accept-encoding': 'gzip' }, body: 'SELECT 1 FORMAT CSV' },
    );
    expect(r.headers['content-encoding']).toBe('gzip');
    const blocks = gunzipSync(r.body);
    expect(blocks[16]).toBe(0x82);
    expect(decompressBlocks(blocks, await loadCodecs(), 1 << 20).toString()).toBe('x'.repeat(2000));
  });

  it('client_protocol_version frames Native only; without LZ4 and ZSTD loaded, what needs them is 48', async () => {
    const { raw } = engine();
    const csv = await ask({ topo, raw }, { query: { client_protocol_version: '54460' }, body: 'SELECT 1 FORMAT CSV' });
    expect(csv.body.toString()).toBe('x'.repeat(2000));
    const cases: { query?: Record<string, string>; headers?: Record<string, string> }[] = [
      { query: { compress: '1' } },
      { query: { decompress: '1' } },
      { headers: { 'content-encoding': 'zstd' } },
      { query: { enable_http_compression: '1' }, headers: { 'accept-encoding': 'lz4' } },
    ];
    for (const o of cases) {
      const r = await ask({ topo, raw }, { ...o, body: 'SELECT 1' });
      expect(r.headers['x-clickhouse-exception-code']).toBe('48');
    }
  });

  it('a query id that is not a plain id is echoed, but the shards get a fresh one', async () => {
    const { raw, calls } = engine();
    const r = await ask({ topo, raw }, { query: { query_id: "bad id'; --" }, body: 'SELECT 1' });
    expect(r.headers['x-clickhouse-query-id']).toBe("bad id'; --");
    const sent = calls.find((c) => c.sql.startsWith('SELECT 1'))!;
    expect(sent.queryId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('without the general path a distributed SELECT is 48; with it, the request reaches it intact', async () => {
    const { raw } = engine();
    expect((await ask({ topo, raw }, { body: 'SELECT count() FROM db.t_dist' })).headers['x-clickhouse-exception-code']).toBe('48');
    let got: unknown;
    const r = await ask(
      {
        topo,
        raw,
        select: async (req) => {
          got = req;
          return { bytes: Buffer.from('3\n'), rowsRead: 9, bytesRead: 90, missing: [{ shard: 1, reason: 'timeout' }] };
        },
      },
      {
        query: {
          database: 'db',
          param_k: "a\\'b",
          max_execution_time: '2',
          skip_unavailable_shards: '1',
          max_threads: '2',
          output_format_json_quote_64bit_integers: '0',
        },
        body: 'SELECT count() FROM t_dist WHERE k = {k:String} FORMAT TSV',
      },
    );
    expect(r.status).toBe(200);
    expect(got).toMatchObject({
      sql: 'SELECT count() FROM db.t_dist WHERE k = {k:String}',
      format: 'TSV',
      params: { k: "a'b" },
      timeoutMs: 2000,
      requireComplete: false,
      settings: { max_threads: '2' },
      formatSettings: { output_format_json_quote_64bit_integers: '0' },
    });
    expect(r.headers['x-ch-scatter-partial']).toBe('1');
    expect(JSON.parse(r.headers['x-ch-scatter-missing-shards']!)).toEqual([{ shard: 1, reason: 'timeout' }]);
  });

  it('INSERT: only into tables marked insert, CSV columns from the local table, per-shard counts', async () => {
    const { raw } = engine();
    const inserted: { table: string; rows: string[]; keys: string[] }[] = [];
    const deps: ChHttpDeps = {
      topo,
      raw,
      insert: async (table, data) => {
        inserted.push({
          table,
          rows: data.rows.map((r) => Buffer.from(r.bytes).toString()),
          keys: data.rows.map((r) => Buffer.from(r.key as Uint8Array).toString()),
        });
        return { inserted: 2, perShard: [1, 1] };
      },
    };
    const r = await ask(deps, { query: { query: 'INSERT INTO db.t_dist FORMAT CSV' }, body: 'a,1\nb,2\n' });
    expect(r.status, r.body.toString()).toBe(200);
    expect(inserted).toEqual([{ table: 'db.t_dist', rows: ['a,1', 'b,2'], keys: ['a', 'b'] }]);
    expect(JSON.parse(r.headers['x-clickhouse-summary']!)).toMatchObject({ written_rows: '2', shards_written_rows: ['1', '1'] });
    expect((await ask(deps, { body: 'INSERT INTO db.r_dist FORMAT JSONEachRow\n{"k":"a"}' })).headers['x-clickhouse-exception-code']).toBe('164');
    expect((await ask(deps, { body: 'INSERT INTO db.nope FORMAT JSONEachRow\n{"k":"a"}' })).headers['x-clickhouse-exception-code']).toBe('60');
    expect((await ask(deps, { body: 'INSERT INTO db.t_dist FORMAT Parquet\nPAR1' })).headers['x-clickhouse-exception-code']).toBe('48');
    // A default_format no header can carry is refused before anything is written.
    const before = inserted.length;
    const bad = await ask(deps, { query: { query: 'INSERT INTO db.t_dist FORMAT CSV', default_format: 'CSV\r\nX-Evil: 1' }, body: 'c,3\n' });
    expect(bad.headers['x-clickhouse-exception-code']).toBe('73');
    expect(inserted.length).toBe(before);
  });

  it('an internal failure says nothing of its cause', async () => {
    const raw: RawQuery = async () => {
      throw new TypeError('secret stack detail');
    };
    const r = await ask({ topo, raw }, { body: 'SELECT 1' });
    expect(r.status).toBe(500);
    expect(r.body.toString()).toBe('Code: 1001. DB::Exception: internal error. (STD_EXCEPTION)\n');
  });
});
