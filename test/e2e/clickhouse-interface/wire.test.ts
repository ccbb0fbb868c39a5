// The binary wire the big drivers read, on the local stack's ClickHouse interface (chdb shards):
//  - Native in the framing of the revision the client names (client_protocol_version), byte for
//    byte: the expected answer is built from ClickHouse's own bytes for each column alone (chdb,
//    revision 0), framed as NativeWriter frames a block for that revision;
//  - replays of clickhouse-go v2 (HTTP), the Java client v2 and clickhouse-connect: the requests
//    their sources send, and the answers decoded the way their sources decode them (each step names
//    its file);
//  - ClickHouse's compressed blocks (compress=1, decompress=1) and the zstd and lz4 HTTP encodings.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cityHash128Bytes } from '../../../shared/core/clickhouse-http/cityhash102.js';
import { compressBlocks, type WireCodecs } from '../../../shared/core/clickhouse-http/block-compression.js';
import { loadWireCodecs } from '../../../functions/coordinator/wire-codecs.js';
import { AUTH_HEADER, ROWS_SQL, startHarness, raw, type Harness } from './support.js';
import { javaLz4, WireReader as Reader } from './java-client.js';
import { strBin, varuint } from '../../support/native-bytes.js';

let h: Harness;
let codecs: WireCodecs;

beforeAll(async () => {
  h = await startHarness();
  codecs = await loadWireCodecs();
  await h.oracle.exec(ROWS_SQL('analytics.events_dist'));
  const lines = (await h.oracle.queryRaw('SELECT * FROM analytics.events_dist', { format: 'JSONEachRow' })).bytes;
  const ins = await fetch(`${h.stack.url}/admin/insert?table=analytics.events_dist`, { method: 'POST', headers: AUTH_HEADER, body: lines });
  expect(ins.status, await ins.clone().text()).toBe(200);
}, 240_000);

afterAll(async () => {
  await h?.stop();
});

// A NULL's hidden nested value is the type's default here (nullIf(v % 3, 0)): the final stage's rows
// pass through stage tables, which keep no hidden values, so if(c, NULL, k) would differ there only.
const CORPUS = `SELECT k, v, x, ts, tags, toLowCardinality(k) AS lc, [toLowCardinality(k)] AS alc, toLowCardinality(toNullable(k)) AS lcn, if(v % 5 = 0, NULL, toLowCardinality(k)) AS lcnn, map(toLowCardinality(k), [toLowCardinality(toString(v % 4))]) AS lcm,
  toNullable(v) AS n, nullIf(v % 3, 0) AS ns, (v, k) AS tup, map(k, v) AS m, toDecimal64(x, 3) AS d,
  toFixedString(substring(k, 1, 3), 3) AS f, toUUID('00000000-0000-0000-0000-000000000001') AS u, toIPv6('::1') AS ip6,
  toIPv4('1.2.3.4') AS ip4, CAST(if(v % 2 = 0, 'a', 'b') AS Enum8('a' = 1, 'b' = 2)) AS e, toDateTime64(ts, 3, 'UTC') AS t64,
  [[v]] AS aa, toInt128(v) AS i128, toUInt256(v) AS u256, toDate(ts) AS dt, toDate32(ts) AS d32, v % 2 = 0 AS b
FROM analytics.events_dist ORDER BY v`;
/** The plain types NativeWriter's recursiveRemoveLowCardinality gives the LowCardinality columns. */
const PLAIN: Record<string, string> = {
  lc: 'String',
  alc: 'Array(String)',
  lcn: 'Nullable(String)',
  lcnn: 'Nullable(String)',
  lcm: 'Map(String, Array(String))',
};
const NAMES = 'k v x ts tags lc alc lcn lcnn lcm n ns tup m d f u ip6 ip4 e t64 aa i128 u256 dt d32 b'.split(' ');

/**
 * What ClickHouse's NativeWriter writes for one block at `revision` (src/Formats/NativeWriter.cpp):
 * BlockInfo::write when revision > 0 (field 1 is_overflows, 2 bucket_num, 3 from 54480, then 0),
 * each column's name, its type (DateTime without its zone below 54337), the custom-serialization
 * byte from 54454, then the data, taken here from chdb's answer for that column alone.
 */
