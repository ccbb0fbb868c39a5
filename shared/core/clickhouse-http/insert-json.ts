// The sharding key's value in one JSONEachRow line, read from the bytes: a string as the bytes
// ClickHouse stores (raw bytes as they are, `\uXXXX` as UTF-8), a number as its exact literal. The
// rest of the line is only skipped over; ClickHouse itself parses it when the rows are checked.
import { ChHttpError } from './exception.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const SIMPLE = new Map<number, number>(
  Object.entries({ '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' }).map(([k, v]) => [k.charCodeAt(0), v.charCodeAt(0)]),
);
const NUMBER = /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/;

class Reader {
  i = 0;
  constructor(
    readonly b: Buffer,
    readonly line: number,
  ) {}
  fail(what: string): never {
    throw new ChHttpError(27, `Cannot parse input: ${what} at byte ${this.i + 1} of the line (at row ${this.line})`);
  }
  blank(): void {
    while (this.i < this.b.length && (this.b[this.i] === 0x20 || this.b[this.i] === 0x09 || this.b[this.i] === 0x0d || this.b[this.i] === 0x0a)) this.i++;
  }
  expect(c: number): void {
    this.blank();
    if (this.b[this.i] !== c) this.fail(`expected '${String.fromCharCode(c)}'`);
    this.i++;
  }
  /** A string literal's bytes (the reader is at its opening quote). */
  string(): Buffer {
    const out: number[] = [];
    for (this.i++; ; this.i++) {
      const c = this.b[this.i];
      if (c === undefined) this.fail('a string is not closed');
      if (c === QUOTE) break;
      if (c !== BACKSLASH) {
        out.push(c);
        continue;
      }
      const e = this.b[++this.i]!;
      if (SIMPLE.has(e)) out.push(SIMPLE.get(e)!);
      else if (e === 0x75 /* u */) {
        let cp = this.hex4();
        if (cp >= 0xd800 && cp < 0xdc00 && this.b[this.i + 1] === BACKSLASH && this.b[this.i + 2] === 0x75) {
          this.i += 2;
          const lo = this.hex4();
          if (lo < 0xdc00 || lo > 0xdfff) this.fail('a \\u surrogate pair is not whole');
          cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        } else if (cp >= 0xd800 && cp <= 0xdfff) this.fail('a lone \\u surrogate');
        out.push(...Buffer.from(String.fromCodePoint(cp), 'utf8'));
      } else this.fail(`unknown escape \\${String.fromCharCode(e)}`);
    }
    this.i++;
    return Buffer.from(out);
  }
  hex4(): number {
    const h = this.b.subarray(this.i + 1, this.i + 5).toString('latin1');
    if (!/^[0-9a-fA-F]{4}$/.test(h)) this.fail('expected 4 hexadecimal digits after \\u');
    this.i += 4;
    return parseInt(h, 16);
  }
  /** Skips any value; returns its text when it is a scalar literal (number, true, false, null). */
  skipValue(): string | undefined {
    this.blank();
    const c = this.b[this.i];
    if (c === QUOTE) {
      this.string();
      return undefined;
    }
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      let depth = 0;
      for (; this.i < this.b.length; this.i++) {
        const d = this.b[this.i];
        if (d === QUOTE) {
          this.string();
          this.i--;
        } else if (d === 0x7b || d === 0x5b) depth++;
        else if (d === 0x7d || d === 0x5d) {
          depth--;
          if (depth === 0) {
            this.i++;
            return undefined;
          }
        }
      }
      this.fail('an object or array is not closed');
    }
    const start = this.i;
    while (this.i < this.b.length && !/[\s,}\]]/.test(String.fromCharCode(this.b[this.i]!))) this.i++;
    if (this.i === start) this.fail('expected a value');
    return this.b.subarray(start, this.i).toString('latin1');
  }
}

/** A JSON number or literal as the key's value: integers exact (bigint beyond 2^53). */
function literal(text: string, r: Reader): unknown {
  if (text === 'null') return null;
  if (text === 'true' || text === 'false') return text === 'true';
  if (!NUMBER.test(text)) r.fail(`${JSON.stringify(text)} is not a JSON value`);
  if (/^-?\d+$/.test(text)) return Number.isSafeInteger(Number(text)) ? Number(text) : BigInt(text);
  return Number(text);
}

/**
 * The value of `key` in one JSONEachRow line: bytes for a string, a number, null, or undefined
 * when the object has no such field (an object or array value is returned as an object).
 */
export function jsonKeyOf(line: Buffer, key: string, keyIsString: boolean, lineNo: number): unknown {
  const r = new Reader(line, lineNo);
  r.expect(0x7b);
  r.blank();
  if (line[r.i] === 0x7d) return undefined;
  let found: unknown;
  for (;;) {
    r.blank();
    if (line[r.i] !== QUOTE) r.fail('expected a field name');
    const name = r.string().toString('utf8');
    r.expect(0x3a /* : */);
    r.blank();
    if (name === key && found === undefined) {
      if (line[r.i] === QUOTE) {
        const bytes = r.string();
        found = keyIsString ? bytes : bytes.toString('latin1');
      } else {
        const at = r.i;
        const text = r.skipValue();
        found = text === undefined ? { at } : literal(text, r);
      }
    } else r.skipValue();
    r.blank();
    if (line[r.i] === 0x2c /* , */) {
      r.i++;
      continue;
    }
    r.expect(0x7d);
    // A second object on the line would be a row placed by this one's key.
    r.blank();
    if (r.i < line.length) r.fail('expected the end of the line after the object (one row a line)');
    return found;
  }
}
