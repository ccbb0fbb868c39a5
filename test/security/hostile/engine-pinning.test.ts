// The embedded engine (chdb) reads and writes no file by name, whatever SQL or settings reach the
// adapter: everything here goes STRAIGHT to the adapter, with no planner in front. Each attempt
// names a file whose content is a marker (and the host's /etc/passwd), or a path that must stay
// absent; the answer must be ClickHouse's refusal with its code, the marker never in it, and the
// path never created.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createEmbeddedAccess } from '../../../shared/adapters/clickhouse/embedded.js';
import { ACCESS_DENIED, PINNED_SETTINGS, SETTING_CONSTRAINT_VIOLATION } from '../../../shared/adapters/clickhouse/embedded-pinning.js';
import { ClickHouseError, type ClickHouseAccess } from '../../../shared/core/clickhouse/port.js';

let dir: string;
let files: string;
let ch: ClickHouseAccess;
const MARKER = 'PINNED-MARKER-7d1c';
const PASSWD_LINE = fs.readFileSync('/etc/passwd', 'utf8').split('\n')[0]!; // root:x:0:0:...
let secret: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'engine-pinning-'));
  files = fs.mkdtempSync(path.join(os.tmpdir(), 'engine-pinning-files-'));
  secret = path.join(files, 'secret.txt');
  fs.writeFileSync(secret, `${MARKER} \${data} ${MARKER}\n`);
  fs.writeFileSync(path.join(files, 'm.proto'), `syntax = "proto3"; message M { uint32 x = 1; } // ${MARKER}\n`);
  ch = await createEmbeddedAccess({ path: dir });
  await ch.exec('CREATE TABLE ev (s String, v UInt64) ENGINE = MergeTree ORDER BY s');
  await ch.insert('ev', [{ s: 'a', v: 1 }]);
}, 60_000);
afterAll(async () => {
  await ch?.close();
  fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(files, { recursive: true, force: true });
});

/** The error an attempt ends in (it must end in one), as ClickHouseError. */
async function refusal(attempt: Promise<unknown>): Promise<ClickHouseError> {
  const outcome = await attempt.then(
    (v) => ({ ok: true as const, v }),
    (e: unknown) => ({ ok: false as const, e }),
  );
  if (outcome.ok) throw new Error(`not refused; answered ${JSON.stringify(outcome.v, (_k, x) => (Buffer.isBuffer(x) ? x.toString('latin1') : x))}`);
  expect(outcome.e).toBeInstanceOf(ClickHouseError);
  const e = outcome.e as ClickHouseError;
  expect(e.message).not.toContain(MARKER);
  expect(e.message).not.toContain(PASSWD_LINE);
  return e;
}

/** A path under the test's directory that does not exist yet. */
const fresh = (name: string) => path.join(files, `${name}-${Math.random().toString(36).slice(2)}`);

