// Hostile input (docs/operations.md#what-protects-the-shards): every case of
// test/fixtures/hostile-requests.ts, sent
//   (a) as a real HTTP POST /query to a local stack (API server -> coordinator handler -> the
//       default query invoker -> Invoke endpoint -> shard host processes with embedded chdb), and
//   (b) straight to the coordinator Lambda handler with an API Gateway v2 event,
// must get a 4xx with one of the case's codes: never a 5xx, a stack trace, a crash or a hang.
// And nothing but reads may reach a shard: every payload the shard functions receive during the
// corpus is recorded and must be a `query` whose SQL is one SELECT; after the corpus the stack is
// stopped and each shard directory is opened again: the same databases, tables and row counts.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalStack, type LocalStack } from '../../local/stack.js';
import { HOSTILE_CASES, type HostileCase } from '../fixtures/hostile-requests.js';
import { FORWARDED_SETTINGS } from '../../shared/core/plan/index.js';
import { JSON_FINAL_SETTINGS } from '../../shared/core/scatter/two-stage/final-output.js';
import { tempDir } from '../e2e/support.js';
import { DIST, inspectShardDirs, preloadShards, reliabilityTopology, type DirState } from '../reliability/support.js';
import { directCoordinator, httpEvent, type DirectHandler } from '../reliability/coordinator-direct.js';

const ROWS = 10_000;
/** Per case. Generous for the 2 MiB and 300k-value bodies on a loaded machine; a hang is minutes. */
const CASE_BOUND_MS = 5_000;

let dir: string;
let stack: LocalStack;
let direct: DirectHandler;
let before: Record<string, DirState>;
const payloads: unknown[] = [];
let topo: ReturnType<typeof reliabilityTopology>;

