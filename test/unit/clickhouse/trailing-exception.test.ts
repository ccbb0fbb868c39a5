// ClickHouse's HTTP interface writes an error found after its 200 into the body as exception text
// and ends the body as if complete; a streamed read holds its tail back and looks for it
// (shared/adapters/clickhouse/http-raw-stream.ts). The texts are 18.16's and current versions'.
import { describe, expect, it } from 'vitest';
import { trailingException } from '../../../shared/adapters/clickhouse/http-raw-stream.js';

const OLD = "Code: 395, e.displayText() = DB::Exception: Value passed to 'throwIf' function is non zero, e.what() = DB::Exception\n";
const NEW =
  "Code: 395. DB::Exception: Value passed to 'throwIf' function is non-zero: while executing 'FUNCTION throwIf(...)'. (FUNCTION_THROW_IF_VALUE_IS_NON_ZERO) (version 24.8.4.13 (official build))\n";

describe('trailingException', () => {
  it("finds the exception ClickHouse appended after the rows, in 18.16's and current spelling", () => {
    expect(trailingException(Buffer.from(`1\t0\n2\t0\n${OLD}`))).toBe(OLD);
    expect(trailingException(Buffer.from(`1\t0\n${NEW}`))).toBe(NEW);
    expect(trailingException(Buffer.from(OLD))).toBe(OLD);
  });

  it('leaves answers alone: rows only, the text inside a row, or not at the end', () => {
    expect(trailingException(Buffer.from('1\t0\n2\t0\n'))).toBeUndefined();
    expect(trailingException(Buffer.from(`x\t${OLD}`))).toBeUndefined(); // not at a line start
    expect(trailingException(Buffer.from(`${OLD}3\t0\n`))).toBeUndefined(); // rows follow it
    expect(trailingException(Buffer.alloc(0))).toBeUndefined();
  });
});
