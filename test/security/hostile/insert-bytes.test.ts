// Hostile INSERTs through the ClickHouse interface, on two chdb shards and on two clickhouse-server
// 18.16 shards: raw bytes that are not UTF-8, TabSeparated escapes, every CSV NULL form, spaces
// around CSV fields, numbers from CSV and TSV, and rows with type errors. Each INSERT also goes
// straight into one ClickHouse of the same engine holding every row, and the two must agree: the
// same stored bytes (hex), each row on the shard that ClickHouse's xxHash64 of its stored key
// names, or the same error code with NOTHING committed on any shard.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClickHouseAccess, ClickHouseError } from '../../../shared/core/clickhouse/port.js';
import { parseTopology } from '../../../shared/core/config/load.js';
import { handleClickHouseHttp, type ChHttpDeps } from '../../../shared/core/clickhouse-http/handle.js';
import type { ShardInvoker } from '../../../shared/core/scatter/invoker.js';
import { createAdminAccess } from '../../../shared/core/scatter/shard-admin-access.js';
import { routerInsert } from '../../../functions/coordinator/clickhouse-route.js';
import { createShardHandler } from '../../../functions/shard/shard-function.js';
import { createAccess } from '../../../shared/adapters/clickhouse/factory.js';
import { loadHasher, type Hasher } from '../../../shared/core/sharding/index.js';
import { ADMIN, useChServers } from '../../support/ch-servers.js';
import { startEmbeddedCluster, type EmbeddedCluster } from '../../support/embedded-cluster.js';

const COLUMNS = 'k String, s String, n UInt32, d Decimal(38, 10), ts DateTime';
// Aliases of their own: one named like a column would replace it in WHERE and ORDER BY.
const HEX = 'SELECT hex(k) AS hk, hex(s) AS hs, toString(n) AS tn, toString(d) AS td, toString(ts) AS tts FROM';

/** The interface over real shard functions on `shards` (each request through the JSON wire). */
function interfaceOver(shards: ClickHouseAccess[]): ChHttpDeps {
  const topo = parseTopology({
    cluster: 'scatter',
    shards: shards.map(() => ({ replicas: [{ url: 'http://unused:8123' }] })),
    tables: { 'default.ev_dist': { local: 'default.ev', shardingKey: { column: 'k', type: 'String', function: 'xxHash64' }, insert: true } },
  });
  const fns = shards.map((a, shard) => createShardHandler({ shard, getAccess: async () => a, allowAdmin: true }));
  const call = (s: number, p: unknown) => fns[s]!(JSON.parse(JSON.stringify(p)), undefined as never);
  const invoker: ShardInvoker = { invoke: (s, p) => call(s, p) as never, invokeAdmin: (s, p) => call(s, p) };
  const admin = shards.map((_, shard) => createAdminAccess({ invoker, shard, replica: 0 }));
  return {
    topo,
    raw: (sql, o) => shards[0]!.queryRaw(sql, { format: o.format, settings: { readonly: 2, ...o.settings } }),
    insert: routerInsert(topo, (s) => admin[s]!),
  };
}

interface Case {
  name: string;
  format: 'CSV' | 'TabSeparated' | 'JSONEachRow';
  body: Buffer;
}

const bin = (s: string) => Buffer.from(s, 'latin1');
/** Good rows with keys spread over both shards, in the case's format. */
function good(format: Case['format'], n = 24): string {
  const rows = Array.from({ length: n }, (_, i) =>
    format === 'CSV'
      ? `g${i},v${i},${i},${i}.5,2020-01-01 00:00:0${i % 10}`
      : format === 'TabSeparated'
        ? `g${i}\tv${i}\t${i}\t${i}.5\t2020-01-01 00:00:0${i % 10}`
        : `{"k":"g${i}","s":"v${i}","n":${i},"d":${i}.5,"ts":"2020-01-01 00:00:0${i % 10}"}`,
  );
  return `${rows.join('\n')}\n`;
}

