// External data (ClickHouse's temporary tables sent with a query) on the local stack's ClickHouse
// interface (two chdb shards): each answer is compared byte for byte with one chdb engine holding
// every row (the oracle), given the same tables as sent. Covered: FROM, IN, JOIN and the final stage
// reading them; a query over external data alone; the `_types` form; the forms of clickhouse-connect
// and clickhouse-go, replayed from their sources; ClickHouse's errors; the transfer limits.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExternalTable } from '../../../shared/core/clickhouse/port.js';
import { AUTH_HEADER, ROWS_SQL, startHarness, raw, type Harness } from './support.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ streamPort: 0 });
  await h.oracle.exec(ROWS_SQL('analytics.events_dist'));
  const lines = (await h.oracle.queryRaw('SELECT * FROM analytics.events_dist', { format: 'JSONEachRow' })).bytes;
  const ins = await fetch(`${h.stack.url}/admin/insert?table=analytics.events_dist`, { method: 'POST', headers: AUTH_HEADER, body: lines });
  expect(ins.status, await ins.clone().text()).toBe(200);
}, 240_000);

afterAll(async () => {
  await h?.stop();
});

interface Part {
  name: string;
  /** Present (even empty) on a file part. */
  filename?: string;
  contentType?: string;
  data: string | Buffer;
}

