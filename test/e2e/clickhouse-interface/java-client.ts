// The Java client v2 on the wire (ClickHouse/clickhouse-java client-v2; JDBC v2, and so DBeaver and
// Metabase, sit on it), for replays against the ClickHouse interface:
//  - a query request as client-v2/.../internal/HttpAPIClientHelper.java executeRequest builds it
//    (addQueryParams: query_id, compress=1 since COMPRESS_SERVER_RESPONSE defaults to true, then the
//    request's server settings, the keys with the `clickhouse_setting_` prefix; addHeaders: the
//    X-ClickHouse-Format, -Query-Id and -Database headers, Basic authorization, the User-Agent led by
//    the client name); Client.query sets RowBinaryWithNamesAndTypes when no format is given;
//  - the answer read as ClickHouseLZ4InputStream (refill) unpacks it and as
//    RowBinaryWithNamesAndTypesFormatReader / BinaryStreamReader read its columns.
import type { WireCodecs } from '../../../shared/core/clickhouse-http/block-compression.js';
import { raw } from './support.js';

/** A reader over an answer, with the primitive reads the drivers' readers use. */
export class WireReader {
  pos = 0;
  constructor(readonly b: Buffer) {}
  uvarint(): number {
    let v = 0;
    let mul = 1;
    for (;;) {
      const x = this.b[this.pos++]!;
      if (x === undefined) throw new Error('EOF');
      v += (x & 0x7f) * mul;
      if (!(x & 0x80)) return v;
      mul *= 128;
    }
  }
  str(): string {
    return this.bytes(this.uvarint()).toString('utf8');
  }
  u8(): number {
    return this.b[this.pos++]!;
  }
  i32(): number {
    const v = this.b.readInt32LE(this.pos);
    this.pos += 4;
    return v;
  }
  u32(): number {
    const v = this.b.readUInt32LE(this.pos);
    this.pos += 4;
    return v;
  }
  u64(): bigint {
    const v = this.b.readBigUInt64LE(this.pos);
    this.pos += 8;
    return v;
  }
  bytes(n: number): Buffer {
    if (this.pos + n > this.b.length) throw new Error('EOF');
    const s = this.b.subarray(this.pos, this.pos + n);
    this.pos += n;
    return s;
  }
  get done() {
    return this.pos >= this.b.length;
  }
}

/** ClickHouseLZ4InputStream.refill: a 25-byte header whose byte 16 must be 0x82, then the LZ4 block. */
export function javaLz4(body: Buffer, codecs: WireCodecs): Buffer {
  const out: Buffer[] = [];
  for (let p = 0; p < body.length; ) {
    if (body[p + 16] !== 0x82) throw new Error(`Invalid LZ4 magic byte: '${body[p + 16]}'`);
    const size = body.readInt32LE(p + 17);
    const rawSize = body.readInt32LE(p + 21);
    out.push(codecs.lz4Block.decompress(body.subarray(p + 25, p + 16 + size), rawSize));
    p += 16 + size;
  }
  return Buffer.concat(out);
}

export interface JavaQuery {
  sql: string;
  /** X-ClickHouse-Database: the statement's schema (StatementImpl.executeQuery sets the connection's). */
  database: string;
  /** StatementImpl sets one per statement (a UUID); Client.loadServerInfo sends none. */
  queryId?: string;
  /** Server settings of the request (ConnectionImpl's defaults, setMaxRows' max_result_rows, ...), in order. */
  settings?: [string, string][];
  /** ConnectionImpl: the application name (product_name / client_name) before the driver's own name. */
  clientName?: string;
}

export interface JavaAnswer {
  status: number;
  headers: Headers;
  /** The answer unpacked from ClickHouse's LZ4 blocks (a 200); an error's text as sent. */
  body: Buffer;
}

/** One request exactly as the Java client v2 (0.8.4) sends it over HTTP, with its default compress=1. */
export async function javaQuery(url: string, auth: { username: string; password: string }, q: JavaQuery, codecs: WireCodecs): Promise<JavaAnswer> {
  const params: Record<string, string> = {};
  if (q.queryId) params.query_id = q.queryId;
  params.compress = '1';
  for (const [k, v] of q.settings ?? []) params[k] = v;
  const userAgent = `${q.clientName ? `${q.clientName} ` : ''}ClickHouse JDBC Driver V2/0.8.4 clickhouse-java-v2/0.8.4 (Linux; jvm:17)`;
  const headers: Record<string, string> = {
    'content-type': 'text/plain',
    'x-clickhouse-format': 'RowBinaryWithNamesAndTypes',
    ...(q.queryId ? { 'x-clickhouse-query-id': q.queryId } : {}),
    'x-clickhouse-database': q.database,
    'user-agent': userAgent,
  };
  const r = await raw(url, { query: params, headers, body: q.sql, auth });
  const errored = r.status >= 400 || r.headers.has('x-clickhouse-exception-code');
  return { status: r.status, headers: r.headers, body: errored ? r.body : javaLz4(r.body, codecs) };
}

