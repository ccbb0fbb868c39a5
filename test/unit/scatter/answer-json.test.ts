// The JSON API's answer text: a Float column's "-0" (how -0 travels every hop, since JSON.stringify
// writes -0 as 0) is written last as the number -0, as ClickHouse's JSON writes it; nothing else changes.
// (Against chdb's own JSON through the local stack: test/oracle/clickhouse-tests.test.ts.)
import { describe, expect, it } from 'vitest';
import { stringifyAnswer } from '../../../shared/core/protocol/answer-json.js';

describe('stringifyAnswer', () => {
  it('writes a Float column\'s "-0" as -0 in data, totals and extremes; a String "-0" stays a string', () => {
    const body = {
      meta: [
        { name: 'f', type: 'Float64' },
        { name: 'n', type: 'Nullable(Float32)' },
        { name: 's', type: 'String' },
      ],
      data: [
        { f: '-0', n: '-0', s: '-0' },
        { f: 0, n: null, s: 'x' },
      ],
      totals: { f: '-0', n: 1.5, s: '-0' },
      extremes: { min: { f: '-0', n: '-0', s: '' }, max: { f: 'inf', n: 'nan', s: '-0' } },
      rows: 2,
    };
    const text = stringifyAnswer(body);
    expect(text).toBe(
      '{"meta":[{"name":"f","type":"Float64"},{"name":"n","type":"Nullable(Float32)"},{"name":"s","type":"String"}],' +
        '"data":[{"f":-0,"n":-0,"s":"-0"},{"f":0,"n":null,"s":"x"}],"totals":{"f":-0,"n":1.5,"s":"-0"},' +
        '"extremes":{"min":{"f":-0,"n":-0,"s":""},"max":{"f":"inf","n":"nan","s":"-0"}},"rows":2}',
    );
    expect(Object.is((JSON.parse(text) as { data: { f: number }[] }).data[0]!.f, -0)).toBe(true);
    // The body itself is left as it was (the caller may read it again).
    expect(body.data[0]!.f).toBe('-0');
  });

  it('anything else is JSON.stringify', () => {
    for (const b of [{ error: { code: 'X', message: '-0' } }, { meta: [{ name: 'a', type: 'UInt8' }], data: [{ a: '-0' }] }, 'text', null])
      expect(stringifyAnswer(b)).toBe(JSON.stringify(b));
  });
});
