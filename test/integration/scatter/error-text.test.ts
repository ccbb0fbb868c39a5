// What a JSON API error quotes when the shards' ClickHouse rejects the query: ClickHouse's code and
// text, the position in the user's SQL, and never the rewrite the shards ran (the local table, the
// runtime's SETTINGS: readonly, the deadline, the JSON output settings, stage tables). On three chdb
// shards behind the real shard function code, both paths, POST /query and /explain.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_LOCAL, DEMO_TABLE } from '../../../local/demo.js';
import { toChException } from '../../../shared/core/clickhouse-http/exception.js';
import { ScatterError } from '../../../shared/core/errors.js';
import { executeQuery, runExplain, runQuery } from '../../../shared/core/scatter/run-query.js';
import { demoRunDeps, startDemoChdb, type DemoChdb } from '../../support/demo-chdb.js';

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
const D = DEMO_TABLE;
let demo: DemoChdb;

beforeAll(async () => {
  demo = await startDemoChdb({ rows: 2000 });
}, 120_000);
afterAll(async () => {
  await demo?.cluster.stop();
});

type ErrBody = { error: { code: string; message: string; position?: { line: number; column: number } }; clickhouse?: { code: number; name: string } };

/** What only the rewrite holds: the shard-local table, the runtime's settings, the general path's stage columns. */
const REWRITE = [DEMO_LOCAL.split('.')[1]!, 'readonly', 'max_execution_time', 'output_format_json', 'SETTINGS', 'in scope', '_stage', '_k0', '_c0'];

function expectUsersError(b: ErrBody, code: number, at: string, sql: string): void {
  expect(b.clickhouse?.code, JSON.stringify(b)).toBe(code);
  for (const w of REWRITE) expect(b.error.message, w).not.toContain(w);
  // The position is where the name stands in what the user sent.
  const col = sql.indexOf(at) + 1;
  expect(b.error.position, b.error.message).toEqual({ line: 1, column: col });
  expect(b.error.message).toContain(`(line 1, column ${col})`);
}

const CASES: { sql: string; code: number; at: string }[] = [
  { sql: `SELECT site, nosuch FROM ${D} WHERE status = 500 LIMIT 3`, code: 47, at: 'nosuch' },
  { sql: `SELECT site, count() AS c FROM ${D} GROUP BY site HAVING max(nosuch) > 1`, code: 47, at: 'nosuch' },
  { sql: `SELECT site, sum(sensor) AS s FROM ${D} GROUP BY site`, code: 43, at: 'sum' },
  { sql: `SELECT site, nosuchfn(value) AS s FROM ${D} LIMIT 1`, code: 46, at: 'nosuchfn' },
  // The general path: a window function runs in the final stage, the column is unknown on the leaves.
  { sql: `SELECT site, rank() OVER (PARTITION BY nosuch ORDER BY ts) AS r FROM ${D} LIMIT 3`, code: 47, at: 'nosuch' },
  // A GLOBAL IN subquery the shards refuse: ClickHouse's error, never "GLOBAL subquery incomplete".
  { sql: `SELECT count() AS c FROM ${D} WHERE sensor GLOBAL IN (SELECT nosuch FROM ${D})`, code: 47, at: 'nosuch' },
];

describe("errors from the shards' engine, through the JSON API", () => {
  for (const c of CASES)
    it(c.sql, async () => {
      const r = await runQuery({ sql: c.sql }, demoRunDeps(demo, 'q-error-text'));
      expect(r.status).toBe(400);
      expectUsersError(r.body as ErrBody, c.code, c.at, c.sql);
    });

  it('the general path forced: the final stage refuses a type, and the message holds no stage table', async () => {
    const sql = `SELECT site, count() AS c FROM ${D} GROUP BY site ORDER BY c + 'x'`;
    const r = await runQuery({ sql, settings: { ch_scatter_path: 'general' } }, demoRunDeps(demo, 'q-error-text-general'));
    expect(r.status).toBe(400);
    expect((r.body as ErrBody).error.message).toContain('final stage');
    expectUsersError(r.body as ErrBody, 43, "+ 'x'", sql);
  });

  it("/explain: a GLOBAL subquery the shards refuse is ClickHouse's error", async () => {
    const sql = `SELECT count() AS c FROM ${D} WHERE sensor GLOBAL IN (SELECT nosuch FROM ${D})`;
    const r = await runExplain({ sql }, demoRunDeps(demo, 'q-error-text-explain'));
    expect(r.status).toBe(400);
    const b = r.body as ErrBody;
    expect(b.error.code).toBe('QUERY_ERROR');
    expect(b.clickhouse?.code).toBe(47);
    for (const w of REWRITE) expect(b.error.message, w).not.toContain(w);
  });

  it('the ClickHouse interface reads the same error as 47, not 279', async () => {
    const err = await executeQuery({ sql: `SELECT count() AS c FROM ${D} WHERE sensor GLOBAL IN (SELECT nosuch FROM ${D})` }, demoRunDeps(demo, 'q-i')).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ScatterError);
    const x = toChException(err);
    expect([x.code, x.name, x.status]).toEqual([47, 'UNKNOWN_IDENTIFIER', 404]);
  });
});
