// Fuzz of the whole rewrite path (docs/operations.md#what-protects-the-shards): request validation ->
// parser -> planner (analyze, prune, skip, GLOBAL subqueries, aggregate split, print), with random
// token soups and random mutations of the planner's golden corpus. (test/unit/sql/fuzz.test.ts fuzzes
// the parser alone and its round trip; this goes on through planQuery, where a request becomes shard
// SQL.)
//
// Properties, for every input:
//   - it plans, or fails with a ScatterError whose status is 4xx; never another exception (an
//     INTERNAL 500 to the client) and never longer than a bound;
//   - what plans is safe to send: every shard SQL parses back as ONE SELECT, reads only the
//     topology's shard-local tables or the plan's shipped external tables, carries no SETTINGS
//     clause, and the settings forwarded to shards are on the allowlist (FORWARDED_SETTINGS) and
//     never one the runtime owns (readonly, max_execution_time, ...).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ScatterError } from '../../shared/core/errors.js';
import { planQuery, FORWARDED_SETTINGS } from '../../shared/core/plan/index.js';
import type { QueryPlan, SubqueryRunner } from '../../shared/core/plan/types.js';
import { parseSelect } from '../../shared/core/sql/parse.js';
import type { SelectQuery, SelectStatement, TableExpr } from '../../shared/core/sql/ast.js';
import { walkStatement } from '../../shared/core/sql/visit.js';
import { parseQueryRequest } from '../../shared/core/protocol/api-request.js';
import { CORPUS } from '../unit/plan/corpus.js';
import { testTopology } from '../unit/plan/fixtures.js';

const topo = testTopology();
const LOCAL_TABLES = new Set(Object.values(topo.tables).map((t) => (t.local.includes('.') ? t.local : `default.${t.local}`)));
// max_execution_time / timeout_overflow_mode are not here: a query's own may lower the one deadline (test/e2e/execution-time.test.ts).
const RUNTIME_OWNED = ['readonly', 'allow_ddl', 'skip_unavailable_shards', 'allow_introspection_functions'];
/** Per input; planning a corpus query takes well under a millisecond to a few ms. */
const BOUND_MS = 1_000;

/**
 * GLOBAL IN / JOIN right sides, as the runtime runs them: the subquery is itself planned (so it is
 * refused or checked like any query), then answers one String column per select item, a few rows.
 */
const runSubquery: SubqueryRunner = async (stmt) => {
  checkPlan(await planQuery(stmt, topo, { runSubquery }), '(GLOBAL subquery)');
  const q = stmt.kind === 'union' ? stmt.selects[0]! : stmt;
  const meta = q.columns.map((_, i) => ({ name: `c${i}`, type: 'String' }));
  return { meta, rows: [0, 1, 2].map((r) => Object.fromEntries(meta.map((m) => [m.name, `v${r}`]))) };
};

function tablesOf(stmt: SelectStatement, out: TableExpr[] = []): TableExpr[] {
  const selects: SelectQuery[] = stmt.kind === 'union' ? stmt.selects : [stmt];
  for (const q of selects) {
    if (!q.from) continue;
    for (const t of [q.from.table, ...q.from.joins.map((j) => j.table)]) {
      out.push(t);
      if (t.kind === 'subqueryTable') tablesOf(t.query, out);
    }
  }
  // IN (SELECT ...) and scalar subqueries
  walkStatement(stmt, (e) => {
    if (e.kind === 'subquery') tablesOf(e.query, out);
  });
  return out;
}

function checkPlan(plan: QueryPlan, input: string): void {
  const externals = new Set(plan.external.map((t) => t.name));
  for (const sp of plan.shards) {
    for (const o of sp.externalOverrides ?? []) externals.add(o.name);
    if (sp.skipped) continue;
    expect(sp.sql, input).toBeTypeOf('string');
    const sql = sp.sql!;
    let stmt: SelectStatement;
    try {
      stmt = parseSelect(sql);
    } catch (e) {
      throw new Error(`shard SQL does not parse back: ${sql}\n  from ${JSON.stringify(input)}\n  ${String(e)}`);
    }
    const selects = stmt.kind === 'union' ? stmt.selects : [stmt];
    for (const q of selects) expect(q.settings ?? [], `SETTINGS clause in shard SQL: ${sql}`).toEqual([]);
    expect((stmt as { settings?: unknown[] }).settings ?? [], sql).toEqual([]);
    for (const t of tablesOf(stmt)) {
      if (t.kind === 'tableFunction') throw new Error(`table function ${t.name} in shard SQL: ${sql}`);
      if (t.kind !== 'table') continue;
      const name = t.database ? `${t.database}.${t.table}` : t.table;
      const ok = LOCAL_TABLES.has(name) || LOCAL_TABLES.has(`default.${name}`) || externals.has(t.table);
      if (!ok) throw new Error(`shard SQL reads ${name}: ${sql}\n  from ${JSON.stringify(input)}`);
    }
  }
  for (const k of Object.keys(plan.settings)) {
    expect(FORWARDED_SETTINGS.has(k), `forwarded setting ${k} not on the allowlist`).toBe(true);
    expect(RUNTIME_OWNED).not.toContain(k);
    // The runtime writes each shard's deadline itself; a query's own only lowers it.
    expect(['max_execution_time', 'timeout_overflow_mode']).not.toContain(k);
  }
}