/** A multipart body as urllib3's encode_multipart_formdata writes it (clickhouse-connect's transport). */
function urllib3Body(parts: Part[], boundary: string): Buffer {
  const out: Buffer[] = [];
  for (const p of parts) {
    const disposition = `form-data; name="${p.name}"${p.filename !== undefined ? `; filename="${p.filename}"` : ''}`;
    out.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${p.contentType ? `Content-Type: ${p.contentType}\r\n` : ''}\r\n`));
    out.push(Buffer.from(p.data), Buffer.from('\r\n'));
  }
  out.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(out);
}

/** As Go's mime/multipart.Writer writes it (clickhouse-go): CRLF before every delimiter but the first. */
function goBody(parts: Part[], boundary: string): Buffer {
  const out: Buffer[] = [];
  parts.forEach((p, i) => {
    const disposition = `form-data; name="${p.name}"${p.filename !== undefined ? `; filename="${p.filename}"` : ''}`;
    out.push(
      Buffer.from(
        `${i > 0 ? '\r\n' : ''}--${boundary}\r\nContent-Disposition: ${disposition}\r\n${p.contentType ? `Content-Type: ${p.contentType}\r\n` : ''}\r\n`,
      ),
    );
    out.push(Buffer.from(p.data));
  });
  out.push(Buffer.from(`\r\n--${boundary}--\r\n`));
  return Buffer.concat(out);
}

/** The table as the oracle receives it: the same bytes, format and structure. */
function sent(name: string, structure: { name: string; type: string }[], format: string, data: string | Buffer): ExternalTable {
  return { name, columns: structure, rows: [], data: { format, base64: Buffer.from(data).toString('base64') } };
}

const IDS = 'k-1\nk-3\nk-7\nk-19\n';
const LABELS = '1,"one"\n5,"five, with a comma"\n42,"forty-two"\n199,"last"\n';
const LABEL_COLUMNS = [
  { name: 'v', type: 'UInt32' },
  { name: 'label', type: 'String' },
];

/** The two tables as a curl -F request sends them, the query in the URL. */
async function ask(sql: string, extra: Record<string, string> = {}) {
  const boundary = '------------------------d74496d66958873e';
  const body = urllib3Body(
    [
      { name: 'ids', filename: 'ids.tsv', contentType: 'application/octet-stream', data: IDS },
      { name: 'labels', filename: 'labels.csv', contentType: 'text/csv', data: LABELS },
    ],
    boundary,
  );
  return raw(h.stack.url, {
    query: { query: sql, ids_structure: 'k String', labels_structure: 'v UInt32, label String', labels_format: 'CSV', ...extra },
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    body,
    auth: h.auth,
  });
}

async function oracle(sql: string, format = 'TabSeparated') {
  const external = [sent('ids', [{ name: 'k', type: 'String' }], 'TabSeparated', IDS), sent('labels', LABEL_COLUMNS, 'CSV', LABELS)];
  return (await h.oracle.queryRaw(sql, { format, external })).bytes.toString('utf8');
}

describe('external data answered as one ClickHouse holding every row answers it', () => {
  it.each([
    ['IN a table name', 'SELECT k, count() AS c, sum(v) AS s FROM analytics.events_dist WHERE k IN ids GROUP BY k ORDER BY k'],
    ['NOT IN a table name', 'SELECT count() FROM analytics.events_dist WHERE k NOT IN ids'],
    ['IN (SELECT ... FROM it)', 'SELECT k, v FROM analytics.events_dist WHERE v IN (SELECT v FROM labels) ORDER BY v'],
    ['JOIN', 'SELECT e.v, e.k, l.label FROM analytics.events_dist AS e INNER JOIN labels AS l ON e.v = l.v ORDER BY e.v'],
    ['LEFT JOIN with its own columns', 'SELECT v, label, k FROM analytics.events_dist LEFT JOIN labels USING (v) WHERE v < 6 ORDER BY v'],
    ['the final stage (HAVING) reads it', 'SELECT k, count() AS c FROM analytics.events_dist GROUP BY k HAVING k IN ids ORDER BY k'],
    ['both tables in one query', 'SELECT count(), sum(v) FROM analytics.events_dist WHERE k IN ids OR v IN (SELECT v FROM labels)'],
    ['external data alone runs on one engine', 'SELECT * FROM labels ORDER BY v DESC'],
    ['external data alone, joined with itself', 'SELECT l.label, i.k FROM labels AS l CROSS JOIN ids AS i ORDER BY l.v, i.k LIMIT 5'],
  ])('%s', async (_what, sql) => {
    const r = await ask(sql);
    expect(r.status, r.body.toString()).toBe(200);
    expect(r.body.toString()).toBe(await oracle(sql));
    expect(r.body.length).toBeGreaterThan(1);
  });

  // Over a JOIN with external data, the column names too: `l.*` beside other columns, one column by two
  // names, and a column of the later table that the first has too (ClickHouse names it `l.v`).
  it.each([
    ['t.* beside other columns', 'SELECT l.*, e.k FROM analytics.events_dist AS e INNER JOIN labels AS l ON e.v = l.v ORDER BY e.v, e.k'],
    [
      'the qualified and the bare name of one column',
      'SELECT l.label, label, e.v FROM analytics.events_dist AS e INNER JOIN labels AS l ON e.v = l.v ORDER BY e.v, e.k',
    ],
    [
      "a later table's column the first has too",
      'SELECT l.v, v, upper(l.label) FROM analytics.events_dist AS e INNER JOIN labels AS l ON e.v = l.v ORDER BY e.v, e.k',
    ],
    // Aliases that lead round through a name no table has (`y`): `label` reads the external table's column, as it declares it.
    ['aliases that lead round', 'SELECT label AS y, y AS label, e.k FROM analytics.events_dist AS e INNER JOIN labels AS l ON e.v = l.v ORDER BY e.v, e.k'],
  ])('names: %s', async (_what, sql) => {
    const r = await ask(sql, { default_format: 'TabSeparatedWithNamesAndTypes' });
    expect(r.status, r.body.toString()).toBe(200);
    expect(r.body.toString()).toBe(await oracle(sql, 'TabSeparatedWithNamesAndTypes'));
    expect(r.body.toString().split('\n').length).toBeGreaterThan(3);
  });

  it('the `_types` form names the columns _1, _2, ...; JSONEachRow and the answer format from the URL', async () => {
    const boundary = 'b0';
    const data = '{"_1":3,"_2":"x"}\n{"_1":4,"_2":"y"}\n';
    const sql = 'SELECT _1, _2, k FROM analytics.events_dist AS e JOIN t ON e.v = t._1 ORDER BY _1';
    const r = await raw(h.stack.url, {
      query: { query: sql, t_types: 'UInt32,String', t_format: 'JSONEachRow', default_format: 'JSONCompactEachRow' },
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: urllib3Body([{ name: 't', filename: 't.json', data }], boundary),
      auth: h.auth,
    });
    expect(r.status, r.body.toString()).toBe(200);
    const want = await h.oracle.queryRaw(sql, {
      format: 'JSONCompactEachRow',
      external: [
        sent(
          't',
          [
            { name: '_1', type: 'UInt32' },
            { name: '_2', type: 'String' },
          ],
          'JSONEachRow',
          data,
        ),
      ],
    });
    expect(r.body.toString()).toBe(want.bytes.toString());
  });

  it('a table larger than the parser limit (max_query_size, 256 KiB) on chdb shards, which read it inline', async () => {
    const many = Array.from({ length: 60_000 }, (_, i) => `k-${i}`).join('\n') + '\n';
    const boundary = 'b3';
    for (const sql of ['SELECT count(), sum(v) FROM analytics.events_dist WHERE k IN big', 'SELECT count(), max(k) FROM big']) {
      const r = await raw(h.stack.url, {
        query: { query: sql, big_structure: 'k String' },
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
        body: urllib3Body([{ name: 'big', filename: 'big.tsv', data: many }], boundary),
        auth: h.auth,
      });
      expect(r.status, r.body.toString().slice(0, 300)).toBe(200);
      const want = await h.oracle.queryRaw(sql, { format: 'TabSeparated', external: [sent('big', [{ name: 'k', type: 'String' }], 'TabSeparated', many)] });
      expect(r.body.toString()).toBe(want.bytes.toString());
    }
  });

  it('the streaming door answers it whole, the same bytes', async () => {
    const sql = 'SELECT k, count() AS c FROM analytics.events_dist WHERE k IN ids GROUP BY k ORDER BY k';
    const boundary = 'b2';
    const r = await raw(h.stack.streamUrl!, {
      query: { query: sql, ids_structure: 'k String' },
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: urllib3Body([{ name: 'ids', filename: 'ids.tsv', data: IDS }], boundary),
      auth: h.auth,
    });
    expect(r.status, r.body.toString()).toBe(200);
    expect(r.body.toString()).toBe(await oracle(sql));
  });

  it("column names as ClickHouse gives them: `k IN ids`, the table's own columns", async () => {
    const sql = 'SELECT k IN ids, k NOT IN ids AS outside, label FROM analytics.events_dist AS e LEFT JOIN labels ON e.v = labels.v WHERE v < 3 ORDER BY v';
    const r = await ask(sql, { default_format: 'TabSeparatedWithNamesAndTypes' });
    expect(r.status, r.body.toString()).toBe(200);
    // The oracle reads the table as a subquery in the text (the embedded adapter), so it names the
    // IN column after that subquery; a ClickHouse server, as ch-scatter, after the table (external-data-18.test.ts).
    const [head, ...rest] = r.body.toString().split('\n');
    const [, ...theirs] = (await oracle(sql, 'TabSeparatedWithNamesAndTypes')).split('\n');
    expect(head).toBe('in(k, ids)\toutside\tlabel');
    expect(rest).toEqual(theirs);
  });

  it('a name the request did not declare is still an unknown table', async () => {
    const r = await ask('SELECT count() FROM analytics.events_dist WHERE k IN others');
    expect(r.headers.get('x-clickhouse-exception-code')).toBe('60');
  });
});

describe("ClickHouse's errors for bad external data", () => {
  it('a part without structure or types: 36 with ClickHouse text', async () => {
    const boundary = 'b1';
    const r = await raw(h.stack.url, {
      query: { query: 'SELECT * FROM x' },
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: urllib3Body([{ name: 'x', filename: 'x.tsv', data: '1\n' }], boundary),
      auth: h.auth,
    });
    expect(r.headers.get('x-clickhouse-exception-code')).toBe('36');
    expect(r.body.toString()).toMatch(/Neither structure nor types have not been provided for external table x\. Use fields x_structure or x_types to do so\./);
  });

  it.each([
    ['an unknown format: the engine names it', { ids_format: 'Nope' }, 'SELECT count() FROM analytics.events_dist WHERE k IN ids'],
    ['an unknown type', { ids_structure: 'k Nope' }, 'SELECT count() FROM analytics.events_dist WHERE k IN ids'],
    [
      'a row that does not parse',
      { labels_structure: 'v Date, label String' },
      'SELECT count() FROM analytics.events_dist WHERE v IN (SELECT toUInt32(v) FROM labels)',
    ],
  ])("%s: the engine's code, as the oracle gives it", async (_what, params, sql) => {
    const r = await ask(sql, params);
    expect(r.status).toBeGreaterThanOrEqual(400);
    const structure = { ids: [{ name: 'k', type: 'String' }], labels: LABEL_COLUMNS };
    if ('ids_structure' in params) structure.ids = [{ name: 'k', type: 'Nope' }];
    if ('labels_structure' in params) structure.labels = [{ name: 'v', type: 'Date' }, LABEL_COLUMNS[1]!];
    const theirs = await h.oracle
      .queryRaw(sql, {
        format: 'TabSeparated',
        external: [sent('ids', structure.ids, 'ids_format' in params ? 'Nope' : 'TabSeparated', IDS), sent('labels', structure.labels, 'CSV', LABELS)],
      })
      .then(
        () => 'answered',
        (e: { chCode?: number }) => String(e.chCode),
      );
    expect(r.headers.get('x-clickhouse-exception-code')).toBe(theirs);
  });

  it('past max_rows_to_transfer / max_bytes_to_transfer: 396 (TRANSFER_LIMIT), naming the table; with break the first rows travel', async () => {
    const r = await ask('SELECT count() FROM analytics.events_dist WHERE k IN ids', { max_rows_to_transfer: '3' });
    expect(r.headers.get('x-clickhouse-exception-code')).toBe('396');
    expect(r.body.toString()).toMatch(/external table ids: 4 rows exceed max_rows_to_transfer = 3/);
    const b = await ask('SELECT count() FROM analytics.events_dist WHERE k IN ids', { max_bytes_to_transfer: '10' });
    expect(b.headers.get('x-clickhouse-exception-code')).toBe('396');
    // transfer_overflow_mode = 'break': the first rows travel, as ClickHouse cuts a GLOBAL set.
    const cut = await ask('SELECT count() FROM analytics.events_dist WHERE k IN ids', { max_rows_to_transfer: '3', transfer_overflow_mode: 'break' });
    expect(cut.status, cut.body.toString()).toBe(200);
    const first3 = (await h.oracle.queryRaw("SELECT count() FROM analytics.events_dist WHERE k IN ('k-1', 'k-3', 'k-7')", { format: 'TabSeparated' })).bytes;
    expect(cut.body.toString()).toBe(first3.toString());
  });
});

describe('the drivers’ external-data requests, replayed from their sources', () => {
  /**
   * clickhouse-connect: driver/external.py (ExternalFile: the part is named by file_name without its
   * extension, `<name>_format` / `_structure` / `_types` as query parameters), driver/_backend/httpcommon.py
   * (plan_raw_query_request: without form encoding the query goes in the URL's `query`), and
   * driver/_backend/http_sync.py (request: wait_end_of_query=1 and the files as urllib3 fields).
   */
  it('clickhouse-connect raw_query(external_data=ExternalData(file_name="labels.csv", fmt="CSV", structure=[...]))', async () => {
    const boundary = '4c1c1e5b21a3e8a25f3c9f0d6e7a1b2c';
    const sql = 'SELECT e.k, l.label FROM analytics.events_dist AS e JOIN labels AS l ON e.v = l.v ORDER BY e.v FORMAT TabSeparatedWithNames';
    const r = await raw(h.stack.url, {
      query: {
        database: 'analytics',
        query: sql,
        labels_format: 'CSV',
        labels_structure: 'v UInt32,label String',
        wait_end_of_query: '1',
        query_id: '0b7d1a52-9a4b-4a0e-9d3c-0c8f2f5b6d11',
      },
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'user-agent': 'clickhouse-connect/0.8 (lv:py/3.11; mode:sync; os:linux)' },
      body: urllib3Body([{ name: 'labels', filename: 'labels.csv', contentType: 'application/octet-stream', data: LABELS }], boundary),
      auth: h.auth,
    });
    expect(r.status, r.body.toString()).toBe(200);
    expect(r.body.toString()).toBe(await oracle(sql.replace(/ FORMAT \w+$/, ''), 'TabSeparatedWithNames'));
  });

  /**
   * clickhouse-go v2: conn_http.go (createRequestWithExternalTables: `<name>_format=Native`,
   * `<name>_structure` from ext/ext.go's Structure() as "name Type, name Type", each table a form file
   * with an empty filename, its block encoded at revision 0 (encodeRevision), then the `query` field),
   * and the connection's URL (default_format=Native, client_protocol_version).
   */
  it('clickhouse-go WithExternalTable(ext.NewTable("external_table_1", ext.Column("col1", "UInt8"), ...))', async () => {
    // The block as ClickHouse's Native writer writes it at revision 0: what lib/proto/block.go encodes then.
    const block = (
      await h.oracle.queryRaw("SELECT toUInt8(number * 5) AS col1, concat('value_', toString(number)) AS col2 FROM numbers(10)", { format: 'Native' })
    ).bytes;
    const boundary = '0c7b5d1f9e2a4b6c8d0e1f2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c';
    const sql =
      'SELECT col1, col2, count() AS c FROM analytics.events_dist AS e INNER JOIN external_table_1 AS x ON e.v = x.col1 GROUP BY col1, col2 ORDER BY col1';
    const ask = (format: string) =>
      raw(h.stack.url, {
        query: {
          default_format: format,
          client_protocol_version: '54460',
          external_table_1_format: 'Native',
          external_table_1_structure: 'col1 UInt8, col2 String',
        },
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
        body: goBody(
          [
            { name: 'external_table_1', filename: '', contentType: 'application/octet-stream', data: block },
            { name: 'query', data: sql },
          ],
          boundary,
        ),
        auth: h.auth,
      });
    const want = await h.oracle.queryRaw(sql, {
      format: 'TabSeparated',
      external: [
        sent(
          'external_table_1',
          [
            { name: 'col1', type: 'UInt8' },
            { name: 'col2', type: 'String' },
          ],
          'Native',
          block,
        ),
      ],
    });
    const tsv = await ask('TabSeparated');
    expect(tsv.status, tsv.body.toString()).toBe(200);
    expect(tsv.body.toString()).toBe(want.bytes.toString());
    expect(tsv.body.toString().split('\n').length).toBeGreaterThan(5);
    // In the format the driver reads: Native with BlockInfo (revision 54460) and the three columns.
    const native = await ask('Native');
    expect(native.status).toBe(200);
    expect(native.body.includes(Buffer.from('\x04col1\x05UInt8', 'latin1'))).toBe(true);
  });
});
