// `FORMAT <name>` in the query text. ch-scatter answers in one format, ClickHouse's JSON
// ({meta, data, rows, ...}, 64-bit integers as strings): `FORMAT JSON` says exactly that and is
// accepted (and stripped from the shard text); any other format is refused, like the
// output-shaping settings, instead of being silently ignored.
import type { SelectStatement } from '../sql/ast.js';
import { errorAt } from './position.js';

export function refuseOtherFormats(stmt: SelectStatement): void {
  const formats = [stmt.format, ...(stmt.kind === 'union' ? stmt.selects.map((q) => q.format) : [])];
  for (const f of formats) {
    if (f !== undefined && f !== 'JSON') {
      throw errorAt('UNSUPPORTED', `FORMAT ${f}: ch-scatter answers in ClickHouse's JSON format only (FORMAT JSON); drop the FORMAT clause`, stmt);
    }
  }
}
