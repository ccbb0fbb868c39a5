// The binary wire on a clickhouse-server 18.16 shard: 18.16 answers 115 for client_protocol_version
// (it has no such parameter), so the interface frames 18.16's revision-0 Native itself; the answer is
// 18.16's bytes for each column, framed as NativeWriter frames a block for the revision (LowCardinality as
// its plain type below 54405: 18.16 keeps it whatever low_cardinality_allow_in_native_format says). The
// handshake clickhouse-go sends decodes, and compress=1 answers are ClickHouse blocks 18.16 reads back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccess } from '../../shared/adapters/clickhouse/factory.js';
import type { ClickHouseAccess } from '../../shared/core/clickhouse/port.js';
import { parseTopology } from '../../shared/core/config/load.js';
import { handleClickHouseHttp, type ChHttpDeps } from '../../shared/core/clickhouse-http/handle.js';
import { decompressBlocks } from '../../shared/core/clickhouse-http/block-compression.js';
import { loadWireCodecs } from '../../functions/coordinator/wire-codecs.js';
import { useChServers } from '../support/ch-servers.js';
import { strBin, varuint } from '../support/native-bytes.js';

const servers = useChServers({ n: 1, portBase: 21402 });
let ch: ClickHouseAccess;
let deps: ChHttpDeps;

const topo = parseTopology({
  cluster: 'c',
  shards: [{ replicas: [{ url: 'http://x:8123' }] }],
  tables: { 'analytics.events_dist': { local: 'analytics.events', shardingKey: { column: 'k', type: 'String', function: 'xxHash64' } } },
});

beforeAll(async () => {
  ch = await createAccess({ url: servers.current.urls[0]! });
  deps = { topo, raw: (sql, o) => ch.queryRaw(sql, { format: o.format, settings: { readonly: 2, ...o.settings } }), loadCodecs: loadWireCodecs };
});
afterAll(async () => {
  await ch?.close();
});

async function ask(sql: string, query: Record<string, string> = {}) {
  const r = await handleClickHouseHttp({ method: 'POST', path: '/', query: new URLSearchParams(query), headers: {}, body: Buffer.from(sql) }, deps);
  return { status: r.status, body: r.body, headers: r.headers };
}

const COLUMNS: [string, string][] = [
  ['n', 'number'],
  ['s', 'toString(number)'],
  ['lc', 'toLowCardinality(toString(number % 3))'],
  ['a', '[number, number * 2]'],
  ['t', "toDateTime(number, 'UTC')"],
  ['x', 'if(number % 2 = 0, NULL, number)'],
];
const corpus = (names = COLUMNS.map(([n]) => n)) =>
  `SELECT ${COLUMNS.filter(([n]) => names.includes(n))
    .map(([n, e]) => `${e} AS ${n}`)
    .join(', ')} FROM system.numbers LIMIT 5`;

describe('Native framing over 18.16 bytes', () => {
  it('18.16 itself refuses client_protocol_version (115): the framing cannot come from the engine', async () => {
    const r = await fetch(`${servers.current.urls[0]}/?client_protocol_version=54460`, { method: 'POST', body: 'SELECT 1' });
    expect(await r.text()).toMatch(/^Code: 115\b/);
  });

  it('below 54337 DateTime loses its time zone', async () => {
    const plain = await ask(corpus(['n', 's', 't']), { client_protocol_version: '54336', default_format: 'Native' });
    expect(plain.status).toBe(200);
    expect(plain.body.toString('latin1')).toContain('\x01t\x08DateTime');
  });

  it.each([54404, 54405, 54460])('revision %i: 18.16 bytes per column, framed', async (rev) => {
    const r = await ask(corpus(), { client_protocol_version: String(rev), default_format: 'Native' });
    expect(r.status, r.body.toString()).toBe(200);
    const parts: Buffer[] = [];
    let rows = 0;
    for (const [name] of COLUMNS) {
      // Below 54405 LowCardinality goes as its plain type: 18.16's bytes for the plain column.
      const sql = rev < 54405 && name === 'lc' ? 'SELECT toString(number % 3) AS lc FROM system.numbers LIMIT 5' : corpus([name]);
      const one = (await ch.queryRaw(sql, { format: 'Native', settings: { readonly: 2 } })).bytes;
      // One column: 01, the row count (one byte for 5), then the name and the type as written.
      rows = one[1]!;
      const nameLen = one[2]!;
      const typeLen = one[3 + nameLen]!;
      const head = 4 + nameLen + typeLen;
      const type = one.toString('utf8', 4 + nameLen, head);
      parts.push(strBin(name), strBin(type), rev >= 54454 ? Buffer.of(0) : Buffer.alloc(0), one.subarray(head));
    }
    const want = Buffer.concat([Buffer.from([1, 0, 2, 0xff, 0xff, 0xff, 0xff, 0]), varuint(COLUMNS.length), varuint(rows), ...parts]);
    expect(r.body.equals(want)).toBe(true);
  });

  it("clickhouse-go's handshake: four columns, the 18.16 version, a revision with the custom-serialization byte", async () => {
    const r = await ask('SELECT displayName(), version(), revision(), timezone()', { client_protocol_version: '54460', default_format: 'Native' });
    expect(r.status, r.body.toString()).toBe(200);
    const text = r.body.toString('latin1');
    expect(text).toContain('\x0ddisplayName()\x06String\x00\x0ach-scatter');
    expect(text).toMatch(/version\(\).String.{2}18\.16\./s);
    expect(text).toContain('\x0arevision()\x06UInt32\x00');
  });

  it('compress=1: LZ4 blocks holding the same answer', async () => {
    const plain = await ask(corpus(), { default_format: 'TSV' });
    const packed = await ask(corpus(), { default_format: 'TSV', compress: '1' });
    expect(packed.body[16]).toBe(0x82);
    expect(decompressBlocks(packed.body, await loadWireCodecs(), 1 << 20).equals(plain.body)).toBe(true);
  });
});
