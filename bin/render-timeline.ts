// (Used by the CLI.) `ch-scatter query --timeline`: the /play page's shard timeline as text bars,
// drawn from the same `statistics` fields and scaled to the terminal's width. One lane per shard
// (a second row when a hedge was sent), skipped shards with their reason, one lane per request of the
// query's subqueries, the coordinator's lane (plan, each merge, finalize) and the deadline as a vertical rule.
import type { QueryResponse } from '../shared/core/scatter/run-query.js';

type Stats = QueryResponse['statistics'];

/** What each attempt status is drawn with. */
export const STATUS_CHAR: Record<string, string> = { ok: '█', timeout: '▒', error: '×', unavailable: '×', throttled: '×', cancelled: '─', aborted: '─' };
const COORD_CHAR: Record<string, string> = { plan: 'p', merge: 'm', finalize: 'f' };
const LABEL = 10;
const TAIL_MIN = 24;
const BARS_MIN = 20;

function lanesEnd(st: Stats): number {
  const ends = [
    st.elapsedMs,
    ...st.shards.flatMap((s) => [s.endMs ?? 0, ...(s.attempts ?? []).map((a) => a.endMs)]),
    ...(st.coordinator ?? []).map((c) => c.endMs),
    ...(st.subqueries ?? []).map((s) => s.endMs ?? 0),
  ];
  return Math.max(1, ...ends);
}

export function renderTimeline(st: Stats, columns = 80): string {
  const cols = Math.max(LABEL + BARS_MIN + TAIL_MIN, Math.floor(columns));
  const bars = Math.max(BARS_MIN, cols - LABEL - TAIL_MIN - 1);
  const busy = lanesEnd(st);
  // As on the page: the deadline is drawn to scale when it falls near the work, else only named.
  const inScale = st.deadlineAtMs !== undefined && st.deadlineAtMs <= busy * 1.5;
  const span = inScale ? Math.max(busy, st.deadlineAtMs) * 1.02 : busy * 1.02;
  const col = (ms: number) => Math.min(bars - 1, Math.max(0, Math.floor((ms / span) * bars)));
  const deadlineCol = inScale ? col(st.deadlineAtMs) : undefined;

  const row = (label: string, cells: string[], tail: string) => {
    if (deadlineCol !== undefined && cells[deadlineCol] === ' ') cells[deadlineCol] = '│';
    const line = `${label.padEnd(LABEL).slice(0, LABEL)}${cells.join('')} ${tail}`;
    return line.length > cols ? `${line.slice(0, cols - 1)}…` : line.trimEnd();
  };
  const paint = (cells: string[], from: number, to: number, ch: string) => {
    const a = col(from);
    const b = Math.max(a, col(to) - (to > from && col(to) > a ? 1 : 0));
    for (let i = a; i <= b; i++) cells[i] = ch;
  };
  const blank = () => Array.from({ length: bars }, () => ' ');

  const out: string[] = [];
  const deadline = st.deadlineAtMs === undefined ? '' : inScale ? `, │ deadline ${st.deadlineAtMs} ms` : `, deadline ${st.deadlineAtMs} ms (beyond the chart)`;
  out.push(`timeline: 0 … ${Math.round(span)} ms${deadline}`);

  const lanes: Array<{ shard: number; line: () => string[] }> = [];
  for (const s of st.shards) {
    lanes.push({
      shard: s.shard,
      line: () => {
        const main = blank();
        const hedge = blank();
        const attempts = s.attempts?.length
          ? s.attempts
          : [{ kind: 'primary' as const, status: s.status, replica: s.replica, startMs: s.startMs ?? 0, endMs: s.endMs ?? s.elapsedMs }];
        for (const a of attempts) paint(a.kind === 'hedge' ? hedge : main, a.startMs, a.endMs, STATUS_CHAR[a.status] ?? '×');
        const how = [s.hedged ? 'hedged' : '', s.retried ? 'retried' : ''].filter(Boolean).join(', ');
        const lines = [row(`shard ${s.shard}`, main, `${s.status}${how ? ` (${how})` : ''} r${s.replica} ${s.elapsedMs} ms`)];
        const h = attempts.find((a) => a.kind === 'hedge');
        if (h) lines.push(row('  hedge', hedge, `r${h.replica} ${h.status}`));
        return lines;
      },
    });
  }
  for (const k of st.skipped ?? []) lanes.push({ shard: k.shard, line: () => [row(`shard ${k.shard}`, [], `skipped: ${k.reason}`)] });
  lanes.sort((a, b) => a.shard - b.shard);
  for (const l of lanes) out.push(...l.line());
  // The subqueries' requests (GLOBAL sets, scalars, folded key constants), in the order they started: planning's part.
  for (const s of [...(st.subqueries ?? [])].sort((a, b) => (a.startMs ?? 0) - (b.startMs ?? 0))) {
    const cells = blank();
    const attempts = s.attempts.length ? s.attempts : [{ status: s.status, startMs: s.startMs ?? 0, endMs: s.endMs ?? s.elapsedMs }];
    for (const a of attempts) paint(cells, a.startMs, a.endMs, STATUS_CHAR[a.status] ?? '×');
    out.push(row(`sub s${s.shard}`, cells, `${s.status} r${s.replica} ${s.elapsedMs} ms`));
  }

  if (st.coordinator?.length) {
    const cells = blank();
    for (const c of st.coordinator) paint(cells, c.startMs, c.endMs, COORD_CHAR[c.name] ?? '?');
    const merges = st.coordinator.filter((c) => c.name === 'merge').length;
    out.push(row('coord', cells, `plan, ${merges} merge${merges === 1 ? '' : 's'}, finalize`));
  }
  out.push(`legend:   █ ok ▒ timeout × error ─ cancelled${deadlineCol !== undefined ? ' │ deadline' : ''} p/m/f plan/merge/finalize`.slice(0, cols).trimEnd());
  return out.join('\n');
}