describe('file-reading settings cannot take effect on chdb', () => {
  it("`SELECT 1 FORMAT Template SETTINGS format_template_resultset='/etc/passwd'`: refused with 452, no line of the file", async () => {
    for (const file of ['/etc/passwd', secret]) {
      const sql = `SELECT 1 FORMAT Template SETTINGS format_template_resultset='${file}'`;
      for (const attempt of [ch.exec(sql), ch.query(sql), ch.queryRaw(sql, { format: 'TabSeparated' })]) {
        const e = await refusal(attempt);
        // query/queryRaw append their own FORMAT after the text's: the parser may refuse that first (62).
        expect([SETTING_CONSTRAINT_VIOLATION, 62]).toContain(e.chCode);
      }
      // The same settings without a FORMAT in the text, as the adapter's callers pass them.
      const e = await refusal(ch.queryRaw('SELECT 1', { format: 'Template', settings: { format_template_resultset: file } }));
      expect(e.chCode).toBe(SETTING_CONSTRAINT_VIOLATION);
      expect(e.message).toMatch(/format_template_resultset should not be changed/);
    }
  });

  it('format_template_row, a SETTINGS clause in a subquery, a quoted name, a SET before the query: all 452', async () => {
    const attempts = [
      () => ch.queryRaw('SELECT s FROM ev', { format: 'Template', settings: { format_template_row: secret } }),
      () => ch.queryRaw(`SELECT s FROM (SELECT s FROM ev SETTINGS format_template_row = '${secret}')`, { format: 'Template' }),
      () => ch.queryRaw(`SELECT s FROM ev SETTINGS \`format_template_row\` = '${secret}'`, { format: 'Template' }),
      () => ch.queryRaw(`SELECT s FROM ev SETTINGS "format_template_resultset" = '${secret}'`, { format: 'Template' }),
      () => ch.exec(`SET format_template_row = '${secret}'`),
      () => ch.query('SELECT 1 AS x', { settings: { format_template_resultset: secret } }),
    ];
    for (const attempt of attempts) expect((await refusal(attempt())).chCode).toBe(SETTING_CONSTRAINT_VIOLATION);
    // A SETTINGS clause after a $$heredoc$$ holding a quote is read as ClickHouse reads it, and refused.
    const hidden = `SELECT $$'$$ AS h FROM (SELECT 1 SETTINGS format_template_row = '${secret}') -- '`;
    expect((await refusal(ch.queryRaw(hidden, { format: 'Template' }))).chCode).toBe(SETTING_CONSTRAINT_VIOLATION);
    // Text the lexer cannot read (an unterminated heredoc) could hide a SETTINGS clause: refused unread (62).
    const unread = `SELECT $$' AS h FROM (SELECT 1 SETTINGS format_template_row = '${secret}') -- '`;
    expect((await refusal(ch.queryRaw(unread, { format: 'Template' }))).chCode).toBe(62);
    // A refused SET left nothing behind: Template still has no file to read.
    const e = await refusal(ch.queryRaw('SELECT s FROM ev', { format: 'Template' }));
    expect(e.chCode).not.toBe(SETTING_CONSTRAINT_VIOLATION);
  });

  it('a schema file by name (format_schema, format_schema_source) is refused: 452', async () => {
    const attempts: Record<string, string>[] = [
      { format_schema: `${path.join(files, 'm.proto')}:M` },
      { format_schema: 'm:M' },
      { format_schema_source: 'query' },
    ];
    for (const settings of attempts) {
      const e = await refusal(ch.queryRaw('SELECT toUInt32(1) AS x', { format: 'Protobuf', settings }));
      expect(e.chCode).toBe(SETTING_CONSTRAINT_VIOLATION);
    }
  });
});

describe('file-writing settings and clauses cannot take effect on chdb', () => {
  it("`FORMAT Protobuf SETTINGS output_format_schema='/tmp/x'` never creates the file", async () => {
    const target = fresh('schema-out');
    const sql = `SELECT 1 AS x FORMAT Protobuf SETTINGS output_format_schema='${target}'`;
    for (const attempt of [ch.exec(sql), ch.query(sql), ch.queryRaw(sql, { format: 'TabSeparated' })]) {
      const e = await refusal(attempt);
      expect([SETTING_CONSTRAINT_VIOLATION, 62]).toContain(e.chCode);
    }
    const e = await refusal(ch.queryRaw('SELECT 1 AS x', { format: 'Protobuf', settings: { output_format_schema: target } }));
    expect(e.chCode).toBe(SETTING_CONSTRAINT_VIOLATION);
    // An alias with newlines, which a written schema would carry verbatim.
    await refusal(ch.queryRaw(`SELECT 1 AS \`a\nb\` SETTINGS output_format_schema = '${target}'`, { format: 'Protobuf' }));
    expect(fs.existsSync(target)).toBe(false);
    expect(fs.existsSync(`${target}.proto`)).toBe(false);
  });

  it('parse errors are never written to a file (input_format_record_errors_file_path): 452, in a subquery too', async () => {
    const target = fresh('errors');
    const e = await refusal(ch.insert('ev', [{ s: 'b', v: 'not a number' }], { settings: { input_format_record_errors_file_path: target } }));
    expect(e.chCode).toBe(SETTING_CONSTRAINT_VIOLATION);
    // chdb checks no constraint in a subquery's SETTINGS: without the adapter's refusal this writes the file.
    const sub = `SELECT * FROM (SELECT * FROM format(CSV, 'a UInt8', 'x\n1') SETTINGS input_format_record_errors_file_path = '${target}', input_format_allow_errors_num = 5)`;
    expect((await refusal(ch.queryRaw(sub, { format: 'TabSeparated' }))).chCode).toBe(SETTING_CONSTRAINT_VIOLATION);
    expect(fs.existsSync(target)).toBe(false);
  });

  it('INTO OUTFILE is refused by the adapter (164) and writes nothing', async () => {
    const target = fresh('outfile');
    for (const attempt of [
      ch.exec(`SELECT s FROM ev INTO OUTFILE '${target}'`),
      ch.query(`SELECT s FROM ev INTO /* c */ OUTFILE '${target}'`),
      ch.queryRaw(`select s from ev into outfile '${target}' TRUNCATE`, { format: 'TabSeparated' }),
    ]) {
      expect((await refusal(attempt)).chCode).toBe(164);
    }
    expect(fs.existsSync(target)).toBe(false);
  });
});

