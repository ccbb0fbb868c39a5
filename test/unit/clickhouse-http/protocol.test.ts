// The ClickHouse HTTP interface's pieces without engines: reading a request as ClickHouse reads it,
// statement kinds, exception bodies and statuses, compression, INSERT data, credentials.
import { gzipSync, deflateSync, brotliCompressSync, gunzipSync, inflateSync, brotliDecompressSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parseError } from '@clickhouse/client-common';
import { parseChRequest } from '../../../shared/core/clickhouse-http/request.js';
import { classify } from '../../../shared/core/clickhouse-http/statement.js';
import { ChHttpError, exceptionBody, statusOf, toChException } from '../../../shared/core/clickhouse-http/exception.js';
import { withoutQueryText } from '../../../shared/core/clickhouse/error-codes.js';
import { ClickHouseError } from '../../../shared/core/clickhouse/port.js';
import { answerCodec, compress, decompressBody } from '../../../shared/core/clickhouse-http/compression.js';
import { splitInsertData } from '../../../shared/core/clickhouse-http/insert-data.js';
import { createUserCheck, credentialsOf, hashPassword, parseUsersFile } from '../../../shared/core/clickhouse-http/auth.js';
import { MAX_MULTIPART_PARTS } from '../../../shared/core/clickhouse-http/multipart.js';
import { ScatterError } from '../../../shared/core/errors.js';

const req = (query: Record<string, string>, body = '', headers: Record<string, string> = {}, method = 'POST') =>
  parseChRequest({ method, path: '/', query: new URLSearchParams(query), headers, body: Buffer.from(body) });

const code = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return toChException(e).code;
  }
  return undefined;
};

describe('reading a request', () => {
  it('the query from the URL, the body, or the URL part then a newline then the body', () => {
    expect(req({ query: 'SELECT 1' }, '', {}, 'GET').text).toBe('SELECT 1');
    expect(req({}, 'SELECT 2').text).toBe('SELECT 2');
    expect(req({ query: 'INSERT INTO t FORMAT CSV' }, '1,2').text).toBe('INSERT INTO t FORMAT CSV\n1,2');
    // a GET body is not part of the query
    expect(req({ query: 'SELECT 3' }, 'ignored', {}, 'GET').text).toBe('SELECT 3');
    expect(code(() => req({}, '  '))).toBe(62);
  });

  it('database, default format (URL before header), query id, params and settings', () => {
    const r = req(
      { database: 'analytics', default_format: 'JSON', query_id: 'q1', param_x: "a\\'b", max_threads: '2', output_format_json_quote_64bit_integers: '0' },
      'SELECT 1',
      { 'x-clickhouse-format': 'CSV' },
    );
    expect(r).toMatchObject({ database: 'analytics', defaultFormat: 'JSON', queryId: 'q1', params: { x: "a\\'b" } });
    expect(r.settings).toEqual({ max_threads: '2' });
    expect(r.formatSettings).toEqual({ output_format_json_quote_64bit_integers: '0' });
    expect(req({}, 'SELECT 1', { 'x-clickhouse-format': 'CSV', 'x-clickhouse-query-id': 'h1' })).toMatchObject({ defaultFormat: 'CSV', queryId: 'h1' });
    expect(req({}, 'SELECT 1').defaultFormat).toBe('TabSeparated');
  });

  it('limit and offset are folded into the LIMIT; the result caps go to the engine that renders the answer', () => {
    const r = req({ limit: '10', offset: '5', max_result_rows: '100', result_overflow_mode: 'throw' }, 'SELECT 1');
    expect(r.resultLimit).toEqual({ limit: 10, offset: 5 });
    expect(r.formatSettings).toEqual({ max_result_rows: '100', result_overflow_mode: 'throw' });
    expect(r.settings).toEqual({});
    expect(code(() => req({ limit: '-1' }, 'SELECT 1'))).toBe(72);
  });

  it('max_execution_time is the deadline; skip_unavailable_shards and compression are read here', () => {
    const r = req({ max_execution_time: '1.5', skip_unavailable_shards: '1', enable_http_compression: '1', http_zlib_compression_level: '6' }, 'SELECT 1');
    expect(r).toMatchObject({ maxExecutionTimeMs: 1500, skipUnavailableShards: true, compression: { enabled: true, level: 6 } });
    expect(r.settings).toEqual({});
    expect(code(() => req({ max_execution_time: 'soon' }, 'SELECT 1'))).toBe(72);
  });

  it('an unknown setting is 115; HTTP-only ones the client sends are accepted', () => {
    expect(code(() => req({ no_such: '1' }, 'SELECT 1'))).toBe(115);
    // Known to ClickHouse but not taken: 452, as a setting a profile constrains; a protection: 164.
    expect(code(() => req({ cast_string_to_dynamic_use_inference: '1' }, 'SELECT 1'))).toBe(452);
    expect(code(() => req({ allow_ddl: '1' }, 'SELECT 1'))).toBe(164);
    expect(code(() => req({ add_http_cors_header: '1', log_comment: 'grafana', http_headers_progress_interval_ms: '100' }, 'SELECT 1'))).toBeUndefined();
    expect(code(() => req({ send_progress_in_http_headers: '1', wait_end_of_query: '1', readonly: '1' }, 'SELECT 1'))).toBeUndefined();
    expect(code(() => req({ readonly: '0' }, 'SELECT 1'))).toBe(164);
  });

  it("ch_scatter_top_count and ch_scatter_keep_initiator_rows are taken from the URL; ch-scatter's fast-path settings are not", () => {
    expect(req({ ch_scatter_top_count: 'every_group' }, 'SELECT 1').settings).toEqual({ ch_scatter_top_count: 'every_group' });
    expect(req({ ch_scatter_keep_initiator_rows: '0' }, 'SELECT 1').settings).toEqual({ ch_scatter_keep_initiator_rows: '0' });
    expect(code(() => req({ ch_scatter_path: 'fast' }, 'SELECT 1'))).toBe(115);
  });

  it('settings the planner takes with no effect on the answer are accepted in the URL as in SETTINGS', () => {
    const r = req({ prefer_localhost_replica: '0', optimize_distributed_group_by_sharding_key: '1', enable_positional_arguments: '1' }, 'SELECT 1');
    expect(r.settings).toEqual({ prefer_localhost_replica: '0', optimize_distributed_group_by_sharding_key: '1', enable_positional_arguments: '1' });
  });
});