async function expectedNative(revision: number, names: string[]): Promise<Buffer> {
  const parts: Buffer[] = [];
  let rows = -1;
  for (const name of names) {
    // Below 54405 a LowCardinality column is sent as its plain type: ClickHouse's bytes for the CAST to it.
    const plain = revision > 0 && revision < 54405 ? PLAIN[name] : undefined;
    const expr = plain ? `CAST(${name} AS ${plain}) AS ${name}` : name;
    const one = (await h.oracle.queryRaw(`SELECT ${expr} FROM (${CORPUS})`, { format: 'Native' })).bytes;
    const r = new Reader(one);
    expect(r.uvarint()).toBe(1);
    rows = r.uvarint();
    expect(r.str()).toBe(name);
    let type = r.str();
    if (revision < 54337 && type.startsWith('DateTime(')) type = 'DateTime';
    parts.push(strBin(name), strBin(type), revision >= 54454 ? Buffer.of(0) : Buffer.alloc(0), one.subarray(r.pos));
  }
  const info = revision === 0 ? [] : revision >= 54480 ? [1, 0, 2, 0xff, 0xff, 0xff, 0xff, 3, 0, 0] : [1, 0, 2, 0xff, 0xff, 0xff, 0xff, 0];
  return Buffer.concat([Buffer.from(info), varuint(names.length), varuint(rows), ...parts]);
}

describe('Native for the revision the client names', () => {
  it.each([0, 1, 54336, 54337, 54404, 54405, 54453, 54454, 54460, 54479, 54480, 54492])(
    'revision %i: ClickHouse bytes, framed as NativeWriter frames them',
    async (rev) => {
      const names = NAMES;
      const r = await raw(h.stack.url, {
        query: { client_protocol_version: String(rev), default_format: 'Native' },
        body: `SELECT ${names.join(', ')} FROM (${CORPUS})`,
        auth: h.auth,
      });
      expect(r.status, r.body.toString()).toBe(200);
      expect(r.body.equals(await expectedNative(rev, names))).toBe(true);
    },
  );

  it('a revision that is not a number is 27, a type that cannot be walked (an aggregate state) is 48, never wrong bytes', async () => {
    const bad = await raw(h.stack.url, { query: { client_protocol_version: 'abc', default_format: 'Native' }, body: 'SELECT 1', auth: h.auth });
    expect(bad.headers.get('x-clickhouse-exception-code')).toBe('27');
    const state = await raw(h.stack.url, {
      query: { client_protocol_version: '54460', default_format: 'Native' },
      body: 'SELECT uniqState(v) AS s FROM analytics.events_dist',
      auth: h.auth,
    });
    expect(state.headers.get('x-clickhouse-exception-code')).toBe('48');
  });
});

/**
 * clickhouse-go v2 over HTTP. conn_http.go dialHttp: every URL carries default_format=Native and
 * client_protocol_version=ClientTCPProtocolVersion (client_info.go: proto.DBMS_TCP_PROTOCOL_VERSION,
 * lib/proto/const.go: 54460); queryHello sends `SELECT displayName(), version(), revision(),
 * timezone()` and later answers are decoded at the revision() it read. conn_http_query.go query()
 * adds compress=1 for LZ4 and ZSTD; readData decodes through ch-go's compressed reader.
 */