const CASES: Case[] = [
  {
    name: 'CSV raw bytes, spaces around fields',
    format: 'CSV',
    body: bin(`${good('CSV')}a\xff\xfe , \xfe\x80z ,7, 1.25 ,2020-01-02 03:04:05\n "q\xc3(" ,"x""\xff""y", 8 ,2,2020-01-01 00:00:00\r\n`),
  },
  {
    name: 'CSV NULL forms in a String column',
    format: 'CSV',
    body: bin(`${good('CSV')}NULL,NULL,1,1,2020-01-01 00:00:00\n"NULL","NULL",2,1,2020-01-01 00:00:00\nn3,\\N,3,1,2020-01-01 00:00:00\n`),
  },
  {
    name: 'TSV escapes and raw bytes',
    format: 'TabSeparated',
    body: bin(`${good('TabSeparated')}\\xFF\\xfe\t\\t\\\\\\n\xff\t5\t0.5\t2020-01-01 00:00:00\nr\xe9\t\\N\t6\t1\t2020-01-01 00:00:00\n`),
  },
  {
    name: 'JSONEachRow raw bytes, \\u escapes, quoted numbers',
    format: 'JSONEachRow',
    body: bin(`${good('JSONEachRow')}{"k":"\xff\\u00ff","s":"\x80\\ud83d\\ude00","n":"5","d":"2.5","ts":"2020-01-01 00:00:00"}\n`),
  },
  { name: 'CSV Decimal(38,10) too big', format: 'CSV', body: bin(`${good('CSV')}big,x,1,99999999999999999999999999999,2020-01-01 00:00:00\n`) },
  { name: "CSV DateTime 'yesterday'", format: 'CSV', body: bin(`${good('CSV')}y,x,1,1,yesterday\n`) },
  { name: "JSONEachRow DateTime 'yesterday'", format: 'JSONEachRow', body: bin(`${good('JSONEachRow')}{"k":"y","ts":"yesterday"}\n`) },
  { name: 'JSONEachRow a word in a UInt32 column', format: 'JSONEachRow', body: bin(`${good('JSONEachRow')}{"k":"o","n":"x1"}\n`) },
  { name: 'TSV numbers with a bad field', format: 'TabSeparated', body: bin(`${good('TabSeparated')}t\tx\tnope\t1\t2020-01-01 00:00:00\n`) },
];

type Outcome = { ok: true } | { ok: false; code: number };

interface Engine {
  /** The interface's answer to the INSERT of `c`. */
  viaScatter(c: Case, query?: Record<string, string>): Promise<{ status: number; code?: number; text: string }>;
  /** The same INSERT straight into ClickHouse. */
  reference(c: Case): Promise<Outcome>;
  /** Each shard's rows of the local table (ours) and of the reference, as hex, sorted. */
  ours(): Promise<string[][]>;
  theirs(): Promise<string[][]>;
  /** Rows of the local table whose stored key hashes to another shard. */
  misplaced(): Promise<number>;
  clear(): Promise<void>;
}

function runCorpus(engine: () => Engine) {
  for (const c of CASES)
    it(c.name, async () => {
      const e = engine();
      await e.clear();
      const ref = await e.reference(c);
      const mine = await e.viaScatter(c);
      if (ref.ok) {
        expect(mine.status, mine.text).toBe(200);
        expect(await e.ours()).toEqual(await e.theirs());
        expect(await e.misplaced()).toBe(0);
      } else {
        expect({ status: mine.status >= 400, code: mine.code }, mine.text).toEqual({ status: true, code: ref.code });
        expect((await e.ours()).map((rows) => rows.length)).toEqual((await e.ours()).map(() => 0));
      }
    });

  it('a default_format no header can carry is 73, and nothing is committed', async () => {
    const e = engine();
    await e.clear();
    const r = await e.viaScatter({ name: '', format: 'CSV', body: bin(good('CSV')) }, { default_format: 'CSV\r\nX-Injected: 1' });
    expect(r.code, r.text).toBe(73);
    expect((await e.ours()).flat()).toEqual([]);
  });

  it('the same rows in all three formats store the same bytes', async () => {
    const e = engine();
    const stored: string[][][] = [];
    for (const body of [
      'a\xff,\xfe,1,1,2020-01-01 00:00:00\n',
      'a\\xFF\t\xfe\t1\t1\t2020-01-01 00:00:00\n',
      '{"k":"a\xff","s":"\xfe","n":1,"d":1,"ts":"2020-01-01 00:00:00"}\n',
    ]) {
      await e.clear();
      const format = body.startsWith('{') ? 'JSONEachRow' : body.includes('\t') ? 'TabSeparated' : 'CSV';
      const r = await e.viaScatter({ name: '', format, body: bin(body) });
      expect(r.status, r.text).toBe(200);
      stored.push(await e.ours());
    }
    expect(stored[1]).toEqual(stored[0]);
    expect(stored[2]).toEqual(stored[0]);
    expect(stored[0]!.flat().map((r) => r.split('\t').slice(0, 3).join('\t'))).toEqual(['61FF\tFE\t1']);
  });
}

async function ask(deps: ChHttpDeps, c: Case, query: Record<string, string> = {}) {
  const r = await handleClickHouseHttp(
    {
      method: 'POST',
      path: '/',
      query: new URLSearchParams(query),
      headers: {},
      body: Buffer.concat([bin(`INSERT INTO default.ev_dist FORMAT ${c.format}\n`), c.body]),
    },
    deps,
  );
  const code = r.headers['x-clickhouse-exception-code'];
  return { status: r.status, text: r.body.toString('latin1'), ...(code ? { code: Number(code) } : {}) };
}

const rowsOf = (tsv: string) => tsv.split('\n').filter((l) => l !== '');

