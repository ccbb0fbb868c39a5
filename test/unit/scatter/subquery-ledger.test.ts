// What GLOBAL subqueries leave for the answer: a path that plans the query anew forgets its own runs,
// but never those the statement itself was rewritten from (EXISTS folded into its constant before
// either path planned): a shard missing there still makes the answer partial.
import { describe, expect, it } from 'vitest';
import { clearLedger, pinLedger, type SubqueryLedger } from '../../../shared/core/scatter/global-subquery.js';

const missing = (shard: number) => ({ shard, reason: 'timeout' as const, message: `shard ${shard}`, subquery: true });

describe('the subquery ledger', () => {
  it('forgets every run when nothing is pinned', () => {
    const l: SubqueryLedger = { outcomes: [], missing: [missing(1) as never], truncated: ['x'] };
    clearLedger(l);
    expect([l.missing.length, l.truncated.length]).toEqual([0, 0]);
  });
  it('keeps what was pinned through later clears, and forgets what came after', () => {
    const l: SubqueryLedger = { outcomes: [], missing: [missing(1) as never], truncated: [] };
    pinLedger(l);
    l.missing.push(missing(2) as never);
    l.truncated.push('GLOBAL subquery: cut');
    clearLedger(l);
    expect(l.missing.map((m) => m.shard)).toEqual([1]);
    expect(l.truncated).toEqual([]);
    clearLedger(l);
    expect(l.missing.map((m) => m.shard)).toEqual([1]);
  });
});