describe('statement kinds', () => {
  it.each([
    ['SELECT 1', 'select'],
    ['  -- c\n WITH 1 AS x SELECT x', 'select'],
    ['(SELECT 1)', 'select'],
    ['SHOW DATABASES', 'showDatabases'],
    ["SHOW TABLES FROM analytics LIKE 'e%' FORMAT JSON", 'showTables'],
    ['DESC analytics.t', 'describe'],
    ['DESCRIBE TABLE `a b`.t FORMAT TSV;', 'describe'],
    ['EXISTS TABLE t', 'exists'],
    ['EXISTS DATABASE analytics', 'existsDatabase'],
    ['SHOW CREATE TABLE analytics.t FORMAT TSVRaw', 'showCreate'],
    ['SHOW CREATE t', 'showCreate'],
  ])('%s -> %s', (sql, kind) => {
    expect(classify(sql).kind).toBe(kind);
  });

  it('SHOW TABLES reads its parts', () => {
    expect(classify("SHOW TABLES IN db LIKE 'x%' FORMAT JSONEachRow")).toEqual({ kind: 'showTables', database: 'db', like: 'x%', format: 'JSONEachRow' });
  });

  it('INSERT: table, columns, format and where the data starts', () => {
    const text = 'INSERT INTO db.t (a, `b c`) FORMAT CSV  \n1,2\n';
    const st = classify(text);
    expect(st).toMatchObject({ kind: 'insert', table: { database: 'db', table: 't' }, columns: ['a', 'b c'], format: 'CSV' });
    expect(text.slice((st as { dataOffset: number }).dataOffset)).toBe('1,2\n');
  });

  it.each([
    ['DROP TABLE t', 164],
    ['ALTER TABLE t DELETE WHERE 1', 164],
    ['SET max_threads = 1', 164],
    ['INSERT INTO t VALUES (1)', 48],
    ['INSERT INTO t SELECT 1', 48],
    ['EXPLAIN SELECT 1', 48],
    ['SHOW CREATE DATABASE d', 62],
    ['SHOW GRANTS', 48],
    ['SELEC 1', 62],
    ['DESCRIBE', 62],
  ])('%s is %i', (sql, c) => {
    expect(code(() => classify(sql))).toBe(c);
  });
});