describe('clickhouse-go v2 (HTTP)', () => {
  const GO_PARAMS = { default_format: 'Native', client_protocol_version: '54460' };

  /** lib/proto/block.go Block.Decode with decodeBlockInfo, for the columns this test reads (String, UInt32, UInt64). */
  function goDecode(body: Buffer, revision: number) {
    const r = new Reader(body);
    const blocks: { names: string[]; types: string[]; rows: unknown[][] }[] = [];
    while (!r.done) {
      if (revision > 0) {
        // decodeBlockInfo: UVarInt, Bool, UVarInt, Int32, UVarInt.
        expect(r.uvarint()).toBe(1);
        r.u8();
        expect(r.uvarint()).toBe(2);
        r.i32();
        expect(r.uvarint()).toBe(0);
      }
      const cols = r.uvarint();
      const rows = r.uvarint();
      const b = { names: [] as string[], types: [] as string[], rows: Array.from({ length: rows }, () => [] as unknown[]) };
      for (let c = 0; c < cols; c++) {
        b.names.push(r.str());
        const type = r.str();
        b.types.push(type);
        // DBMS_MIN_REVISION_WITH_CUSTOM_SERIALIZATION: hasCustom must be false (the driver refuses custom serialization).
        if (revision >= 54454) expect(r.u8()).toBe(0);
        for (let i = 0; i < rows; i++) {
          if (type === 'String') b.rows[i]!.push(r.str());
          else if (type === 'UInt32') b.rows[i]!.push(r.u32());
          else if (type === 'UInt64') b.rows[i]!.push(r.u64());
          else throw new Error(`the replay reads no ${type}`);
        }
      }
      blocks.push(b);
    }
    return blocks;
  }

  /** ch-go compress.Reader: checksum (city.CH128), method byte, sizes, then LZ4 / ZSTD / none. */
  function chGoDecompress(body: Buffer): Buffer {
    const out: Buffer[] = [];
    for (let p = 0; p < body.length; ) {
      const size = body.readUInt32LE(p + 17);
      const raw = body.readUInt32LE(p + 21);
      const block = body.subarray(p + 16, p + 16 + size);
      expect(cityHash128Bytes(block).equals(body.subarray(p, p + 16))).toBe(true);
      const method = block[0];
      const data = block.subarray(9);
      out.push(method === 0x82 ? codecs.lz4Block.decompress(data, raw) : method === 0x90 ? codecs.zstd.decompress(data, raw) : Buffer.from(data));
      p += 16 + size;
    }
    return Buffer.concat(out);
  }

  let revision = 0;
  it('the handshake: one block, four columns, revision() at least the custom-serialization revision', async () => {
    const r = await raw(h.stack.url, { query: GO_PARAMS, body: 'SELECT displayName(), version(), revision(), timezone()', auth: h.auth });
    expect(r.status, r.body.toString()).toBe(200);
    const [b] = goDecode(r.body, 54460);
    expect(b!.types).toEqual(['String', 'String', 'UInt32', 'String']);
    const [displayName, version, rev, tz] = b!.rows[0]!;
    const oracle = JSON.parse((await h.oracle.queryRaw('SELECT version() AS v, timezone() AS t', { format: 'JSONEachRow' })).bytes.toString());
    expect({ displayName, version, tz }).toEqual({ displayName: 'ch-scatter', version: oracle.v, tz: oracle.t });
    revision = rev as number;
    expect(revision).toBeGreaterThanOrEqual(54454);
  });

  it.each(['lz4', 'zstd'])('a query with compression %s (compress=1), decoded at the handshake revision', async () => {
    const sql = 'SELECT k, count() AS c, sum(v) AS s FROM analytics.events_dist GROUP BY k ORDER BY k';
    const r = await raw(h.stack.url, { query: { ...GO_PARAMS, compress: '1' }, body: sql, auth: h.auth });
    expect(r.status).toBe(200);
    const rows = goDecode(chGoDecompress(r.body), revision || 54460).flatMap((b) => b.rows);
    const want = (await h.oracle.queryRaw(sql, { format: 'JSONCompactEachRow' })).bytes
      .toString()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as [string, string, string]);
    expect(rows.map(([k, c, s]) => [k, String(c), String(s)])).toEqual(want.map(([k, c, s]) => [k, String(c), String(s)]));
  });

  // grafana/clickhouse-datasource pkg/plugin/driver.go: over HTTP, Compression GZIP, which conn_http_query.go
  // query() sends as Accept-Encoding: gzip alone (ClickHouse then answers plain, and NewReader reads it
  // raw); a data source custom setting enable_http_compression=1 turns the gzip on.
  it.each<Record<string, string>>([{}, { enable_http_compression: '1' }])("Grafana's HTTP data source (gzip asked, %o)", async (extra) => {
    const sql = 'SELECT k, count() AS c FROM analytics.events_dist GROUP BY k ORDER BY k';
    const r = await raw(h.stack.url, { query: { ...GO_PARAMS, ...extra }, headers: { 'accept-encoding': 'gzip' }, body: sql, auth: h.auth });
    expect(r.status).toBe(200);
    const gz = r.headers.get('content-encoding') === 'gzip';
    expect(gz).toBe('enable_http_compression' in extra);
    // fetch undoes a gzip Content-Encoding itself, as Go's reader does (conn_http.go NewReader).
    const rows = goDecode(r.body, revision || 54460).flatMap((b) => b.rows);
    expect(rows).toHaveLength(20);
    expect(rows[0]).toEqual(['k-0', 10n]);
  });
});

/**
 * The Java client v2 (DBeaver's and Metabase's JDBC v2 sits on it). HttpAPIClientHelper
 * addRequestParams: compress=1 (ClientConfigProperties COMPRESS_SERVER_RESPONSE defaults to true),
 * the X-ClickHouse-Format header RowBinaryWithNamesAndTypes and X-ClickHouse-Database. The answer is
 * read through ClickHouseLZ4InputStream (refill: a 25-byte header whose byte 16 must be 0x82, the
 * compressed size with the 9-byte header at 17, the uncompressed size at 21) and
 * RowBinaryWithNamesAndTypesFormatReader (column count, names, types, then RowBinary rows).
 */