describe('hostile inserts on chdb shards', () => {
  let cluster: EmbeddedCluster;
  let deps: ChHttpDeps;
  beforeAll(async () => {
    cluster = await startEmbeddedCluster({ shards: 2, withOracle: true });
    await cluster.execAll(`CREATE TABLE default.ev (${COLUMNS}) ENGINE = MergeTree ORDER BY tuple()`);
    await cluster.execAll(`CREATE TABLE default.ref (${COLUMNS}) ENGINE = MergeTree ORDER BY tuple()`);
    deps = interfaceOver(cluster.shards);
  }, 120_000);
  afterAll(async () => {
    await cluster?.stop();
  });
  const tsv = async (a: ClickHouseAccess, sql: string) => rowsOf((await a.queryRaw(sql, { format: 'TSV' })).bytes.toString('latin1'));

  runCorpus(() => ({
    viaScatter: (c, q) => ask(deps, c, q),
    reference: async (c) => {
      try {
        await cluster.oracle!.insert('default.ref', [], { data: { format: c.format, rows: [c.body.subarray(0, c.body.length - 1)] } });
        return { ok: true };
      } catch (e) {
        return { ok: false, code: (e as ClickHouseError).chCode ?? -1 };
      }
    },
    ours: () => Promise.all(cluster.shards.map((s) => tsv(s, `${HEX} default.ev ORDER BY hk, hs, n`))),
    // One engine holds the reference: it is split by ClickHouse's own xxHash64 of the stored key.
    theirs: () => Promise.all([0, 1].map((i) => tsv(cluster.oracle!, `${HEX} default.ref WHERE xxHash64(k) % 2 = ${i} ORDER BY hk, hs, n`))),
    misplaced: async () => {
      let n = 0;
      for (const [i, s] of cluster.shards.entries()) n += Number((await tsv(s, `SELECT count() FROM default.ev WHERE xxHash64(k) % 2 != ${i}`))[0]);
      return n;
    },
    clear: async () => {
      await cluster.execAll('TRUNCATE TABLE default.ev');
      await cluster.execAll('TRUNCATE TABLE default.ref');
    },
  }));
});

describe('hostile inserts on 18.16 shards', () => {
  const servers = useChServers({ n: 2, portBase: 19480 });
  // Writes need the admin user: a request without credentials is the read-only shard user.
  const asAdmin = { 'X-ClickHouse-User': ADMIN.username, 'X-ClickHouse-Key': ADMIN.password };
  let shards: ClickHouseAccess[];
  let deps: ChHttpDeps;
  let hasher: Hasher;
  /** The shard (weights 1, 1) of a stored key given as ClickHouse's hex of its bytes. */
  const shardOfHex = (hk: string) => Number(hasher.h64Raw(Buffer.from(hk, 'hex')) % 2n);
  beforeAll(async () => {
    shards = await Promise.all(servers.current.urls.map((url) => createAccess({ url }, ADMIN)));
    for (const s of shards) {
      await s.exec(`CREATE TABLE default.ev (${COLUMNS}) ENGINE = MergeTree ORDER BY tuple()`);
      await s.exec(`CREATE TABLE default.ref (${COLUMNS}) ENGINE = MergeTree ORDER BY tuple()`);
    }
    hasher = await loadHasher();
    deps = interfaceOver(shards);
  }, 120_000);
  afterAll(async () => {
    await Promise.all((shards ?? []).map((s) => s.close()));
  });
  const tsv = async (i: number, sql: string) => {
    const r = await fetch(`${servers.current.urls[i]}/`, { method: 'POST', headers: asAdmin, body: `${sql} FORMAT TSV` });
    return rowsOf(Buffer.from(await r.arrayBuffer()).toString('latin1'));
  };

  runCorpus(() => ({
    viaScatter: (c, q) => ask(deps, c, q),
    reference: async (c) => {
      const r = await fetch(`${servers.current.urls[0]}/`, {
        method: 'POST',
        headers: asAdmin,
        body: Buffer.concat([bin(`INSERT INTO default.ref FORMAT ${c.format}\n`), c.body]),
      });
      const text = await r.text();
      return r.ok ? { ok: true } : { ok: false, code: Number(/Code: (\d+)/.exec(text)?.[1] ?? -1) };
    },
    ours: () => Promise.all([0, 1].map((i) => tsv(i, `${HEX} default.ev ORDER BY hk, hs, n`))),
    // 18.16 has no xxHash64: one server holds the reference, split by the hash of its stored key bytes.
    theirs: async () => {
      const all = await tsv(0, `${HEX} default.ref ORDER BY hk, hs, n`);
      return [0, 1].map((i) => all.filter((row) => shardOfHex(row.split('\t')[0]!) === i));
    },
    misplaced: async () => {
      let n = 0;
      for (const i of [0, 1]) n += (await tsv(i, 'SELECT hex(k) FROM default.ev')).filter((hk) => shardOfHex(hk) !== i).length;
      return n;
    },
    clear: async () => {
      for (const i of [0, 1]) for (const t of ['ev', 'ref']) await tsv(i, `TRUNCATE TABLE default.${t}`);
    },
  }));
});
