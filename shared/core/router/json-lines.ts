// JSONEachRow lines into row objects without losing 64-bit integers. JSON.parse rounds any
// integer beyond 2^53, which would place a row by a key ClickHouse never sees and write a
// different number than the client sent. So integer literals that are not safe integers are
// turned into JSON strings before parsing; ClickHouse reads quoted numbers into integer columns.

const LONG_DIGITS = /\d{16}/;

/** JSON text with every unsafe integer literal (outside strings) quoted. */
export function quoteBigIntegers(text: string): string {
  if (!LONG_DIGITS.test(text)) return text;
  let out = '';
  let last = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c /* \ */) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x2d /* - */ || (c >= 0x30 && c <= 0x39)) {
      let j = i + 1;
      while (j < text.length && /[0-9.eE+-]/.test(text[j]!)) j++;
      const token = text.slice(i, j);
      if (/^-?\d+$/.test(token) && !Number.isSafeInteger(Number(token))) {
        out += text.slice(last, i) + `"${token}"`;
        last = j;
      }
      i = j - 1;
    }
  }
  return out + text.slice(last);
}

/** One JSONEachRow line as an object; throws with a reason when it is not a JSON object. */
export function parseRowLine(line: string): Record<string, unknown> {
  const v: unknown = JSON.parse(quoteBigIntegers(line));
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new Error('not a JSON object');
  return v as Record<string, unknown>;
}
