// (Used by the CLI.) Human-readable rendering of a /query answer: an aligned table, then the shard summary (what
// was skipped, missing and why, hedges, timings). Numbers right-aligned, like clickhouse-client.
import type { QueryResponse } from '../shared/core/scatter/run-query.js';
import type { TableCoverage } from '../shared/core/scatter/query-types.js';

const NUMERIC = /^(Nullable\()?(U?Int\d+|Float\d+|Decimal)/;

function cell(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'string') return v;
  return JSON.stringify(v);
}

export function renderTable(meta: { name: string; type: string }[], data: Record<string, unknown>[], maxRows = 1000): string {
  const cols = meta.map((m) => m.name);
  const rows = data.slice(0, maxRows).map((r) => cols.map((c) => cell(r[c])));
  const width = cols.map((c, i) => Math.min(60, Math.max(c.length, ...rows.map((r) => r[i]!.length))));
  const right = meta.map((m) => NUMERIC.test(m.type));
  const fmt = (vals: string[]) =>
    vals
      .map((v, i) => {
        const t = v.length > width[i]! ? v.slice(0, width[i]! - 1) + '…' : v;
        return right[i] ? t.padStart(width[i]!) : t.padEnd(width[i]!);
      })
      .join(' │ ');
  const line = width.map((w) => '─'.repeat(w)).join('─┼─');
  const out = [fmt(cols), line, ...rows.map(fmt)];
  if (data.length > maxRows) out.push(`… ${data.length - maxRows} more rows`);
  return out.join('\n');
}

export function renderSummary(r: QueryResponse): string {
  const s = r.shards;
  const lines = [
    `${r.rows} row${r.rows === 1 ? '' : 's'}${r.partial ? ' — PARTIAL RESULT' : ''} in ${r.statistics.elapsedMs} ms; read ${r.statistics.rowsRead.toLocaleString('en-US')} rows, ${r.statistics.bytesRead.toLocaleString('en-US')} bytes`,
    `shards: ${s.total} total, ${s.queried} queried, ${s.skipped} skipped, ${s.succeeded} succeeded, ${s.failed} failed, ${s.timedOut} timed out, ${s.hedged} hedged`,
  ];
  for (const m of s.missing) lines.push(`  missing shard ${m.shard}: ${m.reason}${m.subquery ? ' (GLOBAL subquery)' : ''} — ${m.message}`);
  for (const c of r.coverage ?? []) lines.push(`  ${coverageLine(c)}`);
  for (const st of r.statistics.shards) {
    lines.push(`  shard ${st.shard} replica ${st.replica}: ${st.status} ${st.elapsedMs} ms${st.hedged ? ' (hedged)' : ''}${st.retried ? ' (retried)' : ''}`);
  }
  for (const t of r.truncated ?? []) lines.push(`  truncated: ${t}`);
  for (const [col, a] of Object.entries(r.approximate ?? {})) {
    const err =
      a.relativeStdError !== undefined
        ? `relative std error ${a.relativeStdError}`
        : a.relativeError !== undefined
          ? `relative error ${a.relativeError}`
          : a.errorUpperBound !== undefined
            ? `error bound ${a.errorUpperBound}`
            : '';
    lines.push(`  approximate ${col}: ${a.method} ${err}`.trimEnd());
  }
  const top = r.topCount;
  if (top) {
    const why = top.fellBack ?? top.notTput;
    lines.push(`  top count: ${top.description}${why ? ` (${why})` : ''}`);
    for (const x of top.rounds ?? []) lines.push(`    round ${x.round}: ${x.shards} shard(s), ${x.rows} group rows, ${x.bytes} bytes, ${x.elapsedMs} ms`);
    if (top.candidates !== undefined && top.method === 'tput') lines.push(`    round 2 over ${top.candidates} candidate group(s)`);
  }
  if (r.cursor) lines.push(`  more rows: continue with "cursor": "${r.cursor}"`);
  return lines.join('\n');
}

/** One table's coverage: the share of its rows the answering shards hold, or why it is unknown. */
export function coverageLine(c: TableCoverage): string {
  if (c.share === undefined) return `coverage of ${c.table}: unknown (${c.unknown})`;
  return `coverage of ${c.table}: ${(c.share * 100).toFixed(2)}% of its rows (${c.rowsAnswered} of ${c.rowsAsked} in the shards asked)`;
}