describe('exceptions', () => {
  it("an engine's message loses the rewritten query it quotes (current and 18.16 spellings)", () => {
    expect(
      withoutQueryText(
        "Unknown expression identifier `nope` in scope SELECT nope AS _c0 FROM analytics.sensor_events SETTINGS max_execution_time = 4.498, readonly = 2. Maybe you meant: ['none']",
      ),
    ).toBe("Unknown expression identifier `nope`. Maybe you meant: ['none']");
    expect(withoutQueryText('Function with name `f` does not exist. In scope SELECT f(1) SETTINGS readonly = 2')).toBe(
      'Function with name `f` does not exist.',
    );
    expect(
      withoutQueryText("Missing columns: 'nope' while processing query: 'SELECT nope FROM analytics.events WHERE k = \\'x\\'', required columns: 'nope'"),
    ).toBe("Missing columns: 'nope', required columns: 'nope'");
    const x = toChException(
      new ClickHouseError('Code: 47. DB::Exception: Unknown identifier `a` in scope SELECT a SETTINGS readonly = 2. (UNKNOWN_IDENTIFIER)', 'server', 47),
    );
    expect(x.message).toBe('Unknown identifier `a`');
  });

  it('the body is what @clickhouse/client parses into a typed error', () => {
    for (const e of [
      new ChHttpError(62, 'Syntax error: failed at position 1'),
      new ScatterError('UNSUPPORTED', 'WITH ROLLUP in a message (in parentheses) is not supported'),
      new ScatterError(
        'QUERY_ERROR',
        'ClickHouse rejected the query on shard 0 (ClickHouse error 47 UNKNOWN_IDENTIFIER): Code: 47. DB::Exception: Missing columns: x. (UNKNOWN_IDENTIFIER) (version 18.16.1)',
        {
          details: { clickhouse: { code: 47, name: 'UNKNOWN_IDENTIFIER' } },
        },
      ),
    ]) {
      const x = toChException(e);
      const parsed = parseError(exceptionBody(x, '26.7.2.1')) as { code: string; type: string; message: string };
      expect(parsed.code).toBe(String(x.code));
      expect(parsed.type).toBe(x.name);
    }
    expect(exceptionBody(toChException(new ChHttpError(164, 'Cannot execute query in readonly mode')))).toBe(
      'Code: 164. DB::Exception: Cannot execute query in readonly mode. (READONLY)\n',
    );
  });

  it("the body writes the message as it is, brackets, quotes and parentheses included, as ClickHouse's getExceptionMessage does", () => {
    const messages = [
      'Window functions (OVER) are not supported on the fast path: row_number(...) OVER',
      'WITH (ROLLUP) in a message (PARENS) is not supported',
      'Missing columns: \'nope\' (x) [1, 2] {a: b} `q(R)` "(ABC_1)"',
      'Unknown function f (UNKNOWN_FUNCTION) inside ( spaced ) text.',
      'Syntax error: failed at (  ) and )( and (OVER ) kept.',
    ];
    for (const message of messages) {
      const x = toChException(new ScatterError('UNSUPPORTED', message));
      expect(x.message).toBe(message);
      const body = exceptionBody(x, '26.7.2.1');
      const end = message.endsWith('.') ? '' : '.';
      expect(body).toBe(`Code: 48. DB::Exception: ${message}${end} (NOT_IMPLEMENTED) (version 26.7.2.1)\n`);
      // The code reads from the body whatever the message holds.
      expect((parseError(body) as { code: string }).code).toBe('48');
    }
    // An engine's message reaches the body as the engine wrote it (its query quote aside).
    const engine = toChException(
      new ClickHouseError("Code: 43. DB::Exception: Illegal type String of argument of function plus (PLUS): 'a'. (ILLEGAL_TYPE_OF_ARGUMENT)", 'server', 43),
    );
    expect(exceptionBody(engine)).toBe("Code: 43. DB::Exception: Illegal type String of argument of function plus (PLUS): 'a'. (ILLEGAL_TYPE_OF_ARGUMENT)\n");
  });

  it('ch-scatter errors get ClickHouse codes and statuses', () => {
    const cases: [unknown, number, number][] = [
      [new ScatterError('SYNTAX_ERROR', 'x'), 62, 400],
      [new ScatterError('UNKNOWN_TABLE', 'x'), 60, 404],
      [new ScatterError('UNSUPPORTED', 'x'), 48, 501],
      [new ScatterError('TIMEOUT', 'x'), 159, 408],
      [new ScatterError('INCOMPLETE_RESULT', 'x', { details: { shards: { missing: [{ reason: 'timeout' }] } } }), 159, 408],
      [new ScatterError('INCOMPLETE_RESULT', 'x', { details: { shards: { missing: [{ reason: 'error' }] } } }), 279, 500],
      [new ScatterError('NOT_READ_ONLY', 'x'), 164, 500],
      [new ChHttpError(516, 'x'), 516, 401],
      [new Error('secret detail'), 1001, 500],
    ];
    for (const [e, c, status] of cases) expect(toChException(e)).toMatchObject({ code: c, status });
    expect(toChException(new Error('secret detail')).message).toBe('internal error');
    expect(statusOf(115)).toBe(404);
  });
});