export interface RowBinaryAnswer {
  names: string[];
  types: string[];
  rows: unknown[][];
}

/** Top-level parts of a type's argument list. */
function typeArgs(t: string): string[] {
  const inner = t.slice(t.indexOf('(') + 1, -1);
  const out: string[] = [];
  let depth = 0;
  let quote = false;
  let start = 0;
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i]!;
    if (quote) {
      if (c === '\\') i++;
      else if (c === "'") quote = false;
    } else if (c === "'") quote = true;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      out.push(inner.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(inner.slice(start).trim());
  return out;
}

const isoDate = (days: number) => new Date(days * 86_400_000).toISOString().slice(0, 10);

/**
 * One value of `type` as BinaryStreamReader.readValue reads it, in a form the test compares: numbers
 * up to 32 bits as numbers, wider ones as their decimal text, a DateTime as its instant (seconds),
 * an Enum as its name, a LowCardinality as its plain type (RowBinary carries no dictionary).
 */
function readValue(r: WireReader, type: string): unknown {
  const name = type.includes('(') ? type.slice(0, type.indexOf('(')) : type;
  switch (name) {
    case 'Nullable':
      return r.u8() === 1 ? null : readValue(r, typeArgs(type)[0]!);
    case 'LowCardinality':
      return readValue(r, typeArgs(type)[0]!);
    case 'Nothing':
      r.u8();
      return null;
    case 'String':
      return r.str();
    case 'FixedString':
      return r.bytes(Number(typeArgs(type)[0])).toString('utf8');
    case 'Bool':
      return r.u8() !== 0;
    case 'UInt8':
      return r.u8();
    case 'Int8':
      return r.bytes(1).readInt8(0);
    case 'UInt16':
      return r.bytes(2).readUInt16LE(0);
    case 'Int16':
      return r.bytes(2).readInt16LE(0);
    case 'UInt32':
      return r.u32();
    case 'Int32':
      return r.i32();
    case 'UInt64':
      return r.u64().toString();
    case 'Int64':
      return r.bytes(8).readBigInt64LE(0).toString();
    case 'Float32':
      return r.bytes(4).readFloatLE(0);
    case 'Float64':
      return r.bytes(8).readDoubleLE(0);
    case 'Date':
      return isoDate(r.bytes(2).readUInt16LE(0));
    case 'Date32':
      return isoDate(r.i32());
    case 'DateTime':
      return r.u32();
    case 'DateTime64':
      return r.bytes(8).readBigInt64LE(0).toString();
    case 'Decimal': {
      const p = Number(typeArgs(type)[0]);
      const b = r.bytes(p <= 9 ? 4 : p <= 18 ? 8 : 16);
      return (
        b.length === 4 ? BigInt(b.readInt32LE(0)) : b.length === 8 ? b.readBigInt64LE(0) : b.readBigInt64LE(8) * 2n ** 64n + b.readBigUInt64LE(0)
      ).toString();
    }
    case 'Enum8':
    case 'Enum16': {
      const code = name === 'Enum8' ? r.bytes(1).readInt8(0) : r.bytes(2).readInt16LE(0);
      for (const e of typeArgs(type)) {
        const m = /^'((?:[^'\\]|\\.)*)'\s*=\s*(-?\d+)$/.exec(e);
        if (m && Number(m[2]) === code) return m[1];
      }
      throw new Error(`no ${code} in ${type}`);
    }
    case 'UUID': {
      const b = r.bytes(16);
      const hex = Buffer.concat([Buffer.from(b.subarray(0, 8)).reverse(), Buffer.from(b.subarray(8)).reverse()]).toString('hex');
      return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    }
    case 'IPv4': {
      const v = r.u32();
      return [v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255].join('.');
    }
    case 'Array': {
      const n = r.uvarint();
      const el = typeArgs(type)[0]!;
      return Array.from({ length: n }, () => readValue(r, el));
    }
    case 'Map': {
      const [k, v] = typeArgs(type);
      const n = r.uvarint();
      return Array.from({ length: n }, () => [readValue(r, k!), readValue(r, v!)]);
    }
    case 'Tuple':
      return typeArgs(type).map((e) => readValue(r, e.replace(/^[A-Za-z_][A-Za-z0-9_]*\s+(?=\S)/, '')));
  }
  throw new Error(`the replay reads no ${type}`);
}

/** RowBinaryWithNamesAndTypesFormatReader: the column count, names, types, then RowBinary rows. */
export function readRowBinaryWithNamesAndTypes(body: Buffer): RowBinaryAnswer {
  const r = new WireReader(body);
  const n = r.uvarint();
  const names = Array.from({ length: n }, () => r.str());
  const types = Array.from({ length: n }, () => r.str());
  const rows: unknown[][] = [];
  while (!r.done) rows.push(types.map((t) => readValue(r, t)));
  return { names, types, rows };
}
