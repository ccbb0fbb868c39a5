// One TabSeparated field of a row as the bytes ClickHouse stores for it. Only escapes every
// ClickHouse version reads alike are decoded; another one in the key field is refused, since
// versions differ on what `\c` stores.
import { ChHttpError } from './exception.js';

const TAB = 0x09;
const BACKSLASH = 0x5c;
/** The byte after a backslash -> the byte it stands for. */
const ESCAPES = new Map<number, number>(
  Object.entries({ b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', '0': '\0', a: '\x07', v: '\v', '\\': '\\', "'": "'", '"': '"' }).map(([k, v]) => [
    k.charCodeAt(0),
    v.charCodeAt(0),
  ]),
);
const HEX = /^[0-9a-fA-F]{2}$/;

/** The stored bytes of field `at` of a TabSeparated row (null: `\N`, undefined: the row has fewer fields). */
export function tsvKeyOf(row: Buffer, at: number, line: number): Buffer | null | undefined {
  let start = 0;
  for (let k = 0; k < at; k++) {
    const tab = row.indexOf(TAB, start);
    if (tab < 0) return undefined;
    start = tab + 1;
  }
  const tab = row.indexOf(TAB, start);
  const field = row.subarray(start, tab < 0 ? row.length : tab);
  if (field.length === 2 && field[0] === BACKSLASH && field[1] === 0x4e) return null;
  if (!field.includes(BACKSLASH)) return field;
  const out: number[] = [];
  for (let i = 0; i < field.length; i++) {
    const c = field[i]!;
    if (c !== BACKSLASH) {
      out.push(c);
      continue;
    }
    const e = field[++i];
    if (e === 0x78 /* x */ && HEX.test(field.subarray(i + 1, i + 3).toString('latin1'))) {
      out.push(parseInt(field.subarray(i + 1, i + 3).toString('latin1'), 16));
      i += 2;
    } else if (e !== undefined && ESCAPES.has(e)) out.push(ESCAPES.get(e)!);
    else
      throw new ChHttpError(
        27,
        `Cannot parse input: the sharding key's escape \\${e === undefined ? '' : String.fromCharCode(e)} is read differently by ClickHouse versions (at row ${line})`,
      );
  }
  return Buffer.from(out);
}