describe('compression', () => {
  it("only with enable_http_compression and an accepted codec, in chooseHTTPCompressionMethod's order", () => {
    expect(answerCodec(false, 'gzip')).toBeUndefined();
    expect(answerCodec(true, undefined)).toBeUndefined();
    expect(answerCodec(true, 'deflate, gzip;q=0.5')).toBe('gzip');
    expect(answerCodec(true, 'br, deflate, gzip;q=0.5')).toBe('br');
    expect(answerCodec(true, 'gzip, lz4')).toBe('lz4');
    expect(answerCodec(true, 'lz4, br')).toBe('br');
    expect(answerCodec(true, 'gzip, zstd, br')).toBe('zstd');
    expect(answerCodec(true, 'deflate')).toBe('deflate');
    expect(answerCodec(true, 'identity, xz')).toBeUndefined();
  });

  it('round trips each codec, and reads compressed request bodies', () => {
    const body = Buffer.from('x'.repeat(1000));
    expect(gunzipSync(compress(body, 'gzip'))).toEqual(body);
    expect(inflateSync(compress(body, 'deflate'))).toEqual(body);
    expect(brotliDecompressSync(compress(body, 'br'))).toEqual(body);
    expect(decompressBody(gzipSync(body), 'gzip', 1 << 20)).toEqual(body);
    expect(decompressBody(deflateSync(body), 'deflate', 1 << 20)).toEqual(body);
    expect(decompressBody(brotliCompressSync(body), 'br', 1 << 20)).toEqual(body);
    expect(code(() => decompressBody(body, 'gzip', 1 << 20))).toBe(36);
    expect(code(() => decompressBody(body, 'zstd', 1 << 20))).toBe(36);
    expect(code(() => decompressBody(gzipSync(body), 'gzip', 100))).toBe(36);
  });
});

