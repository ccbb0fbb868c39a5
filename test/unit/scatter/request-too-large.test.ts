// A shard request over Lambda's 6 MB Invoke limit: refused at planning when the shipped GLOBAL data
// alone is too large, and, should Lambda still refuse a request (413), reported as a 413 TOO_LARGE
// naming the request, never as an unavailable shard that is retried and then missing.
import { describe, expect, it } from 'vitest';
import { assertShippable, type Materialized } from '../../../shared/core/plan/globals.js';
import { INVOKE_PAYLOAD_LIMIT_BYTES, MAX_SHIPPED_BYTES } from '../../../shared/core/protocol/shard-wire.js';
import { classifyFailure } from '../../../shared/core/scatter/call-shard.js';
import { InvokeError } from '../../../shared/core/scatter/invoker.js';
import { tooLargeError } from '../../../shared/core/scatter/too-large.js';
import { ScatterError } from '../../../shared/core/errors.js';
import type { SelectStatement } from '../../../shared/core/sql/ast.js';

function shipped(values: number, width: number): Map<string, Materialized> {
  const rows = Array.from({ length: values }, (_, i) => ({ s: String(i).padStart(width, 'x') }));
  return new Map([
    ['_data_1', { table: { name: '_data_1', columns: [{ name: 's', type: 'String' }], rows }, materialized: true, source: {} as SelectStatement }],
  ]);
}

describe('shard requests over the Lambda request limit', () => {
  it('refuses shipped GLOBAL data above the budget with 413 TRANSFER_LIMIT, and lets it through just below', () => {
    // {"s":"<width chars>"} plus a comma: width + 9 bytes per row.
    const width = 100;
    const fits = Math.floor((MAX_SHIPPED_BYTES - 200) / (width + 9));
    expect(() => assertShippable(shipped(fits, width))).not.toThrow();
    let err: unknown;
    try {
      assertShippable(shipped(fits + 2000, width));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ScatterError);
    expect((err as ScatterError).code).toBe('TRANSFER_LIMIT');
    expect((err as ScatterError).status).toBe(413);
    expect((err as ScatterError).message).toContain(`${INVOKE_PAYLOAD_LIMIT_BYTES} bytes`);
    // Not materialized (explain): nothing is shipped, nothing to refuse.
    const m = shipped(fits + 2000, width);
    m.get('_data_1')!.materialized = false;
    expect(() => assertShippable(m)).not.toThrow();
  });

  it("classifies Lambda's 413 as a deterministic TOO_LARGE and words the answer for the request", () => {
    for (const name of ['RequestEntityTooLargeException', 'RequestTooLargeException']) {
      const f = classifyFailure(new InvokeError('unavailable', `${name}: Request must be smaller than 6291456 bytes for the InvokeFunction operation`, name));
      expect(f).toMatchObject({ status: 'error', code: 'TOO_LARGE' });
    }
    expect(classifyFailure(new InvokeError('unavailable', 'ECONNREFUSED: connect', 'ECONNREFUSED'))).toMatchObject({ status: 'unavailable' });
    const err = tooLargeError(
      [
        {
          shard: 2,
          status: 'error',
          code: 'TOO_LARGE',
          message: 'replica 0 (primary): RequestEntityTooLargeException: Request must be smaller than 6291456 bytes',
        } as never,
      ],
      'query',
    );
    expect(err?.status).toBe(413);
    expect(err?.message).toMatch(/request to shard 2 is larger than a Lambda request may be \(6 MB\)/);
  });
});
