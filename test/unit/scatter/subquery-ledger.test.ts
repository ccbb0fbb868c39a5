// What GLOBAL subqueries leave for the answer: a path that plans the query anew forgets its own runs,
// but never those the statement itself was rewritten from (EXISTS folded into its constant before
// either path planned): a shard missing there still makes the answer partial.
import { describe, expect, it } from 'vitest';
import { clearLedger, pinLedger, type SubqueryLedger } from '../../../shared/core/scatter/global-subquery.js';

const missing = (shard: number) => ({ shard, reason: 'timeout' as const, message: `shard ${shard}`, subquery: true });

describe('the subquery ledger', () => {
  it('forgets every run when nothing is pinned', () => {
    const l: SubqueryLedger = { outcomes: [], missing: [missing(1) as never], truncated: ['x'], abandoned: [] };
    clearLedger(l);
    expect([l.missing.length, l.truncated.length]).toEqual([0, 0]);
  });
  it('keeps what was pinned through later clears, and forgets what came after', () => {
    const l: SubqueryLedger = { outcomes: [], missing: [missing(1) as never], truncated: [], abandoned: [] };
    pinLedger(l);
    l.missing.push(missing(2) as never);
    l.truncated.push('GLOBAL subquery: cut');
    clearLedger(l);
    expect(l.missing.map((m) => m.shard)).toEqual([1]);
    expect(l.truncated).toEqual([]);
    clearLedger(l);
    expect(l.missing.map((m) => m.shard)).toEqual([1]);
  });
  it('keeps the requests of the runs it forgets as abandoned: they read rows, the price counts them', () => {
    const outcome = (shard: number) => ({ shard, status: 'ok' }) as never;
    const l: SubqueryLedger = { outcomes: [outcome(0)], missing: [], truncated: [], abandoned: [] };
    pinLedger(l);
    l.outcomes.push(outcome(1), outcome(2));
    clearLedger(l);
    expect([l.outcomes, l.abandoned].map((os) => os.map((o: { shard: number }) => o.shard))).toEqual([[0], [1, 2]]);
  });
});
