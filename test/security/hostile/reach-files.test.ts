// Files on a chdb shard host are neither read nor written, whatever route asks: format settings
// that name a path (format_template_resultset / row, format_schema, output_format_schema) and the
// formats that open them (Template, Protobuf, CapnProto...) are refused from the URL, the
// X-ClickHouse-Format header, a SETTINGS clause at any depth, the JSON API's settings and the
// final stage, and by the shard itself. The engine itself does read and write them
// (reach-files-control.test.ts, in a process of its own: the adapter pins chdb's file access for
// its whole process): so a refusal here is the check, not an engine that cannot.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmbeddedAccess } from '../../../shared/adapters/clickhouse/embedded.js';
import type { ClickHouseAccess } from '../../../shared/core/clickhouse/port.js';
import type { ShardFailure, ShardRequest } from '../../../shared/core/protocol/shard-wire.js';
import { executeShardRequest } from '../../../shared/core/shard/execute.js';
import { tempDir } from '../../e2e/support.js';
import { LOCAL } from './reach-corpus.js';
import { fileCases, runFileCases } from './reach-files-corpus.js';
import { startReachStack, type ReachStack } from './reach-stack.js';

const SECRET_TEXT = `FILE-SECRET-${process.pid}-${Date.now()}`;
let dir: string;
let secret: string;
let s: ReachStack;
/** One in-process engine (chdb opens one data directory per process). */
let ch: ClickHouseAccess;
let n = 0;
/** A fresh path that must never come to exist. */
const target = () => path.join(dir, `target-${++n}.proto`);

beforeAll(async () => {
  dir = tempDir('reach-files');
  secret = path.join(dir, 'secret.txt');
  fs.writeFileSync(secret, `${SECRET_TEXT} \${data}\n`);
  s = await startReachStack(
    [{ replicas: [{ embedded: 'shard-0' }] }, { replicas: [{ embedded: 'shard-1' }] }],
    dir,
    `INSERT INTO ${LOCAL} SELECT concat('s-', toString(number)), 'site', number FROM numbers(10)`,
  );
  ch = await createEmbeddedAccess({ path: path.join(dir, 'in-process') });
}, 180_000);

afterAll(async () => {
  await ch?.close();
  await s?.stack.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('file-naming settings and formats on chdb', () => {
  it('every route refuses them, as a 4xx with ClickHouse 497 or UNSUPPORTED; nothing is read, written or sent to a shard', async () => {
    const all = fileCases(secret, target);
    expect(all.length).toBeGreaterThan(40);
    const problems = await runFileCases(s, all, SECRET_TEXT);
    expect(problems).toEqual([]);
  }, 300_000);

  it('the shard refuses them itself, before its engine sees the request', async () => {
    const calls: string[] = [];
    // A spy in front of the engine: what reaches it is recorded.
    const spy: ClickHouseAccess = {
      ...ch,
      describe: ch.describe,
      query: (sql, o) => {
        calls.push(sql);
        return ch.query(sql, o);
      },
      queryRaw: (sql, o) => {
        calls.push(sql);
        return ch.queryRaw(sql, o);
      },
    };
    {
      const req = (over: Partial<ShardRequest>): ShardRequest => ({
        type: 'query',
        queryId: 'q',
        shard: 0,
        replica: 0,
        sql: 'SELECT 1 AS x',
        deadline: Date.now() + 5000,
        settings: {},
        external: [],
        attempt: 'primary',
        ...over,
      });
      const t = target();
      const hostile: Partial<ShardRequest>[] = [
        { settings: { format_template_row: secret }, format: 'TabSeparated' },
        { format: 'Template' },
        { format: 'Protobuf', settings: { output_format_schema: t } },
        { sql: `SELECT 1 AS x SETTINGS format_template_row = '${secret}'`, format: 'Template' },
        { sql: `SELECT * FROM (SELECT 1 AS x SETTINGS \`output_format_schema\` = '${t}')`, format: 'TabSeparated' },
        { sql: `SELECT 1 AS x FORMAT CapnProto` },
        { sql: `SELECT 1 AS x SETTINGS format_schema_path = '/'` },
      ];
      for (const h of hostile) {
        const r = (await executeShardRequest(req(h), spy, { now: Date.now })) as ShardFailure;
        expect(r.ok, JSON.stringify(h)).toBe(false);
        expect(r.error.code).toBe('ACCESS_DENIED');
        expect(r.error.chCode).toBe(497);
        expect(r.error.message).not.toContain(SECRET_TEXT);
      }
      expect(calls).toEqual([]);
      expect(fs.existsSync(t)).toBe(false);
      // The same spy passes an ordinary request through: it records what the engine ran.
      expect((await executeShardRequest(req({ format: 'TabSeparated' }), spy, { now: Date.now })).ok).toBe(true);
      expect(calls).toEqual(['SELECT 1 AS x']);
    }
  });
});
