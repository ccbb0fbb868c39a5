// Quoting text into ClickHouse SQL: the one string-literal quoter and the one identifier quoter of
// the code base (the printer, the SETTINGS clause, shipped external tables, KILL QUERY and the
// parity check all call these). Backslash escapes only, which ClickHouse 18.16 and current versions
// read alike; control characters are escaped so that a printed query stays on one line per value.
// Round trips through ClickHouse (chdb) are tested in test/integration/sql/quote-round-trip.test.ts.

/** The escape for a control character (< 0x20 or DEL), as ClickHouse's readers decode it. */
function controlEscape(c: number): string {
  return c === 10 ? '\\n' : c === 9 ? '\\t' : c === 13 ? '\\r' : c === 0 ? '\\0' : '\\x' + c.toString(16).padStart(2, '0').toUpperCase();
}

/** `s` between two `quote` characters, with the quote, backslashes and control characters escaped. */
function quoted(s: string, quote: number): string {
  const q = String.fromCharCode(quote);
  let out = q;
  let run = 0;
  for (let k = 0; k < s.length; k++) {
    const c = s.charCodeAt(k);
    let esc: string | undefined;
    if (c === quote) esc = '\\' + q;
    else if (c === 92) esc = '\\\\';
    else if (c < 32 || c === 127) esc = controlEscape(c);
    // A byte that is not UTF-8, carried as a surrogate escape (shared/core/surrogate-escape.ts): the byte itself.
    else if (c >= 0xdc80 && c <= 0xdcff && !(k > 0 && s.charCodeAt(k - 1) >= 0xd800 && s.charCodeAt(k - 1) <= 0xdbff))
      esc = '\\x' + (c - 0xdc00).toString(16).toUpperCase();
    if (esc !== undefined) {
      out += s.slice(run, k) + esc;
      run = k + 1;
    }
  }
  return out + s.slice(run) + q;
}

export interface StringQuoteOptions {
  /**
   * Leave control characters raw except NUL (the quote, backslashes and NUL are escaped; chdb's C
   * interface would end the query text at a raw NUL). ClickHouse reads them alike. For bulk data
   * (a shipped external table as one literal) this avoids an escape per row: JSONEachRow ends every
   * row with a newline, while `'`, `\` and NUL are rare.
   */
  rawControls?: boolean;
}

/** A ClickHouse string literal for `s` ('...' with backslash escapes). */
export function quoteStringLiteral(s: string, opts: StringQuoteOptions = {}): string {
  if (opts.rawControls && !/[\uDC80-\uDCFF]/.test(s)) return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\0/g, '\\0')}'`;
  return quoted(s, 39);
}

/** An identifier, always backquoted (`` `name` `` with backslash escapes). */
export function backquote(name: string): string {
  return quoted(name, 96);
}
