// /explain and `ch-scatter explain`: the plan without running it (docs/api.md#post-explain):
// per-shard SQL or the reason the shard is skipped, the data shipped with the query, and the
// merge/finalize description.
import type { QueryPlan } from './types.js';

export interface ExplainShard {
  shard: number; // 0-based
  skipped: boolean;
  sql?: string;
  reason?: string;
  /** Rows of shipped data this shard receives when pruning narrowed them (name -> rows). */
  externalRows?: Record<string, number>;
}

export interface ExplainResponse {
  /** Which path answers: 'fast' (the coordinator's merge) or 'general' (two stages; `merge` then names the final stage's SQL). */
  path?: 'fast' | 'general';
  shards: ExplainShard[];
  external: { name: string; rows: number; materialized?: boolean }[];
  merge: string;
  /** Shipped data cut by transfer_overflow_mode = 'break': the answer will be partial. */
  truncated?: string[];
  settings?: Record<string, string | number | boolean>;
  /** A top count over groups that span shards: the method, and TPUT's round SQL (shared/core/plan/tput/describe.ts). */
  topCount?: { description: string; notTput?: string; roundSql?: string[] };
  /** What the planner did to the statement first (a subquery in FROM folded, or why not). */
  notes?: string[];
}

export function explainPlan(plan: QueryPlan): ExplainResponse {
  const pending = new Set(plan.unmaterialized ?? []);
  const out: ExplainResponse = {
    shards: plan.shards.map((s) => {
      if (s.skipped) return { shard: s.shard, skipped: true, reason: s.reason ?? 'skipped' };
      const e: ExplainShard = { shard: s.shard, skipped: false, sql: s.sql ?? '' };
      if (s.externalOverrides?.length) e.externalRows = Object.fromEntries(s.externalOverrides.map((t) => [t.name, t.rows.length]));
      return e;
    }),
    external: plan.external.map((t) => (pending.has(t.name) ? { name: t.name, rows: 0, materialized: false } : { name: t.name, rows: t.rows.length })),
    merge: plan.mergeDescription,
  };
  if (plan.truncated.length) out.truncated = [...plan.truncated];
  if (Object.keys(plan.settings).length) out.settings = { ...plan.settings };
  return out;
}

/** The explain answer as text for a terminal. */
export function renderExplainText(resp: ExplainResponse): string {
  const lines: string[] = [];
  if (resp.path) lines.push(`path: ${resp.path}`);
  for (const n of resp.notes ?? []) lines.push(`note: ${n}`);
  const total = resp.shards.length;
  const skipped = resp.shards.filter((s) => s.skipped).length;
  lines.push(`shards: ${total} (${total - skipped} queried, ${skipped} skipped)`);
  for (const s of resp.shards) {
    if (s.skipped) lines.push(`  shard ${s.shard}: skipped: ${s.reason ?? ''}`);
    else {
      lines.push(`  shard ${s.shard}: ${s.sql ?? ''}`);
      for (const [n, r] of Object.entries(s.externalRows ?? {})) lines.push(`    ships ${r} row(s) of ${n}`);
    }
  }
  if (resp.external.length) {
    lines.push('external data (GLOBAL IN / GLOBAL JOIN, run once on the coordinator):');
    for (const e of resp.external) lines.push(`  ${e.name}: ${e.materialized === false ? 'not run (no subquery runner)' : `${e.rows} row(s)`}`);
  }
  if (resp.truncated?.length) {
    lines.push('truncated (the answer will be partial):');
    for (const t of resp.truncated) lines.push(`  ${t}`);
  }
  if (resp.settings && Object.keys(resp.settings).length) {
    lines.push(
      `settings: ${Object.entries(resp.settings)
        .map(([k, v]) => `${k}=${String(v)}`)
        .join(', ')}`,
    );
  }
  if (resp.topCount) {
    lines.push(`top count: ${resp.topCount.description}${resp.topCount.notTput ? ` (not TPUT: ${resp.topCount.notTput})` : ''}`);
    for (const r of resp.topCount.roundSql ?? []) lines.push(`  ${r}`);
  }
  lines.push(`merge: ${resp.merge}`);
  return lines.join('\n');
}
