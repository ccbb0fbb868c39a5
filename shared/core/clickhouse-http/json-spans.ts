// Where each key and value of a JSON text an engine wrote starts and ends, in bytes: renaming a
// column in the answer's bytes (renamed-json.ts) replaces key spans and leaves every other byte as
// the engine wrote it. ClickHouse's bare nan/inf/-inf are read as scalars, like numbers.

export interface Span {
  start: number;
  end: number;
}

export type JsonNode =
  | (Span & { kind: 'object'; entries: { key: Span; name: string; value: JsonNode }[] })
  | (Span & { kind: 'array'; items: JsonNode[] })
  | (Span & { kind: 'string' | 'scalar' });

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Every top-level value of `buf` in order (one document, or one a line as JSONEachRow writes them); undefined where it is not JSON. */
export function jsonValues(buf: Buffer): JsonNode[] | undefined {
  const r = new SpanReader(buf);
  const out: JsonNode[] = [];
  try {
    for (r.blank(); r.i < buf.length; r.blank()) out.push(r.value());
  } catch {
    return undefined;
  }
  return out;
}

/** The text of a string node, unescaped. */
export function stringText(buf: Buffer, node: Span): string {
  return JSON.parse(buf.toString('utf8', node.start, node.end)) as string;
}

class SpanReader {
  i = 0;
  constructor(readonly b: Buffer) {}
  blank(): void {
    while (this.i < this.b.length && (this.b[this.i] === 0x20 || this.b[this.i] === 0x0a || this.b[this.i] === 0x0d || this.b[this.i] === 0x09)) this.i++;
  }
  expect(c: number): void {
    this.blank();
    if (this.b[this.i] !== c) throw new Error(`expected ${String.fromCharCode(c)} at ${this.i}`);
    this.i++;
  }
  string(): Span {
    const start = this.i;
    this.i++;
    while (this.i < this.b.length && this.b[this.i] !== QUOTE) this.i += this.b[this.i] === BACKSLASH ? 2 : 1;
    if (this.i >= this.b.length) throw new Error('a string is not closed');
    this.i++;
    return { start, end: this.i };
  }
  value(): JsonNode {
    this.blank();
    const start = this.i;
    const c = this.b[this.i];
    if (c === QUOTE) return { kind: 'string', ...this.string() };
    if (c === 0x7b) {
      this.i++;
      const entries: { key: Span; name: string; value: JsonNode }[] = [];
      this.blank();
      if (this.b[this.i] === 0x7d) this.i++;
      else
        for (;;) {
          this.blank();
          if (this.b[this.i] !== QUOTE) throw new Error(`expected a key at ${this.i}`);
          const key = this.string();
          this.expect(0x3a);
          entries.push({ key, name: stringText(this.b, key), value: this.value() });
          this.blank();
          if (this.b[this.i++] === 0x7d) break;
          if (this.b[this.i - 1] !== 0x2c) throw new Error(`expected , or } at ${this.i - 1}`);
        }
      return { kind: 'object', start, end: this.i, entries };
    }
    if (c === 0x5b) {
      this.i++;
      const items: JsonNode[] = [];
      this.blank();
      if (this.b[this.i] === 0x5d) this.i++;
      else
        for (;;) {
          items.push(this.value());
          this.blank();
          if (this.b[this.i++] === 0x5d) break;
          if (this.b[this.i - 1] !== 0x2c) throw new Error(`expected , or ] at ${this.i - 1}`);
        }
      return { kind: 'array', start, end: this.i, items };
    }
    while (this.i < this.b.length && !' \t\r\n,]}:'.includes(String.fromCharCode(this.b[this.i]!))) this.i++;
    if (this.i === start) throw new Error(`expected a value at ${start}`);
    return { kind: 'scalar', start, end: this.i };
  }
}