describe('INSERT data', () => {
  const split = (format: 'CSV' | 'TabSeparated' | 'JSONEachRow', data: string, columns: string[] = ['k', 'v', 'n']) =>
    splitInsertData(format, Buffer.from(data, 'latin1'), columns, 'k', true).map((r) => ({
      row: r.bytes.toString('latin1'),
      key: r.key instanceof Uint8Array ? Buffer.from(r.key).toString('hex') : r.key,
    }));

  it('rows stay the bytes sent; the key field is decoded to the bytes ClickHouse stores', () => {
    expect(split('CSV', ' "a ""q""" ,1,\\N\r\nb\xff , 2,x\n')).toEqual([
      { row: ' "a ""q""" ,1,\\N\r', key: Buffer.from('a "q"').toString('hex') },
      { row: 'b\xff , 2,x', key: '62ff' },
    ]);
    expect(split('CSV', 'NULL,1\n\\N,2\n"x\ny",3', ['k', 'v'])).toEqual([
      { row: 'NULL,1', key: '4e554c4c' },
      { row: '\\N,2', key: null },
      { row: '"x\ny",3', key: '780a79' },
    ]);
    expect(split('TabSeparated', '\\xFF\\tb\xfe\t1\t\\N\n\\N\t2\n')).toEqual([
      { row: '\\xFF\\tb\xfe\t1\t\\N', key: 'ff0962fe' },
      { row: '\\N\t2', key: null },
    ]);
    expect(split('JSONEachRow', '{"v":[1,{"k":"no"}],"k":"\xff\\u00ff\\ud83d\\ude00"}\n\n{"v":1}\n')).toEqual([
      { row: '{"v":[1,{"k":"no"}],"k":"\xff\\u00ff\\ud83d\\ude00"}', key: 'ffc3bff09f9880' },
      { row: '{"v":1}', key: undefined },
    ]);
  });

  it('what ClickHouse versions read differently is refused (27), never guessed', () => {
    expect(code(() => split('CSV', "'a',1\n", ['k', 'v']))).toBe(27);
    expect(code(() => split('CSV', '"open,1\n', ['k', 'v']))).toBe(27);
    expect(code(() => split('TabSeparated', 'a\\w\t1\n', ['k', 'v']))).toBe(27);
    expect(code(() => split('JSONEachRow', '{"k":"a"}{"k":"b"}\n'))).toBe(27);
  });
});

describe('credentials', () => {
  it('Basic, X-ClickHouse-User/Key, URL user/password, Bearer', () => {
    const basic = `Basic ${Buffer.from('u:p:w').toString('base64')}`;
    expect(credentialsOf({ authorization: basic }, new URLSearchParams())).toEqual({ user: 'u', password: 'p:w' });
    expect(credentialsOf({ 'x-clickhouse-user': 'a', 'x-clickhouse-key': 'b' }, new URLSearchParams())).toEqual({ user: 'a', password: 'b' });
    expect(credentialsOf({}, new URLSearchParams('user=c&password=d'))).toEqual({ user: 'c', password: 'd' });
    expect(credentialsOf({ authorization: 'Bearer t.k.n' }, new URLSearchParams())).toEqual({ bearer: 't.k.n' });
  });

  it('salted hashes; every failure the same 516 message', async () => {
    const h1 = hashPassword('pw', 1024);
    expect(h1).not.toBe(hashPassword('pw', 1024));
    const check = createUserCheck({ users: [{ name: 'a', password: h1 }] });
    expect(await check({ user: 'a', password: 'pw' })).toBe('a');
    const messages = new Set<string>();
    for (const c of [{ user: 'a', password: 'nope' }, { user: 'b', password: 'pw' }, {}]) {
      const e = await check(c).then(
        () => expect.unreachable(),
        (x: unknown) => x,
      );
      expect((e as ChHttpError).chCode).toBe(516);
      messages.add((e as Error).message.replace(/^[^:]*:/, ''));
    }
    expect(messages.size).toBe(1);
  });

  it('a users file that is not JSON is refused without quoting its text (it is a secret)', () => {
    const secretText = 'hunter2-not-json';
    expect(() => parseUsersFile(secretText)).toThrow('users file: not valid JSON');
    try {
      parseUsersFile(secretText);
    } catch (e) {
      expect(String((e as Error).message)).not.toContain('hunter');
    }
  });
});