const refusedBy = new Map<string, number>();
/** Plan `sql` (with request `settings`); returns what happened, throws on a property violation (including taking over BOUND_MS). */
async function planOrRefuse(sql: string, settings?: Record<string, unknown>): Promise<'planned' | 'refused'> {
  const t0 = performance.now();
  const outcome = await planOrRefuseUntimed(sql, settings);
  const ms = performance.now() - t0;
  if (ms > BOUND_MS) throw new Error(`took ${Math.round(ms)} ms: ${JSON.stringify(sql).slice(0, 200)}`);
  return outcome;
}

async function planOrRefuseUntimed(sql: string, settings?: Record<string, unknown>): Promise<'planned' | 'refused'> {
  try {
    const req = parseQueryRequest(JSON.stringify(settings ? { sql, settings } : { sql }));
    const plan = await planQuery(req.sql, topo, { ...(req.settings ? { settings: req.settings } : {}), runSubquery });
    checkPlan(plan, sql);
    return 'planned';
  } catch (e) {
    if (!(e instanceof ScatterError)) throw new Error(`non-ScatterError for ${JSON.stringify(sql)}: ${(e as Error)?.stack ?? String(e)}`);
    if (e.status < 400 || e.status >= 500) throw new Error(`status ${e.status} (${e.code}) for ${JSON.stringify(sql)}: ${e.message}`);
    refusedBy.set(e.code, (refusedBy.get(e.code) ?? 0) + 1);
    return 'refused';
  }
}

const TOKENS = [
  'SELECT',
  'FROM',
  'WHERE',
  'PREWHERE',
  'AND',
  'OR',
  'NOT',
  'IN',
  'GLOBAL',
  'JOIN',
  'LEFT',
  'ANY',
  'ON',
  'USING',
  'ARRAY JOIN',
  '(',
  ')',
  ',',
  '.',
  '[',
  ']',
  "'",
  '`',
  '"',
  '-',
  '--',
  '/*',
  '*/',
  '+',
  '*',
  '/',
  '%',
  '=',
  '!=',
  '<',
  '>',
  '?',
  ':',
  '::',
  '->',
  '1',
  '0',
  '-1',
  '255',
  '256',
  '18446744073709551616',
  '1e308',
  'nan',
  'NULL',
  'CASE',
  'WHEN',
  'THEN',
  'ELSE',
  'END',
  'CAST',
  'AS',
  'LIMIT',
  'OFFSET',
  'BY',
  'GROUP',
  'ORDER',
  'DESC',
  'HAVING',
  'UNION',
  'ALL',
  'WITH',
  'SETTINGS',
  'readonly = 0',
  'max_threads = 2',
  'max_execution_time = 0',
  'FORMAT',
  'JSON',
  ';',
  'DISTINCT',
  'TOTALS',
  'FINAL',
  'SAMPLE',
  'count()',
  'sum(value)',
  'uniq(sensor)',
  'avg(v)',
  'quantile(0.5)(value)',
  'topK(3)(sensor)',
  'any(sensor)',
  'sensor',
  'value',
  'k',
  'v',
  'user_id',
  '_shard_num',
  'analytics.events_dist',
  'analytics.users_dist',
  'nums_dist',
  'signed_dist',
  'analytics.events',
  'system.tables',
  'numbers(10)',
  "'s-1'",
  "'s-2'",
  "('s-1', 's-2')",
  '(SELECT sensor FROM analytics.events_dist)',
  '(SELECT user_id FROM analytics.users_dist)',
  'INSERT',
  'DROP',
  'INTO OUTFILE',
  "file('/etc/passwd')",
  'x -> x',
  'arrayJoin',
  'tuple',
  '\u00e9',
  '\ud83d\ude00',
];

const soup = fc.array(fc.constantFrom(...TOKENS), { minLength: 1, maxLength: 30 }).map((ts) => ts.join(' '));

/** Split a query into rough tokens (words, quoted strings, punctuation) for mutation. */
function tokenize(sql: string): string[] {
  return sql.match(/'(?:[^'\\]|\\.)*'|`[^`]*`|\w+|\s+|./g) ?? [];
}

