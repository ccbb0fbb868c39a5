// clickhouse-connect's client.insert on the local stack's ClickHouse interface (two chdb shards): the
// request its source builds (clickhouse_connect/driver/insert.py next_block: `INSERT INTO t (cols)
// FORMAT Native` and a newline before the first block; driver/transform.py build_insert: each block's
// column count, row count, then per column its name, type, prefix and data, as datatypes/base.py
// write_column writes them; _backend/httpcommon.py plan_data_insert_request: the database as a URL
// parameter, the body under Content-Encoding when compressed), checked against ClickHouse itself:
// every row lands on the shard ClickHouse's Distributed rule names (xxHash64 of the key, by weight),
// and the rows read back are those a chdb oracle stores for the same Native bytes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WireCodecs } from '../../../shared/core/clickhouse-http/block-compression.js';
import { loadWireCodecs } from '../../../functions/coordinator/wire-codecs.js';
import { AUTH_HEADER, startHarness, raw, type Harness } from './support.js';
import { strBin as str, varuint as leb128 } from '../../support/native-bytes.js';

let h: Harness;
let codecs: WireCodecs;

const PEOPLE_DDL = (name: string) =>
  `CREATE TABLE ${name} (id UInt64, name LowCardinality(String), city Nullable(String), nick LowCardinality(Nullable(String)), tags Array(String), at DateTime('UTC'), score Float64) ENGINE = MergeTree ORDER BY id`;

beforeAll(async () => {
  h = await startHarness({
    tables: { 'analytics.people_dist': { local: 'analytics.people', shardingKey: { column: 'name', type: 'String', function: 'xxHash64' }, insert: true } },
  });
  codecs = await loadWireCodecs();
  const ddl = await fetch(`${h.stack.url}/admin/exec`, { method: 'POST', headers: AUTH_HEADER, body: JSON.stringify({ sql: PEOPLE_DDL('analytics.people') }) });
  expect(ddl.status, await ddl.clone().text()).toBe(200);
  await h.oracle.exec(PEOPLE_DDL('analytics.people_dist'));
}, 240_000);

afterAll(async () => {
  await h?.stop();
});

const u64 = (n: number) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(n));
  return b;
};

interface Person {
  id: number;
  name: string;
  city: string | null;
  nick: string | null;
  tags: string[];
  at: number;
  score: number;
}

/** datatypes/base.py _write_column_low_card: the dictionary of first appearances (None first when Nullable), then the keys. */
function lowCard(values: (string | null)[], nullable: boolean): Buffer {
  const index: (string | null)[] = nullable ? [null] : [];
  const keys = values.map((v) => {
    if (v === null) return 0;
    let i = index.indexOf(v);
    if (i < 0) i = index.push(v) - 1;
    return i;
  });
  const ixType = Math.floor(Math.log2(index.length)) >> 3;
  const width = 1 << ixType;
  const keyBytes = Buffer.alloc(keys.length * width);
  for (const [i, k] of keys.entries()) keyBytes.writeUIntLE(k, i * width, width);
  return Buffer.concat([u64((1 << 9) | (1 << 10) | ixType), u64(index.length), ...index.map((v) => str(v ?? '')), u64(keys.length), keyBytes]);
}

