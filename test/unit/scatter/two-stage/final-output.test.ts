import { describe, expect, it } from 'vitest';
import { parseFinalJson, rowLineSpeller } from '../../../../shared/core/scatter/two-stage/final-output.js';

describe("the final stage's JSON", () => {
  it('lifts meta, data, totals and extremes where ClickHouse puts them', () => {
    const doc = {
      meta: [{ name: 'k', type: 'String' }],
      data: [{ k: 'a' }],
      totals: { k: '' },
      extremes: { min: { k: 'a' }, max: { k: 'a' } },
      rows: 1,
      rows_before_limit_at_least: 3,
      statistics: { elapsed: 0.001, rows_read: 1, bytes_read: 1 },
    };
    expect(parseFinalJson(Buffer.from(JSON.stringify(doc)))).toEqual({
      meta: doc.meta,
      data: doc.data,
      totals: doc.totals,
      extremes: doc.extremes,
      rowsBeforeLimitAtLeast: 3,
    });
  });

  it("reads back chdb's out-of-order WITH TOTALS answer with no rows (totals first, a comma-broken empty data array)", () => {
    // Byte for byte what chdb 3.4 (ClickHouse 26.7) writes for
    // SELECT k, count() AS c FROM ... WHERE <nothing> GROUP BY k WITH TOTALS FORMAT JSON.
    const chdb =
      '\n\t],\n\n\t"totals":\n\t{\n\t\t"k": "0",\n\t\t"c": "0"\n\t}{\n\t"meta":\n\t[\n\t\t{\n\t\t\t"name": "k",\n\t\t\t"type": "UInt64"\n\t\t},\n\t\t{\n\t\t\t"name": "c",\n\t\t\t"type": "UInt64"\n\t\t}\n\t],\n\n\t"data":\n\t[\n,\n\n\t"rows": 0,\n\n\t"statistics":\n\t{\n\t\t"elapsed": 0.004305222,\n\t\t"rows_read": 0,\n\t\t"bytes_read": 0\n\t}\n}\n';
    expect(parseFinalJson(Buffer.from(chdb))).toEqual({
      meta: [
        { name: 'k', type: 'UInt64' },
        { name: 'c', type: 'UInt64' },
      ],
      data: [],
      totals: { k: '0', c: '0' },
    });
  });

  it('anything else that is not JSON is a SHARD_ERROR, never a guess', () => {
    expect(() => parseFinalJson(Buffer.from('{"meta": ['))).toThrow(/not ClickHouse JSON/);
    expect(() => parseFinalJson(Buffer.from('\n\t],\n"totals": {"k": "}"}{"meta": [], "data": [{"k": 1}], "rows": 1}'))).toThrow(/not ClickHouse JSON/);
    expect(() => parseFinalJson(Buffer.from('{"rows": 0}'))).toThrow(/no meta\/data/);
  });
});

describe("a streamed row's JSONEachRow line in the answer's spellings", () => {
  it('Decimal digits as text, as parseFinalJson spells data, a Float -0 as -0; any other line unchanged', () => {
    const meta = [
      { name: 'id', type: 'UInt64' },
      { name: 'd', type: 'Decimal(38, 10)' },
      { name: 'f', type: 'Float64' },
    ];
    const line = '{"id":"7","d":1234567890123456789.0123456789,"f":-0}';
    const doc = `{"meta":${JSON.stringify(meta)},"data":[${line}],"rows":1}`;
    // A Float's -0 as the number -0, as the HTTP API's whole answer writes it (answer-json.ts).
    expect(JSON.parse(rowLineSpeller(meta)(line))).toEqual({ ...parseFinalJson(Buffer.from(doc)).data[0], f: -0 });
    expect(rowLineSpeller(meta)(line)).toBe('{"id":"7","d":"1234567890123456789.0123456789","f":-0}');
    const plain = [{ name: 's', type: 'String' }];
    const text = '{"s":"a\\/b","n":0.5}';
    expect(rowLineSpeller(plain)(text)).toBe(text);
    expect(rowLineSpeller(plain)('{"s":"x","n":-0}')).toBe('{"s":"x","n":"-0"}');
  });
});
