// The one code table: classes, the message-dependent memory limit, unknown codes, and the kind the
// adapters give a server error (a late shard vs a query fault).
import { describe, expect, it } from 'vitest';
import { CLICKHOUSE_ERROR_CODES, classOf, clickHouseErrorName, isQueryFault } from '../../../shared/core/clickhouse/error-codes.js';
import { serverError } from '../../../shared/adapters/clickhouse/errors.js';

describe('ClickHouse error classes', () => {
  it("the examples users met: FINAL, SAMPLE, column count, memory, TOO_SLOW are the query's fault", () => {
    for (const c of [181, 141, 20, 241, 160]) expect(isQueryFault(c), String(c)).toBe(true);
    expect(classOf(160)).toBe('limit');
    expect(classOf(181)).toBe('user');
  });
  it('the deadline is a timeout, a KILL a cancel, unknown and missing codes the server', () => {
    expect(classOf(159)).toBe('timeout');
    expect(classOf(394)).toBe('cancelled');
    expect(classOf(99_999)).toBe('server');
    expect(classOf(undefined)).toBe('server');
    expect(clickHouseErrorName(99_999)).toBe('UNKNOWN_ERROR_99999');
    expect(isQueryFault(60)).toBe(false); // a shard without its local table is misconfigured
  });
  it("memory: the query's own limit is the user's; the server's or the account's total is not", () => {
    expect(classOf(241, 'Code: 241. DB::Exception: Query memory limit exceeded: would use 54.02 KiB')).toBe('limit');
    expect(classOf(241, 'Code: 241, e.displayText() = DB::Exception: Memory limit (for query) exceeded: would use 4.00 MiB')).toBe('limit');
    expect(classOf(241, 'Code: 241. DB::Exception: Memory limit (total) exceeded: would use 9.3 GiB')).toBe('server');
    expect(classOf(241, 'Code: 241. DB::Exception: Memory limit (for user) exceeded')).toBe('server');
  });
  it('codes and names are unique', () => {
    const names = [...CLICKHOUSE_ERROR_CODES.values()].map((e) => e.name);
    expect(new Set(names).size).toBe(names.length);
  });
  it('adapters: 159 is a timeout, 160 TOO_SLOW a server answer carrying its code (not a late shard)', () => {
    expect(serverError('Code: 159. DB::Exception: Timeout exceeded: elapsed 1000.1 ms').kind).toBe('timeout');
    const slow = serverError('Code: 160, e.displayText() = DB::Exception: Estimated query execution time (12.3 seconds) is too long. Maximum: 1');
    expect(slow.kind).toBe('server');
    expect(slow.chCode).toBe(160);
    expect(serverError('Code: 394. DB::Exception: Query was cancelled').kind).toBe('aborted');
  });
});