/** transform.py build_insert for one block of `people` (the statement prefix on the first only). */
function block(people: Person[], first: boolean, table = 'analytics.people_dist'): Buffer {
  const cols = ['id', 'name', 'city', 'nick', 'tags', 'at', 'score'];
  const col = (name: string, type: string, prefix: Buffer, data: Buffer) => Buffer.concat([str(name), str(type), prefix, data]);
  const version = u64(1); // write_column_prefix: low_card_version before a LowCardinality column's data
  const offsets: Buffer[] = [];
  let end = 0;
  for (const p of people) {
    end += p.tags.length;
    offsets.push(u64(end));
  }
  return Buffer.concat([
    first ? Buffer.from(`INSERT INTO ${table} (${cols.map((c) => `\`${c}\``).join(', ')}) FORMAT Native\n`) : Buffer.alloc(0),
    leb128(cols.length),
    leb128(people.length),
    col('id', 'UInt64', Buffer.alloc(0), Buffer.concat(people.map((p) => u64(p.id)))),
    col(
      'name',
      'LowCardinality(String)',
      version,
      lowCard(
        people.map((p) => p.name),
        false,
      ),
    ),
    col(
      'city',
      'Nullable(String)',
      Buffer.alloc(0),
      Buffer.concat([Buffer.from(people.map((p) => (p.city === null ? 1 : 0))), ...people.map((p) => str(p.city ?? ''))]),
    ),
    col(
      'nick',
      'LowCardinality(Nullable(String))',
      version,
      lowCard(
        people.map((p) => p.nick),
        true,
      ),
    ),
    col('tags', 'Array(String)', Buffer.alloc(0), Buffer.concat([...offsets, ...people.flatMap((p) => p.tags.map(str))])),
    col('at', "DateTime('UTC')", Buffer.alloc(0), Buffer.concat(people.map((p) => Buffer.from(new Uint32Array([p.at]).buffer)))),
    col('score', 'Float64', Buffer.alloc(0), Buffer.concat(people.map((p) => Buffer.from(new Float64Array([p.score]).buffer)))),
  ]);
}

const people = (from: number, n: number): Person[] =>
  Array.from({ length: n }, (_, i) => {
    const id = from + i;
    return {
      id,
      name: `n-${id % 23}${id % 5 === 0 ? ' é\u00ff' : ''}`,
      city: id % 4 === 0 ? null : `c-${id % 3}`,
      nick: id % 3 === 0 ? null : `k${id % 7}`,
      tags: Array.from({ length: id % 4 }, (_, t) => `t${t}`),
      at: 1_700_000_000 + id * 37,
      score: id / 8,
    };
  });

/** ClickHouse parsing the same bytes: the format() table function over the oracle's table. */
async function oracleInsert(body: Buffer) {
  const data = body.subarray(body.indexOf(0x0a) + 1);
  const hex = [...data].map((b) => `\\x${b.toString(16).padStart(2, '0')}`).join('');
  await h.oracle.exec(`SET max_query_size = ${hex.length + 4096}`);
  await h.oracle.exec(`INSERT INTO analytics.people_dist (id, name, city, nick, tags, at, score) SELECT * FROM format(Native, '${hex}')`);
}

const SELECT = 'SELECT id, name, city, nick, tags, at, score FROM analytics.people_dist ORDER BY id FORMAT JSONEachRow';
const PARAMS = { database: 'analytics', date_time_input_format: 'best_effort' };

describe("clickhouse-connect's client.insert (FORMAT Native)", () => {
  it('two blocks, LZ4-framed: every row on the shard ClickHouse places it, the rows as ClickHouse stores them', async () => {
    const body = Buffer.concat([block(people(0, 70), true), block(people(70, 50), false)]);
    const r = await raw(h.stack.url, {
      query: PARAMS,
      headers: { 'content-type': 'application/octet-stream', 'content-encoding': 'lz4' },
      body: codecs.lz4Frame.compress(body),
      auth: h.auth,
    });
    expect(r.status, r.body.toString()).toBe(200);
    expect(JSON.parse(r.headers.get('x-clickhouse-summary')!).written_rows).toBe('120');
    await oracleInsert(block(people(0, 70), true));
    await oracleInsert(block(people(70, 50), true));
    const mine = await raw(h.stack.url, { body: SELECT, auth: h.auth });
    const theirs = (await h.oracle.queryRaw(SELECT.replace(' FORMAT JSONEachRow', ''), { format: 'JSONEachRow' })).bytes.toString();
    expect(mine.body.toString()).toBe(theirs);
    // Distributed's rule: slot xxHash64(name) % 2 over shards of weight 1, 1.
    const placed = await raw(h.stack.url, { body: 'SELECT _shard_num - 1 AS s, name FROM analytics.people_dist ORDER BY id FORMAT TSV', auth: h.auth });
    const rule = (await h.oracle.queryRaw('SELECT xxHash64(name) % 2 AS s, name FROM analytics.people_dist ORDER BY id', { format: 'TSV' })).bytes.toString();
    expect(placed.body.toString()).toBe(rule);
    expect(
      new Set(
        rule
          .trim()
          .split('\n')
          .map((l) => l.split('\t')[0]),
      ),
    ).toEqual(new Set(['0', '1']));
  });

  it('a column ClickHouse refuses, a column of another type, a cut block, a key of another type: nothing written, ClickHouse codes', async () => {
    const count = async () => (await raw(h.stack.url, { body: 'SELECT count() FROM analytics.people_dist', auth: h.auth })).body.toString();
    const before = await count();
    const good = block(people(500, 3), true);
    // A column the table does not have: ClickHouse's own check of the whole batch refuses it (16).
    const unknown = Buffer.concat([
      Buffer.from('INSERT INTO analytics.people_dist (`name`, `nope`) FORMAT Native\n'),
      leb128(2),
      leb128(1),
      str('name'),
      str('LowCardinality(String)'),
      u64(1),
      lowCard(['x'], false),
      str('nope'),
      str('UInt8'),
      Buffer.from([7]),
    ]);
    const refused = await raw(h.stack.url, { query: PARAMS, body: unknown, auth: h.auth });
    expect(refused.headers.get('x-clickhouse-exception-code'), refused.body.toString()).toBe('16');
    expect(refused.body.toString()).toMatch(/^Code: 16\. DB::Exception: .*nope/);
    // A column in another type than the table's: converting it is the engine's, refused before any shard.
    const bad = Buffer.concat([
      Buffer.from('INSERT INTO analytics.people_dist (`name`, `at`) FORMAT Native\n'),
      leb128(2),
      leb128(1),
      str('name'),
      str('LowCardinality(String)'),
      u64(1),
      lowCard(['x'], false),
      str('at'),
      str('String'),
      str('2024-01-01 00:00:00'),
    ]);
    const typed = await raw(h.stack.url, { query: PARAMS, body: bad, auth: h.auth });
    expect(typed.headers.get('x-clickhouse-exception-code')).toBe('48');
    expect(typed.body.toString()).toMatch(/column at is sent as String, the table's is DateTime\('UTC'\)/);
    const cut = await raw(h.stack.url, { query: PARAMS, body: good.subarray(0, good.length - 5), auth: h.auth });
    expect(cut.headers.get('x-clickhouse-exception-code')).toBe('33');
    const otherKey = Buffer.concat([
      Buffer.from('INSERT INTO analytics.people_dist (`name`) FORMAT Native\n'),
      leb128(1),
      leb128(1),
      str('name'),
      str('UInt8'),
      Buffer.from([1]),
    ]);
    const keyRefused = await raw(h.stack.url, { query: PARAMS, body: otherKey, auth: h.auth });
    expect(keyRefused.headers.get('x-clickhouse-exception-code')).toBe('48');
    expect(keyRefused.body.toString()).toMatch(/column name is sent as UInt8, the table's is LowCardinality\(String\)/);
    expect(await count()).toBe(before);
  });
});