const mutation = fc
  .record({
    base: fc.constantFrom(...CORPUS.map((c) => c.sql)),
    ops: fc.array(
      fc.record({
        kind: fc.constantFrom('delete', 'insert', 'duplicate', 'swap', 'replace'),
        at: fc.nat(),
        len: fc.integer({ min: 1, max: 3 }),
        token: fc.constantFrom(...TOKENS),
      }),
      { minLength: 1, maxLength: 2 },
    ),
  })
  .map(({ base, ops }) => {
    let ts = tokenize(base);
    for (const op of ops) {
      if (ts.length === 0) break;
      const i = op.at % ts.length;
      if (op.kind === 'delete') ts.splice(i, op.len);
      else if (op.kind === 'insert') ts.splice(i, 0, ' ', op.token, ' ');
      else if (op.kind === 'duplicate') ts.splice(i, 0, ...ts.slice(i, i + op.len));
      else if (op.kind === 'swap' && i + 1 < ts.length) [ts[i], ts[i + 1]] = [ts[i + 1]!, ts[i]!];
      else if (op.kind === 'replace') ts[i] = op.token;
    }
    ts = ts.filter((t) => t !== undefined);
    return ts.join('');
  });

const settingsArb = fc.option(
  fc.dictionary(
    fc.constantFrom(
      'max_threads',
      'readonly',
      'max_execution_time',
      'max_block_size',
      'allow_ddl',
      'optimize_skip_unused_shards',
      'log_queries',
      'max_rows_to_read',
      'READONLY',
      'x',
      '',
    ),
    fc.oneof(fc.integer({ min: -2, max: 100_000 }), fc.constantFrom('0', '1', 'break', '1; DROP TABLE x', 'throw'), fc.boolean()),
    { maxKeys: 3 },
  ),
  { nil: undefined, freq: 2 },
);

describe('fuzz: request -> parser -> planner', () => {
  it('the corpus itself plans safely (the base of the mutations)', async () => {
    const outcomes = await Promise.all(CORPUS.map((c) => planOrRefuse(c.sql)));
    expect(outcomes.filter((o) => o === 'planned').length).toBeGreaterThan(CORPUS.length / 2);
  });

  it('random token soups: plan safely or refuse with a 4xx ScatterError', async () => {
    const seen = { planned: 0, refused: 0 };
    await fc.assert(
      fc.asyncProperty(soup, async (sql) => {
        seen[await planOrRefuse(sql)]++;
        seen[await planOrRefuse(`SELECT count() FROM analytics.events_dist WHERE ${sql}`)]++;
      }),
      { numRuns: 1500 },
    );
    expect(seen.refused).toBeGreaterThan(0);
  });

  it('mutations of the planner corpus, with random request settings: plan safely or refuse with a 4xx', async () => {
    const seen = { planned: 0, refused: 0 };
    await fc.assert(
      fc.asyncProperty(mutation, settingsArb, async (sql, settings) => {
        seen[await planOrRefuse(sql, settings)]++;
      }),
      { numRuns: 3000 },
    );
    console.log(`[planner-fuzz] mutations: ${JSON.stringify(seen)}; refusals by code so far: ${JSON.stringify(Object.fromEntries(refusedBy))}`);
    // The mutations must reach the planner, not only the parser's refusals.
    expect(seen.planned).toBeGreaterThan(200);
    expect(seen.refused).toBeGreaterThan(100);
  });

  it('settings forwarded to shards pass the allowlist; runtime-owned ones are refused by name', async () => {
    for (const name of RUNTIME_OWNED) {
      for (const how of ['request', 'sql'] as const) {
        const p =
          how === 'request'
            ? planQuery('SELECT count() FROM analytics.events_dist', topo, { settings: { [name]: 0 } })
            : planQuery(`SELECT count() FROM analytics.events_dist SETTINGS ${name} = 0`, topo, {});
        await expect(p, `${name} via ${how}`).rejects.toMatchObject({ code: 'UNSUPPORTED', status: 400 });
      }
    }
    // An allow-listed one is forwarded as a setting, never left in the shard SQL text.
    const plan = await planQuery('SELECT count() FROM analytics.events_dist SETTINGS max_threads = 2', topo, { settings: { max_block_size: 1000 } });
    expect(plan.settings).toEqual({ max_threads: 2, max_block_size: 1000 });
    for (const sp of plan.shards) expect(sp.sql).not.toMatch(/SETTINGS/i);
    expect([...FORWARDED_SETTINGS].filter((n) => RUNTIME_OWNED.includes(n))).toEqual([]);
    // Not on the list: refused by name, with where it was.
    await expect(planQuery('SELECT count() FROM analytics.events_dist SETTINGS totally_made_up = 1', topo, {})).rejects.toMatchObject({
      code: 'UNSUPPORTED',
      position: { line: 1 },
    });
  });
});