describe('multipart bodies', () => {
  it('reads the query and param_ parts as @clickhouse/client writes them', async () => {
    const { buildMultipartBody } = await import('@clickhouse/client-common/dist/utils/multipart.js' as string);
    const body = (buildMultipartBody as (p: Record<string, string>, b: string) => string)(
      { query: 'SELECT {v:Array(String)}', param_v: "['a\\r\\n--x','b']" },
      '----b1',
    );
    const r = parseChRequest({
      method: 'POST',
      path: '/',
      query: new URLSearchParams({ query_id: 'q' }),
      headers: { 'content-type': 'multipart/form-data; boundary=----b1' },
      body: Buffer.from(body),
    });
    expect(r.text).toBe('SELECT {v:Array(String)}');
    expect(r.params).toEqual({ v: "['a\\r\\n--x','b']" });
    expect(r.queryId).toBe('q');
  });

  /** n param_ parts and the query (n + 1 parts), as a client with many parameters sends them. */
  const manyParts = (n: number) => {
    const parts: string[] = [];
    for (let i = 0; i < n; i++) parts.push(`--b\r\nContent-Disposition: form-data; name="param_p${i}"\r\n\r\n${i}\r\n`);
    return `${parts.join('')}--b\r\nContent-Disposition: form-data; name="query"\r\n\r\nSELECT 1\r\n--b--\r\n`;
  };
  const form = { 'content-type': 'multipart/form-data; boundary=b' };

  it('reads a body in time linear in its parts: 16x the parts within 80x the time of a same-run baseline', () => {
    // 16x apart, so linear (16x) and quadratic (256x) stay far from the bound. CPU time, not wall
    // time: a test process waiting for a core under load is not charged; the sizes alternate and
    // each keeps its best run.
    const parse = (buf: Buffer) => {
      const t = process.cpuUsage();
      parseChRequest({ method: 'POST', path: '/', query: new URLSearchParams('param_p0=url'), headers: form, body: buf });
      const d = process.cpuUsage(t);
      return d.user + d.system;
    };
    const small = Buffer.from(manyParts(MAX_MULTIPART_PARTS / 16));
    const large = Buffer.from(manyParts(MAX_MULTIPART_PARTS - 1));
    let bestSmall = Infinity;
    let bestLarge = Infinity;
    for (let k = 0; k < 7; k++) {
      bestSmall = Math.min(bestSmall, parse(small));
      bestLarge = Math.min(bestLarge, parse(large));
    }
    expect(bestLarge / bestSmall).toBeLessThan(80);
    const r = req({}, manyParts(3), form);
    expect(r.params).toEqual({ p0: '0', p1: '1', p2: '2' });
  });

  it(`refuses more than ${MAX_MULTIPART_PARTS} parts with 36, before reading them`, () => {
    expect(code(() => req({}, manyParts(MAX_MULTIPART_PARTS), form))).toBe(36);
    expect(code(() => req({}, manyParts(65_000), form))).toBe(36);
    expect(req({}, manyParts(MAX_MULTIPART_PARTS - 1), form).text).toBe('SELECT 1');
  });
});