describe('Java client v2 / JDBC v2', () => {
  it('compress=1 answers in LZ4 blocks, RowBinaryWithNamesAndTypes read as its reader reads it', async () => {
    const sql = 'SELECT k, toUInt32(count()) AS c, sum(v) AS s FROM events_dist GROUP BY k ORDER BY k';
    const r = await raw(h.stack.url, {
      query: { compress: '1' },
      headers: { 'x-clickhouse-format': 'RowBinaryWithNamesAndTypes', 'x-clickhouse-database': 'analytics' },
      body: sql,
      auth: h.auth,
    });
    expect(r.status, r.body.toString()).toBe(200);
    const rb = new Reader(javaLz4(r.body, codecs));
    const n = rb.uvarint();
    const names = Array.from({ length: n }, () => rb.str());
    const types = Array.from({ length: n }, () => rb.str());
    expect({ names, types }).toEqual({ names: ['k', 'c', 's'], types: ['String', 'UInt32', 'UInt64'] });
    const rows: [string, number, string][] = [];
    while (!rb.done) rows.push([rb.str(), rb.u32(), String(rb.u64())]);
    const want = (await h.oracle.queryRaw(sql.replace('events_dist', 'analytics.events_dist'), { format: 'JSONCompactEachRow' })).bytes
      .toString()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as [string, number, string]);
    expect(rows).toEqual(want.map(([k, c, s]) => [k, c, String(s)]));
  });

  it('decompress=1: a request body in ClickHouse blocks (COMPRESS_CLIENT_REQUEST, LZ4Entity)', async () => {
    const r = await raw(h.stack.url, {
      query: { decompress: '1' },
      body: compressBlocks(Buffer.from('SELECT count() FROM analytics.events_dist'), 'lz4', codecs),
      auth: h.auth,
    });
    expect({ status: r.status, body: r.body.toString() }).toEqual({ status: 200, body: '200\n' });
  });
});

/**
 * clickhouse-connect (Superset). driver/_backend/orchestration.py probes with
 * client_protocol_version=54405 (PROTOCOL_VERSION_WITH_LOW_CARD) and FORMAT Native, and keeps the
 * revision when bytes 8..16 of the answer are 01 01 05 'check'; driver/transform.py then skips an
 * 8-byte block info before each block (context.block_info). HTTP compression: httpcommon.py sends
 * Accept-Encoding (lz4 first) with enable_http_compression=1 and reads lz4 as an LZ4 frame.
 */
describe('clickhouse-connect', () => {
  it('the protocol probe passes: BlockInfo, then one column named check', async () => {
    const r = await raw(h.stack.url, { query: { client_protocol_version: '54405' }, body: 'SELECT 1 AS check FORMAT Native', auth: h.auth });
    expect(r.body.subarray(8, 16).equals(Buffer.from('\x01\x01\x05check', 'latin1'))).toBe(true);
  });

  it.each(['lz4', 'zstd'])('Accept-Encoding %s with enable_http_compression=1: the frame decodes to the plain answer', async (enc) => {
    const sql = 'SELECT k, v FROM analytics.events_dist ORDER BY v FORMAT TSV';
    const plain = await raw(h.stack.url, { body: sql, auth: h.auth });
    const r = await raw(h.stack.url, { query: { enable_http_compression: '1' }, headers: { 'accept-encoding': enc }, body: sql, auth: h.auth });
    expect(r.headers.get('content-encoding')).toBe(enc);
    const back = enc === 'lz4' ? codecs.lz4Frame.decompress(r.body) : codecs.zstd.decompress(r.body);
    expect(back.equals(plain.body)).toBe(true);
    expect(r.body.length).toBeLessThan(plain.body.length);
  });

  it.each(['lz4', 'zstd'])('a request body with Content-Encoding %s', async (enc) => {
    const body = Buffer.from(`SELECT count() FROM analytics.events_dist WHERE k != '${'x'.repeat(5000)}'`);
    const packed = enc === 'lz4' ? codecs.lz4Frame.compress(body) : codecs.zstd.compress(body, 3);
    const r = await raw(h.stack.url, { headers: { 'content-encoding': enc }, body: packed, auth: h.auth });
    expect({ status: r.status, body: r.body.toString() }).toEqual({ status: 200, body: '200\n' });
    const bad = await raw(h.stack.url, { headers: { 'content-encoding': enc }, body: Buffer.from('not compressed at all'), auth: h.auth });
    expect(bad.headers.get('x-clickhouse-exception-code')).toBe('36');
  });
});
