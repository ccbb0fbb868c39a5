// `ch-scatter query --timeline`: the same lanes as /play, as text scaled to the terminal width.
import { describe, expect, it } from 'vitest';
import { renderTimeline } from '../../../bin/render-timeline.js';
import type { QueryResponse } from '../../../shared/core/scatter/run-query.js';

type Stats = QueryResponse['statistics'];
const shard = (o: Partial<Stats['shards'][number]>): Stats['shards'][number] => ({
  shard: 0,
  replica: 0,
  elapsedMs: 0,
  status: 'ok',
  hedged: false,
  retried: false,
  rowsRead: 0,
  bytesRead: 0,
  attempts: [],
  ...o,
});

// shard 0 hedged (primary cancelled at 400, hedge 250-400), shard 1 ok, shard 2 cut at the 1000 ms deadline, shard 3 skipped
const STATS: Stats = {
  elapsedMs: 1010,
  rowsRead: 0,
  bytesRead: 0,
  deadlineMs: 1000,
  deadlineLimitedBy: 'request',
  deadlineAtMs: 1000,
  shards: [
    shard({
      shard: 0,
      replica: 1,
      elapsedMs: 390,
      hedged: true,
      startMs: 10,
      endMs: 400,
      attempts: [
        { replica: 0, kind: 'primary', status: 'aborted', startMs: 10, endMs: 400 },
        { replica: 1, kind: 'hedge', status: 'ok', startMs: 250, endMs: 400 },
      ],
    }),
    shard({ shard: 1, elapsedMs: 100, startMs: 10, endMs: 110, attempts: [{ replica: 0, kind: 'primary', status: 'ok', startMs: 10, endMs: 110 }] }),
    shard({
      shard: 2,
      status: 'timeout',
      elapsedMs: 990,
      startMs: 10,
      endMs: 1000,
      attempts: [{ replica: 0, kind: 'primary', status: 'timeout', startMs: 10, endMs: 1000 }],
    }),
  ],
  skipped: [{ shard: 3, reason: 'no value of k IN (1) lives on this shard' }],
  coordinator: [
    { name: 'plan', startMs: 0, endMs: 8 },
    { name: 'merge', startMs: 111, endMs: 112, shard: 1 },
    { name: 'merge', startMs: 401, endMs: 402, shard: 0 },
    { name: 'finalize', startMs: 1003, endMs: 1005 },
  ],
} as Stats;

const bars = (line: string) => line.slice(10);

describe('renderTimeline', () => {
  it('draws one lane per shard in shard order, a hedge row, the skipped reason, the coordinator lane and a legend', () => {
    const lines = renderTimeline(STATS, 100).split('\n');
    expect(lines.map((l) => l.slice(0, 10).trim())).toEqual(['timeline:', 'shard 0', 'hedge', 'shard 1', 'shard 2', 'shard 3', 'coord', 'legend:']);
    expect(lines[0]).toContain('│ deadline 1000 ms');
    expect(lines[1]).toContain('─'); // the cancelled primary
    expect(lines[1]).toMatch(/ok \(hedged\) r1 390 ms$/);
    expect(lines[2]).toContain('█');
    expect(lines[2]).toMatch(/r1 ok$/);
    expect(lines[4]).toContain('▒');
    expect(lines[4]).toMatch(/timeout r0 990 ms$/);
    expect(lines[5]).toBe('shard 3    skipped: no value of k IN (1) lives on this shard');
    expect(lines[6]).toMatch(/p.*m.*m.*f/);
    expect(lines[7]).toMatch(/^legend: +█ ok/);
  });

  it('scales to the width: no line is longer than the terminal, and bars are proportional', () => {
    for (const w of [60, 80, 132, 200]) {
      const lines = renderTimeline(STATS, w).split('\n');
      for (const l of lines) expect(l.length).toBeLessThanOrEqual(w);
      const hedgeRow = bars(lines[2]!);
      const timeoutRow = bars(lines[4]!);
      const hedgeStart = hedgeRow.indexOf('█');
      const timeoutEnd = timeoutRow.lastIndexOf('▒');
      // the hedge starts a quarter of the way to the deadline; the straggler runs to it
      expect(hedgeStart / timeoutEnd).toBeGreaterThan(0.15);
      expect(hedgeStart / timeoutEnd).toBeLessThan(0.35);
    }
    expect(bars(renderTimeline(STATS, 200).split('\n')[4]!).lastIndexOf('▒')).toBeGreaterThan(bars(renderTimeline(STATS, 80).split('\n')[4]!).lastIndexOf('▒'));
  });

  it('the deadline rule sits in the same column on every lane that has room for it', () => {
    const lines = renderTimeline(STATS, 100).split('\n');
    const c = bars(lines[3]!).indexOf('│'); // shard 1 ended early: its row shows the rule
    expect(c).toBeGreaterThan(0);
    for (const i of [1, 2]) expect(bars(lines[i]!)[c]).toBe('│');
    // shard 2's bar runs up to the rule: the bar ends right before it, never past it
    expect(bars(lines[4]!).lastIndexOf('▒')).toBeLessThanOrEqual(c);
  });

  it("the subqueries' requests get a lane each, in the order they started, before the coordinator's", () => {
    const subqueries = [
      shard({ shard: 2, elapsedMs: 4, startMs: 3, endMs: 7, attempts: [{ replica: 0, kind: 'primary', status: 'ok', startMs: 3, endMs: 7 }] }),
      shard({
        shard: 0,
        status: 'error',
        elapsedMs: 5,
        startMs: 1,
        endMs: 6,
        attempts: [{ replica: 0, kind: 'primary', status: 'error', startMs: 1, endMs: 6 }],
      }),
    ];
    const lines = renderTimeline({ ...STATS, subqueries } as Stats, 100).split('\n');
    expect(lines.map((l) => l.slice(0, 10).trim())).toEqual([
      'timeline:',
      'shard 0',
      'hedge',
      'shard 1',
      'shard 2',
      'shard 3',
      'sub s0',
      'sub s2',
      'coord',
      'legend:',
    ]);
    expect(lines[6]).toMatch(/×.* error r0 5 ms$/);
    expect(lines[7]).toMatch(/█.* ok r0 4 ms$/);
    // Drawn on the query's scale: early, within the plan's first columns.
    expect(bars(lines[7]!).indexOf('█')).toBeLessThan(bars(lines[3]!).indexOf('█') + 1);
  });

  it('a deadline far beyond the work is named, not drawn; a shard without attempts is drawn from its own span', () => {
    const st = { ...STATS, deadlineAtMs: 30_000, shards: [shard({ shard: 0, startMs: 0, endMs: 500, elapsedMs: 500 })], skipped: [] } as Stats;
    const out = renderTimeline(st, 80);
    expect(out).toContain('deadline 30000 ms (beyond the chart)');
    expect(out).not.toContain('│');
    expect(out.split('\n')[1]).toContain('█');
  });
});