describe('external data (multipart file parts)', () => {
  const form = { 'content-type': 'multipart/form-data; boundary=b' };
  const file = (name: string, data: string | Buffer, filename = `${name}.tsv`) =>
    Buffer.concat([
      Buffer.from(`--b\r\nContent-Disposition: form-data; name="${name}"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`),
      Buffer.from(data),
      Buffer.from('\r\n'),
    ]);
  const body = (...parts: Buffer[]) => Buffer.concat([...parts, Buffer.from('--b--\r\n')]);
  const ask = (query: Record<string, string>, b: Buffer) =>
    parseChRequest({ method: 'POST', path: '/', query: new URLSearchParams(query), headers: form, body: b });
  const message = (f: () => unknown) => {
    try {
      f();
    } catch (e) {
      return `${toChException(e).code} ${toChException(e).message}`;
    }
    return undefined;
  };

  it('a file part is a table: its structure, format and bytes (binary kept exactly); its parameters are no settings', () => {
    const bin = Buffer.from([0, 1, 0x0d, 0x0a, 0x2d, 0x2d, 0x63, 0xff, 0x0a, 0x0d, 0x0a]);
    const r = ask(
      { query: 'SELECT * FROM ids', ids_structure: 'id UInt32, `odd name` Array(Decimal(9, 2))', ids_format: 'RowBinary', t_types: 'UInt8,String' },
      body(file('ids', bin), file('t', '1\ta\n', '')),
    );
    expect(r.external).toEqual([
      {
        name: 'ids',
        format: 'RowBinary',
        columns: [
          { name: 'id', type: 'UInt32' },
          { name: 'odd name', type: 'Array(Decimal(9, 2))' },
        ],
        data: bin,
      },
      {
        name: 't',
        format: 'TabSeparated',
        columns: [
          { name: '_1', type: 'UInt8' },
          { name: '_2', type: 'String' },
        ],
        data: Buffer.from('1\ta\n'),
      },
    ]);
    expect(r.settings).toEqual({});
    expect(r.text).toBe('SELECT * FROM ids');
  });

  it('the query as a text part beside the files (clickhouse-go writes it last)', () => {
    const q = Buffer.from('--b\r\nContent-Disposition: form-data; name="query"\r\n\r\nSELECT count() FROM ids\r\n');
    const r = ask({ ids_structure: 'id UInt32' }, body(file('ids', '1\n2\n', ''), q));
    expect(r.text).toBe('SELECT count() FROM ids');
    expect(r.external.map((t) => t.data.toString())).toEqual(['1\n2\n']);
  });

  it("ClickHouse's refusals: no structure (36), a structure that does not parse (36), a format that is no name (73)", () => {
    expect(message(() => ask({ query: 'SELECT 1' }, body(file('ids', '1\n'))))).toBe(
      '36 Neither structure nor types have not been provided for external table ids. Use fields ids_structure or ids_types to do so.',
    );
    expect(message(() => ask({ query: 'SELECT 1', ids_structure: 'id UInt32, s' }, body(file('ids', '1\n'))))).toMatch(
      /^36 Error while parsing table structure/,
    );
    expect(message(() => ask({ query: 'SELECT 1', ids_structure: 'id Array(UInt32' }, body(file('ids', '1\n'))))).toMatch(
      /^36 Error while parsing table structure/,
    );
    expect(message(() => ask({ query: 'SELECT 1', ids_types: 'UInt32,,String' }, body(file('ids', '1\n'))))).toMatch(/^36 Error while parsing table structure/);
    expect(message(() => ask({ query: 'SELECT 1', ids_types: 'UInt32', ids_format: "CSV'" }, body(file('ids', '1\n'))))).toBe("73 Unknown format CSV'");
    expect(code(() => ask({ query: 'SELECT 1', ids_types: 'UInt32', ids_format: 'Template' }, body(file('ids', '1\n'))))).toBe(497);
    // Names are spliced into SQL and URL parameters: identifiers only.
    expect(code(() => ask({ query: 'SELECT 1', 'a-b_types': 'UInt32' }, body(file('a-b', '1\n'))))).toBe(36);
    // The runtime's own names: a client's table must not stand in for a stage table or a shipped set.
    expect(code(() => ask({ query: 'SELECT 1', _stage0_types: 'UInt32' }, body(file('_stage0', '1\n'))))).toBe(36);
    expect(code(() => ask({ query: 'SELECT 1', _data_12_types: 'UInt32' }, body(file('_data_12', '1\n'))))).toBe(36);
  });

  it('a `_structure` / `_types` / `_format` parameter without its part is skipped as ClickHouse skips it; a setting with such a name stays one', () => {
    const r = req({ query: 'SELECT 1', ids_structure: 'id UInt32', x_types: 'UInt8', date_time_output_format: 'iso' });
    expect(r.external).toEqual([]);
    expect(r.formatSettings).toEqual({ date_time_output_format: 'iso' });
    // A text field named like a table is a setting, as in ClickHouse (115 for an unknown one).
    const text = Buffer.from('--b\r\nContent-Disposition: form-data; name="ids"\r\n\r\n1\r\n');
    expect(code(() => ask({ query: 'SELECT 1', ids_structure: 'id UInt32' }, body(text)))).toBe(115);
  });
});
