// How ClickHouse prints an empty column of a type (IColumn::dumpStructure), as its 352 says of two columns of
// one name and different types: the column's storage (DateTime is a UInt32, Decimal(10, 2) a Decimal64) and
// those of its parts. Types whose storage is not spelled out here (JSON, Variant, Dynamic...) have none.
import { splitTopLevel } from './split-list.js';

/** Storage columns of plain types whose name is not their own. */
const STORAGE: Record<string, string> = {
  Bool: 'UInt8',
  Date: 'UInt16',
  Date32: 'Int32',
  DateTime: 'UInt32',
  Enum8: 'Int8',
  Enum16: 'Int16',
  Time: 'Int32',
};
const PLAIN = /^(U?Int(8|16|32|64|128|256)|Float(32|64)|BFloat16|String|UUID|IPv4|IPv6|FixedString|DateTime64|Time64)$/;

/** The structure of an empty column of `type` (`size` rows in a LowCardinality's dictionary), or undefined. */
export function columnStructure(type: string, size = 0): string | undefined {
  const m = /^(\w+)(?:\((.*)\))?$/s.exec(type.trim());
  if (!m) return undefined;
  const [, name, argText] = m as unknown as [string, string, string | undefined];
  const args = argText === undefined ? [] : splitTopLevel(argText);
  if (!args) return undefined;
  const of = (...parts: (string | undefined)[]) => (parts.every((p) => p !== undefined) ? `${name}(size = ${size}, ${parts.join(', ')})` : undefined);
  switch (name) {
    case 'Nullable':
      return of(columnStructure(args[0]!, size), `UInt8(size = ${size})`);
    case 'Array':
      return of(`UInt64(size = ${size})`, columnStructure(args[0]!, size));
    case 'Map':
      return of(columnStructure(`Array(Tuple(${args.join(', ')}))`, size));
    case 'Tuple':
      // A named element is `name Type`.
      return of(...args.map((a) => columnStructure(/^(\w+|`[^`]*`)\s+(\w.*)$/s.exec(a.trim())?.[2] ?? a, size)));
    case 'LowCardinality': {
      // The dictionary holds the default value, and NULL too when the type is Nullable.
      const inner = args[0]!.trim();
      const nullable = /^Nullable\((.*)\)$/s.exec(inner);
      const n = nullable ? 2 : 1;
      const dict = columnStructure(nullable ? nullable[1]! : inner, n);
      return dict === undefined ? undefined : `LowCardinality(size = ${size}, UInt8(size = ${size}), Unique(size = ${n}, ${dict}))`;
    }
    case 'Decimal': {
      const p = Number(args[0]);
      return `${p <= 9 ? 'Decimal32' : p <= 18 ? 'Decimal64' : p <= 38 ? 'Decimal128' : 'Decimal256'}(size = ${size})`;
    }
  }
  if (/^Decimal(32|64|128|256)$/.test(name)) return `${name}(size = ${size})`;
  if (STORAGE[name]) return `${STORAGE[name]}(size = ${size})`;
  return PLAIN.test(name) ? `${name}(size = ${size})` : undefined;
}