describe('table functions that reach files or the network are not granted on chdb', () => {
  it('file(), url() and remote() are refused with 497; format() and null(), which the adapter uses, still work', async () => {
    for (const sql of [
      `SELECT * FROM file('${secret}', 'LineAsString')`,
      "SELECT * FROM file('/etc/passwd', 'LineAsString')",
      "SELECT * FROM url('http://127.0.0.1:9/', 'LineAsString')",
      "SELECT * FROM remote('127.0.0.1:9', system.one)",
    ]) {
      const e = await refusal(ch.query(sql));
      expect(e.chCode, sql).toBe(ACCESS_DENIED);
    }
    const target = fresh('table-function-out');
    await refusal(ch.exec(`INSERT INTO FUNCTION file('${target}', 'TSV', 's String') SELECT s FROM ev`));
    expect(fs.existsSync(target)).toBe(false);
    expect((await ch.query(`SELECT * FROM format(JSONEachRow, 'a UInt8', '{"a":7}')`)).rows).toEqual([{ a: 7 }]);
    expect((await ch.query(`SELECT count() AS c FROM null('a UInt8')`)).rows).toEqual([{ c: '0' }]);
  });
});

describe('the pinned list against chdb', () => {
  it("every pinned name is one of chdb's settings, pinned at its default", async () => {
    const rows = (await ch.query(`SELECT name, changed FROM system.settings WHERE name IN (${PINNED_SETTINGS.map((s) => `'${s}'`).join(', ')})`)).rows;
    expect(rows.map((r) => r.name).sort()).toEqual([...PINNED_SETTINGS].sort());
    expect(rows.every((r) => String(r.changed) === '0' || r.changed === false)).toBe(true);
  });

  it('every text setting that names a file, a path, a schema or a URL is pinned or known to name none', async () => {
    // Reviewed: these name a cache, a codec, a method, a column list or a schema message, never a file.
    const NAMES_NO_FILE = [
      'column_names_for_schema_inference',
      'compatibility',
      'distributed_cache_file_cache_name',
      'distributed_plan_force_exchange_kind',
      'filesystem_cache_name',
      'format_schema_message_name',
      'iceberg_metadata_compression_method',
      'local_filesystem_read_method',
      'remote_filesystem_read_method',
      's3queue_default_zookeeper_path',
      'schema_inference_hints',
      'temporary_files_codec',
      'trace_profile_events_list',
    ];
    const rows = await ch.query(
      "SELECT name FROM system.settings WHERE type IN ('String', 'URI') AND alias_for = '' AND (" +
        "description ILIKE '%file%' OR description ILIKE '%path%' OR description ILIKE '%url%' OR " +
        "name ILIKE '%schema%' OR name ILIKE '%path%' OR name ILIKE '%file%' OR name ILIKE '%url%')",
    );
    const unreviewed = rows.rows.map((r) => String(r.name)).filter((n) => !(PINNED_SETTINGS as readonly string[]).includes(n) && !NAMES_NO_FILE.includes(n));
    expect(unreviewed).toEqual([]);
  });

  it('any pinned setting, any value, through a SETTINGS clause or the settings record: 452, never the marker (fast-check)', async () => {
    const value = fc.oneof(
      fc.constant(secret),
      fc.constant('/etc/passwd'),
      fc.string({ maxLength: 40 }).map((s) => path.join(files, s)),
    );
    // The URL-valued ones get a URL (any other text is refused before the constraint, as a bad URI).
    const urlValued = new Set(['format_avro_schema_registry_url', 'url_base']);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...PINNED_SETTINGS), value, fc.boolean(), async (name, given, inClause) => {
        const v = urlValued.has(name) ? `http://127.0.0.1:9/${encodeURIComponent(given)}` : given;
        const literal = name === 'into_outfile_create_parent_directories' ? '1' : `'${v.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
        const attempt = inClause
          ? ch.queryRaw(`SELECT 1 AS x SETTINGS ${name} = ${literal}`, { format: 'TabSeparated' })
          : ch.queryRaw('SELECT 1 AS x', { format: 'TabSeparated', settings: { [name]: name === 'into_outfile_create_parent_directories' ? 1 : v } });
        const e = await refusal(attempt);
        expect(e.chCode).toBe(SETTING_CONSTRAINT_VIOLATION);
      }),
      { numRuns: 60 },
    );
  });
});
