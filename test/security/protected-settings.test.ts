// The settings a shard function enforces (readonly, the deadline as max_execution_time, throw on
// overflow) must not be overridable from the SQL a caller sends to a shard function directly.
// A SETTINGS clause in the text wins over settings passed as HTTP parameters, and over a clause
// the embedded adapter appends (ClickHouse keeps the FIRST clause's value), so the shard refuses
// SQL that assigns one. Each spelling below is first run on chdb WITHOUT the guard to see whether
// ClickHouse really applies it (so the test shows a real bypass, not a guess), then sent to the
// shard, which must refuse it with BAD_REQUEST.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Session } from 'chdb';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createEmbeddedAccess } from '../../shared/adapters/clickhouse/embedded.js';
import type { ClickHouseAccess } from '../../shared/core/clickhouse/port.js';
import { executeShardRequest } from '../../shared/core/shard/execute.js';
import type { ShardRequest, ShardResponse } from '../../shared/core/protocol/shard-wire.js';

let dir: string;
let ch: ClickHouseAccess;
/** ClickHouse itself on the same data: the adapter refuses text its lexer cannot read (a $$heredoc$$). */
let engine: Session;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'protected-settings-'));
  ch = await createEmbeddedAccess({ path: dir });
  await ch.exec('CREATE TABLE ev (sensor String, v UInt64) ENGINE = MergeTree ORDER BY sensor');
  await ch.exec("INSERT INTO ev SELECT concat('s-', toString(number % 5)), number FROM numbers(100)");
  engine = new Session(dir);
});
afterAll(async () => {
  engine?.close();
  await ch?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const shard = (sql: string): Promise<ShardResponse> => {
  const r: ShardRequest = {
    type: 'query',
    queryId: 'q-protected',
    shard: 0,
    replica: 0,
    sql,
    deadline: Date.now() + 10_000,
    settings: {},
    external: [],
    attempt: 'primary',
  };
  return executeShardRequest(r, ch, { now: Date.now });
};

/** The setting's value as ClickHouse sees it inside `sql`'s query, or the error ClickHouse gives. */
async function applied(sql: string): Promise<{ value?: string; error?: string }> {
  try {
    const res = await engine.queryAsync(sql, { format: 'JSONEachRow' });
    return { value: String((JSON.parse(res.text().split('\n')[0]!) as { v: unknown }).v) };
  } catch (e) {
    return { error: String((e as Error).message) };
  }
}

/** Each protected setting with a value that differs from the default, as SQL and as getSetting prints it. */
const PROTECTED: { name: string; sql: string; shown: string }[] = [
  { name: 'max_execution_time', sql: '7', shown: '7' },
  { name: 'max_execution_time_leaf', sql: '7', shown: '7' },
  { name: 'timeout_overflow_mode', sql: "'break'", shown: 'break' },
  { name: 'timeout_overflow_mode_leaf', sql: "'break'", shown: 'break' },
  { name: 'readonly', sql: '1', shown: '1' },
];

const hexLast = (n: string) => `${n.slice(0, -1)}\\x${n.charCodeAt(n.length - 1).toString(16)}`;

/** Ways to write `SETTINGS <name> = <value>` around a query reading that setting as column v. */
const SPELLINGS: { label: string; sql: (n: string, v: string) => string }[] = [
  { label: 'bare', sql: (n, v) => `SELECT toString(getSetting('${n}')) AS v SETTINGS ${n} = ${v}` },
  { label: 'backquoted', sql: (n, v) => `SELECT toString(getSetting('${n}')) AS v SETTINGS \`${n}\` = ${v}` },
  { label: 'double-quoted', sql: (n, v) => `SELECT toString(getSetting('${n}')) AS v SETTINGS "${n}" = ${v}` },
  { label: 'Unicode-quoted “ ”', sql: (n, v) => `SELECT toString(getSetting('${n}')) AS v SETTINGS “${n}” = ${v}` },
  { label: 'backquoted with a \\x escape', sql: (n, v) => `SELECT toString(getSetting('${n}')) AS v SETTINGS \`${hexLast(n)}\` = ${v}` },
  { label: 'double-quoted with a \\x escape', sql: (n, v) => `SELECT toString(getSetting('${n}')) AS v SETTINGS "${hexLast(n)}" = ${v}` },
  { label: 'comment-split', sql: (n, v) => `SELECT toString(getSetting('${n}')) AS v SETTINGS/* a */${n}/* b */= -- c\n${v}` },
  { label: 'after a nested comment', sql: (n, v) => `SELECT toString(getSetting('${n}')) AS v SETTINGS /* /* */ */ ${n} = ${v}` },
  { label: 'after a #! comment', sql: (n, v) => `SELECT toString(getSetting('${n}')) AS v SETTINGS #! x\n${n} = ${v}` },
  { label: 'keyword in mixed case', sql: (n, v) => `SELECT toString(getSetting('${n}')) AS v sEtTiNgS ${n} = ${v}` },
  { label: 'Unicode blanks', sql: (n, v) => `SELECT toString(getSetting('${n}')) AS v SETTINGS\u00a0${n}\u2003=\u3000${v}` },
  { label: 'second in the list', sql: (n, v) => `SELECT toString(getSetting('${n}')) AS v SETTINGS max_threads = 1, ${n} = ${v}` },
  { label: 'in a subquery', sql: (n, v) => `SELECT v FROM (SELECT toString(getSetting('${n}')) AS v SETTINGS ${n} = ${v})` },
  { label: 'behind a $$heredoc$$', sql: (n, v) => `SELECT $$'$$ AS h, toString(getSetting('${n}')) AS v SETTINGS ${n} = ${v} -- '` },
  { label: 'name in upper case', sql: (n, v) => `SELECT toString(getSetting('${n}')) AS v SETTINGS ${n.toUpperCase()} = ${v}` },
];

/** Spellings ClickHouse does not apply (it refuses them); the shard refuses them too. */
const NOT_APPLIED = new Set(['name in upper case']);

describe('a SETTINGS clause cannot override a setting the shard enforces', () => {
  for (const s of SPELLINGS) {
    for (const p of PROTECTED) {
      it(`${s.label}: ${p.name}`, async () => {
        const sql = s.sql(p.name, p.sql);
        const ch = await applied(sql);
        if (NOT_APPLIED.has(s.label)) expect(ch.error, `ClickHouse applied ${sql}`).toMatch(/Unknown setting/);
        else expect(ch, `ClickHouse did not apply ${sql}`).toEqual({ value: p.shown });
        const r = await shard(sql);
        expect(r.ok, sql).toBe(false);
        if (!r.ok) expect(r.error.code, r.error.message).toBe('BAD_REQUEST');
      });
    }
  }

  it('ClickHouse knows no other name (alias) for a protected setting', async () => {
    const res = await ch.query(
      "SELECT name FROM system.settings WHERE alias_for IN ('readonly', 'max_execution_time', 'max_execution_time_leaf', 'timeout_overflow_mode', 'timeout_overflow_mode_leaf')",
    );
    expect(res.rows).toEqual([]);
  });

  it('says which setting, or that the text could not be read', async () => {
    const r = await shard("SELECT 1 SETTINGS “max_execution_time” = 7, timeout_overflow_mode = 'break'");
    expect(!r.ok && r.error.message).toMatch(/may not set max_execution_time, timeout_overflow_mode itself/);
    const h = await shard("SELECT 'x SETTINGS max_threads = 1");
    expect(!h.ok && h.error.message).toMatch(/cannot be checked for protected settings: .*line 1, column 8/);
  });

  it('still runs queries that only mention the names elsewhere', async () => {
    const fine = [
      "SELECT count() AS c FROM ev WHERE sensor != 'SETTINGS max_execution_time = 7'",
      'SELECT count() AS c FROM ev -- SETTINGS max_execution_time = 7',
      'SELECT count() AS c FROM ev /* SETTINGS readonly = 0 */',
      'SELECT count() AS max_execution_time FROM ev SETTINGS max_threads = 1',
      'SELECT count() AS c FROM ev SETTINGS max_threads = 1, max_block_size = 100',
      'SELECT count() AS c FROM ev WHERE sensor = ‘readonly’',
    ];
    for (const sql of fine) {
      const r = await shard(sql);
      expect(r.ok, `${sql}: ${r.ok ? '' : r.error.message}`).toBe(true);
    }
  });
});