beforeAll(async () => {
  dir = tempDir('hostile');
  topo = reliabilityTopology(dir, [{ replicas: [{}] }, { weight: 2, replicas: [{}] }]);
  await preloadShards(topo, ROWS);
  before = await inspectShardDirs(topo);
  stack = await startLocalStack({
    topo,
    logLevel: 'SILENT',
    // Record what reaches the shard functions (the stack's own admin traffic is none here).
    wrapFunctions: (fns) =>
      Object.fromEntries(
        Object.entries(fns).map(([name, fn]) => [
          name,
          async (p: unknown) => {
            payloads.push(p);
            return fn(p);
          },
        ]),
      ),
  });
  direct = directCoordinator(topo, stack.invokeUrl);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

function judge(c: HostileCase, status: number, body: any, text: string, ms: number): string[] {
  const problems: string[] = [];
  const want = c.status ?? 400;
  if (status !== want) problems.push(`status ${status}, want ${want}`);
  const code = body?.error?.code;
  if (!c.codes.includes(code)) problems.push(`code ${code}, want one of ${c.codes.join('/')}`);
  if (typeof body?.error?.message !== 'string' || body.error.message.length === 0) problems.push('no error message');
  if (/\n\s+at /.test(text) || /node_modules|\.ts:\d+/.test(text)) problems.push('stack trace or source path in the body');
  if (ms > CASE_BOUND_MS) problems.push(`took ${Math.round(ms)} ms`);
  return problems.length ? [`${c.name}: ${problems.join('; ')} | ${text.slice(0, 200)}`] : [];
}

describe(`hostile request corpus (${HOSTILE_CASES.length} cases)`, () => {
  it('has at least 200 cases, with unique names', () => {
    expect(HOSTILE_CASES.length).toBeGreaterThanOrEqual(200);
    expect(new Set(HOSTILE_CASES.map((c) => c.name)).size).toBe(HOSTILE_CASES.length);
  });

  it('through POST /query of the local stack: each a 4xx with a listed code, in bounded time', async () => {
    const problems: string[] = [];
    let slowest = 0;
    for (const c of HOSTILE_CASES) {
      const t0 = performance.now();
      const res = await fetch(`${stack.url}/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: c.body });
      const text = await res.text();
      const ms = performance.now() - t0;
      slowest = Math.max(slowest, ms);
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      problems.push(...judge(c, res.status, body, text, ms));
    }
    console.log(`[hostile/http] ${HOSTILE_CASES.length} cases, slowest ${Math.round(slowest)} ms, ${problems.length} problems`);
    expect(problems).toEqual([]);
  }, 180_000);

  it('straight to the coordinator handler: the same answers', async () => {
    const problems: string[] = [];
    for (const c of HOSTILE_CASES) {
      const t0 = performance.now();
      const r = await direct(httpEvent('POST', '/query', c.body));
      problems.push(...judge(c, r.status, r.body, r.text, performance.now() - t0));
      // /explain takes the same body and must refuse it the same way (it plans, never runs).
      const t1 = performance.now();
      const ex = await direct(httpEvent('POST', '/explain', c.body));
      const exMs = performance.now() - t1;
      // Only ClickHouse can judge some cases (unknown column or function: QUERY_ERROR). /explain
      // never runs the query, so for those a plan (200, no rows) is the honest answer.
      if (ex.status === 200 && c.codes.includes('QUERY_ERROR')) expect(ex.body.shards).toBeInstanceOf(Array);
      else problems.push(...judge({ ...c, name: `explain ${c.name}` }, ex.status, ex.body, ex.text, exMs));
    }
    expect(problems).toEqual([]);
  }, 180_000);

  it('the stack still answers correctly afterwards, and only reads ever reached a shard', async () => {
    const r = await fetch(`${stack.url}/query`, { method: 'POST', body: JSON.stringify({ sql: `SELECT count() AS c FROM ${DIST}` }) });
    expect(r.status).toBe(200);
    expect(((await r.json()) as { data: unknown }).data).toEqual([{ c: String(ROWS) }]);
    // A SELECT, or the coordinator's read of a configured local table's columns (DESCRIBE, cached).
    const isRead = (sql: string) => /^\s*SELECT\b/i.test(sql) || sql === 'DESCRIBE TABLE `analytics`.`sensor_events`';
    const notReads = payloads.filter((p) => {
      const q = p as { type?: unknown; sql?: unknown };
      return q.type !== 'query' || typeof q.sql !== 'string' || !isRead(q.sql) || /;\s*\S/.test(q.sql.replace(/'(?:[^'\\]|\\.)*'/g, "''"));
    });
    expect(notReads).toEqual([]);
    // and whatever settings travelled with them are on the allowlist (never readonly & co.); a
    // general-path final stage adds only its JSON output settings (ClickHouse's JSON conventions).
    const forwarded = new Set(payloads.flatMap((p) => Object.keys((p as { settings?: Record<string, unknown> }).settings ?? {})));
    expect([...forwarded].filter((k) => !FORWARDED_SETTINGS.has(k) && !(k in JSON_FINAL_SETTINGS))).toEqual([]);
    const stageOne = payloads
      .filter((p) => !(p as { tables?: unknown }).tables)
      .flatMap((p) => Object.keys((p as { settings?: Record<string, unknown> }).settings ?? {}));
    expect(stageOne.filter((k) => !FORWARDED_SETTINGS.has(k))).toEqual([]);
  });

  it('allow-listed request settings reach the shards as settings; refused ones never do', async () => {
    const before = payloads.length;
    const ok = await fetch(`${stack.url}/query`, {
      method: 'POST',
      body: JSON.stringify({ sql: `SELECT count() AS c FROM ${DIST} SETTINGS max_threads = 1`, settings: { max_block_size: 4096 } }),
    });
    expect(ok.status).toBe(200);
    const sent = payloads.slice(before) as Array<{ settings: Record<string, unknown>; sql: string }>;
    expect(sent.length).toBe(2);
    for (const p of sent) {
      expect(p.settings).toMatchObject({ max_threads: 1, max_block_size: 4096 });
      expect(p.sql).not.toMatch(/SETTINGS/i);
    }
    const refused = await fetch(`${stack.url}/query`, {
      method: 'POST',
      body: JSON.stringify({ sql: `SELECT count() AS c FROM ${DIST}`, settings: { max_threads: 1, readonly: 0 } }),
    });
    expect(refused.status).toBe(400);
    expect(payloads.length).toBe(before + 2); // the refused request reached no shard
  });

  it('after the corpus every shard directory holds the same databases, tables and rows', async () => {
    await stack.stop();
    const after = await inspectShardDirs(topo);
    expect(after).toEqual(before);
    expect(Object.values(after).reduce((a, s) => a + s.rows, 0)).toBe(ROWS);
  }, 60_000);
});
