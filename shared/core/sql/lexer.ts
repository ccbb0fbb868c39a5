// Hand-written lexer for ClickHouse SQL. One pass over char codes, no regexes on the hot path:
// the planner has a budget of its own (docs/benchmarks.md#planner-and-merge-plan-merge), and IN lists
// of 100k values must lex without becoming the cost of a query.
// Errors are SYNTAX_ERROR with the 1-based line/column of the offending character.

import { ScatterError } from '../errors.js';
import { decodeEscaped } from '../surrogate-escape.js';

export type TokenType =
  | 'ident' // bare word (keywords are idents; the parser decides by context)
  | 'qident' // `quoted` or "quoted" identifier (never a keyword)
  | 'number'
  | 'string'
  | 'param' // {name:Type}
  | 'op' // punctuation and operators
  | 'eof';

export interface Token {
  type: TokenType;
  /** ident: as written; qident/string: decoded; number: as written; op: the operator; param: name. */
  text: string;
  /** Upper-cased text for `ident` tokens (keyword matching); empty otherwise. */
  upper: string;
  /** param only: the type text. */
  extra?: string;
  start: number;
  end: number;
  line: number;
  column: number;
}

/** A 1-based line/column for an offset, computed by scanning (used for errors only). */
export function positionAt(src: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < src.length; i++) {
    if (src.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

function syntaxError(src: string, offset: number, message: string): ScatterError {
  const position = positionAt(src, offset);
  return new ScatterError('SYNTAX_ERROR', `${message} at line ${position.line}, column ${position.column}`, { position });
}

const isDigit = (c: number): boolean => c >= 48 && c <= 57;
// ASCII only, as ClickHouse's lexer: outside quotes a non-ASCII character (Cyrillic, a smart quote,
// an emoji, a full-width '＝') is "Unrecognized token", a syntax error, not an identifier that only
// fails later as an unknown column (checked on chdb: `SELECT сумма` and `SELECT 😀` both fail at the lexer).
const isIdentStart = (c: number): boolean => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
const isIdentPart = (c: number): boolean => isIdentStart(c) || isDigit(c);
/**
 * The non-ASCII characters ClickHouse's lexer skips as whitespace (measured on chdb: not U+1680).
 * One deliberate difference: U+FEFF (a byte-order mark) is refused here, as before, where ClickHouse
 * skips it; the hostile-request corpus expects a BOM-prefixed query to be a SYNTAX_ERROR.
 */
const isUnicodeSpace = (c: number): boolean =>
  c === 0x85 ||
  c === 0xa0 ||
  c === 0x180e ||
  (c >= 0x2000 && c <= 0x200d) ||
  c === 0x2028 ||
  c === 0x2029 ||
  c === 0x202f ||
  c === 0x205f ||
  c === 0x2060 ||
  c === 0x3000;
const isHex = (c: number): boolean => isDigit(c) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);

// Operators by leading character (a switch, not a list scan: commas of 100k-value IN lists).
function matchOperator(src: string, i: number, c: number): string | undefined {
  const c2 = src.charCodeAt(i + 1);
  switch (c) {
    case 44:
      return ',';
    case 40:
      return '(';
    case 41:
      return ')';
    case 91:
      return '[';
    case 93:
      return ']';
    case 46:
      return '.';
    case 43:
      return '+';
    case 42:
      return '*';
    case 47:
      return '/';
    case 37:
      return '%';
    case 63:
      return '?';
    case 94:
      return '^';
    case 59:
      return ';';
    case 45:
      return c2 === 62 ? '->' : '-';
    case 58:
      return c2 === 58 ? '::' : ':';
    case 124:
      return c2 === 124 ? '||' : undefined;
    case 61:
      return c2 === 61 ? '==' : '=';
    case 33:
      return c2 === 61 ? '!=' : undefined;
    case 60:
      if (c2 === 61) return src.charCodeAt(i + 2) === 62 ? '<=>' : '<=';
      return c2 === 62 ? '<>' : '<';
    case 62:
      return c2 === 61 ? '>=' : '>';
    default:
      return undefined;
  }
}

export function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  const n = src.length;
  let i = 0;
  let line = 1;
  let lineStart = 0;
  const push = (type: TokenType, text: string, start: number, extra?: string): void => {
    const t: Token = {
      type,
      text,
      upper: type === 'ident' ? text.toUpperCase() : '',
      start,
      end: i,
      line: tokLine,
      column: start - tokLineStart + 1,
    };
    if (extra !== undefined) t.extra = extra;
    tokens.push(t);
  };
  let tokLine = 1;
  let tokLineStart = 0;
  while (i < n) {
    const c = src.charCodeAt(i);
    // whitespace
    if (c === 32 || c === 9 || c === 13 || c === 12 || c === 11) {
      i++;
      continue;
    }
    if (c === 10) {
      i++;
      line++;
      lineStart = i;
      continue;
    }
    // comments: -- ..., # ..., /* ... */
    if ((c === 45 && src.charCodeAt(i + 1) === 45) || c === 35) {
      while (i < n && src.charCodeAt(i) !== 10) i++;
      continue;
    }
    if (c === 47 && src.charCodeAt(i + 1) === 42) {
      const startC = i;
      i += 2;
      // ClickHouse allows nested /* /* */ */ comments.
      let depth = 1;
      while (i < n && depth > 0) {
        const d = src.charCodeAt(i);
        if (d === 47 && src.charCodeAt(i + 1) === 42) {
          depth++;
          i += 2;
        } else if (d === 42 && src.charCodeAt(i + 1) === 47) {
          depth--;
          i += 2;
        } else {
          if (d === 10) {
            line++;
            lineStart = i + 1;
          }
          i++;
        }
      }
      if (depth > 0) throw syntaxError(src, startC, 'Unterminated comment: expected */, found end of query');
      continue;
    }
    const start = i;
    tokLine = line;
    tokLineStart = lineStart;
    // `.1` is a number unless the '.' can be a qualifier or tuple access (after a word, a quoted
    // identifier, a number, `)` or `]`), as ClickHouse's lexer decides it.
    if (c === 46 && isDigit(src.charCodeAt(i + 1)) && !canPrecedeDot(tokens[tokens.length - 1])) {
      i = scanExponent(src, scanDigits(src, i + 1));
      if (i < n && isIdentPart(src.charCodeAt(i))) {
        throw syntaxError(src, i, `Unexpected character after number: expected an operator or separator, found '${src[i]}'`);
      }
      // With its leading zero: `SELECT .5` is a syntax error in ClickHouse, `SELECT 0.5` is not.
      push('number', `0${src.slice(start, i)}`, start);
      continue;
    }
    // numbers (a '.' after a Dot token is a tuple index: `t.1.2` is not `t` `.` `1.2`)
    if (isDigit(c)) {
      const afterDot = tokens.length > 0 && tokens[tokens.length - 1]!.type === 'op' && tokens[tokens.length - 1]!.text === '.';
      i = scanNumber(src, i, afterDot);
      if (i < n && isIdentPart(src.charCodeAt(i))) {
        throw syntaxError(src, i, `Unexpected character after number: expected an operator or separator, found '${src[i]}'`);
      }
      // `1_000` is 1000: ClickHouse reads one underscore between digits as nothing, and names the literal without it.
      const spelled = src.slice(start, i);
      push('number', spelled.includes('_') ? spelled.replaceAll('_', '') : spelled, start);
      continue;
    }
    if (isIdentStart(c)) {
      i++;
      while (i < n && isIdentPart(src.charCodeAt(i))) i++;
      // x'4142' and b'0101' string literals (hex / binary spelled strings)
      const word = src.slice(start, i);
      if (i - start === 1 && src.charCodeAt(i) === 39 && (c === 120 || c === 88 || c === 98 || c === 66)) {
        const { value, end, lines } = scanQuoted(src, i, 39, (o, m) => syntaxError(src, o, m));
        i = end;
        push('string', decodeBitString(src, start, value, c === 120 || c === 88), start);
        if (lines.count) {
          line += lines.count;
          lineStart = lines.lastStart;
        }
        continue;
      }
      push('ident', word, start);
      continue;
    }
    if (c === 39 /* ' */ || c === 96 /* ` */ || c === 34 /* " */) {
      // Fast path: no escapes, doubled quotes or newlines (the common case, e.g. long IN lists).
      let j = i + 1;
      let d = 0;
      for (; j < n; j++) {
        d = src.charCodeAt(j);
        if (d === c || d === 92 || d === 10) break;
      }
      if (j < n && d === c && src.charCodeAt(j + 1) !== c) {
        i = j + 1;
        push(c === 39 ? 'string' : 'qident', src.slice(start + 1, j), start);
        continue;
      }
      const { value, end, lines } = scanQuoted(src, i, c, (o, m) => syntaxError(src, o, m));
      i = end;
      push(c === 39 ? 'string' : 'qident', value, start);
      if (lines.count) {
        line += lines.count;
        lineStart = lines.lastStart;
      }
      continue;
    }
    if (c === 0x2018 /* ‘ */ || c === 0x201c /* “ */) {
      // ClickHouse reads ‘text’ as a string literal and “name” as a quoted identifier (no escapes).
      const close = c === 0x2018 ? 0x2019 : 0x201d;
      let j = i + 1;
      while (j < n && src.charCodeAt(j) !== close) j++;
      if (j >= n)
        throw syntaxError(src, i, `Unterminated ${c === 0x2018 ? 'string' : 'quoted identifier'}: expected ${String.fromCharCode(close)}, found end of query`);
      const value = src.slice(i + 1, j);
      for (let k = i + 1; k < j; k++) {
        if (src.charCodeAt(k) === 10) {
          line++;
          lineStart = k + 1;
        }
      }
      i = j + 1;
      push(c === 0x2018 ? 'string' : 'qident', value, start);
      continue;
    }
    if (c === 36 /* $ */) {
      // A heredoc string, `$$text$$` or `$tag$text$tag$`: the text as written, no escapes (ClickHouse's lexer).
      let j = i + 1;
      while (j < n && isIdentPart(src.charCodeAt(j))) j++;
      if (src.charCodeAt(j) === 36) {
        const tag = src.slice(i, j + 1);
        const close = src.indexOf(tag, j + 1);
        if (close < 0) throw syntaxError(src, i, `Unterminated heredoc: expected ${tag}, found end of query`);
        const value = src.slice(j + 1, close);
        for (let k = j + 1; k < close; k++) {
          if (src.charCodeAt(k) === 10) {
            line++;
            lineStart = k + 1;
          }
        }
        i = close + tag.length;
        push('string', value, start);
        continue;
      }
    }
    if (c >= 128 && isUnicodeSpace(c)) {
      i++; // ClickHouse skips these like ASCII blanks (U+2028/2029 included; lines still count only \n)
      continue;
    }
    if (c >= 128) {
      const ch = String.fromCodePoint(src.codePointAt(i)!);
      throw syntaxError(
        src,
        i,
        `Unrecognized token: found '${ch}' (outside quotes ClickHouse reads ASCII only: quote strings with ' and identifiers with \` or ")`,
      );
    }
    if (c === 123 /* { */ || c === 125 /* } */) {
      // A map literal's braces (`{'k': 'v'}`, `{}`): only a SETTINGS value may hold one (the parser
      // says so elsewhere, as ClickHouse 26 does); otherwise `{` starts a query parameter.
      let j = i + 1;
      while (j < n && (src.charCodeAt(j) === 32 || src.charCodeAt(j) === 9 || src.charCodeAt(j) === 10 || src.charCodeAt(j) === 13)) j++;
      if (c === 125 || src.charCodeAt(j) === 39 /* ' */ || src.charCodeAt(j) === 125) {
        i++;
        push('op', c === 123 ? '{' : '}', start);
        continue;
      }
    }
    if (c === 123 /* { */) {
      // {name:Type} query parameter; the type may contain parentheses and commas.
      const close = src.indexOf('}', i);
      const colon = src.indexOf(':', i);
      if (close < 0 || colon < 0 || colon > close) throw syntaxError(src, i, "Unexpected '{': expected a query parameter {name:Type}");
      const name = src.slice(i + 1, colon).trim();
      const type = src.slice(colon + 1, close).trim();
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) || type === '' || type.includes('\n')) {
        throw syntaxError(src, i, 'Malformed query parameter: expected {name:Type}');
      }
      i = close + 1;
      push('param', name, start, type);
      continue;
    }
    const op = matchOperator(src, i, c);
    if (op === undefined) throw syntaxError(src, i, `Unexpected character: found '${src[i]}'`);
    i += op.length;
    push('op', op, start);
  }
  tokLine = line;
  tokLineStart = lineStart;
  push('eof', '', n);
  return tokens;
}

function scanNumber(src: string, i: number, integerOnly: boolean): number {
  const n = src.length;
  const c1 = src.charCodeAt(i + 1);
  if (src.charCodeAt(i) === 48 && (c1 === 120 || c1 === 88) && isHex(src.charCodeAt(i + 2))) {
    i += 2;
    while (i < n && (isHex(src.charCodeAt(i)) || (src.charCodeAt(i) === 95 && isHex(src.charCodeAt(i - 1)) && isHex(src.charCodeAt(i + 1))))) i++;
    return i;
  }
  if (src.charCodeAt(i) === 48 && (c1 === 98 || c1 === 66) && (src.charCodeAt(i + 2) === 48 || src.charCodeAt(i + 2) === 49)) {
    i += 2;
    while (i < n && (src.charCodeAt(i) === 48 || src.charCodeAt(i) === 49)) i++;
    return i;
  }
  i = scanDigits(src, i);
  if (integerOnly) return i;
  // `1.` is a float; `1..` never occurs in valid SQL.
  if (src.charCodeAt(i) === 46 /* . */) i = scanDigits(src, i + 1);
  return scanExponent(src, i);
}

/** Digits, with single underscores between them (`1_000`). */
function scanDigits(src: string, i: number): number {
  const start = i;
  while (
    i < src.length &&
    (isDigit(src.charCodeAt(i)) || (src.charCodeAt(i) === 95 && i > start && isDigit(src.charCodeAt(i - 1)) && isDigit(src.charCodeAt(i + 1))))
  )
    i++;
  return i;
}

/** An exponent (`e5`, `E-3`) at i, if one is there. */
function scanExponent(src: string, i: number): number {
  const e = src.charCodeAt(i);
  if (e !== 101 && e !== 69) return i;
  let j = i + 1;
  const s = src.charCodeAt(j);
  if (s === 43 || s === 45) j++;
  return isDigit(src.charCodeAt(j)) ? scanDigits(src, j) : i;
}

/** Tokens after which a '.' is a qualifier or tuple access, never the start of a number. */
function canPrecedeDot(t: Token | undefined): boolean {
  if (!t) return false;
  return t.type === 'ident' || t.type === 'qident' || t.type === 'number' || (t.type === 'op' && (t.text === ')' || t.text === ']'));
}

const SIMPLE_ESCAPES: Record<string, string> = {
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  '0': '\0',
  a: '\x07',
  v: '\v',
  e: '\x1b',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '`': '`',
};

// A quoted run: 'string', `ident` or "ident". The quote doubles as an escape (''), and
// backslash escapes are ClickHouse's. \xHH bytes are collected and decoded as UTF-8, the bytes of
// invalid sequences as surrogate escapes (one per byte), so no byte is lost or changed.
function scanQuoted(
  src: string,
  i: number,
  quote: number,
  err: (offset: number, message: string) => ScatterError,
): { value: string; end: number; lines: { count: number; lastStart: number } } {
  const start = i;
  const n = src.length;
  i++;
  let out = '';
  let runStart = i;
  const lines = { count: 0, lastStart: 0 };
  let bytes: number[] | undefined;
  const flushBytes = (): void => {
    if (!bytes) return;
    // Bytes that are not UTF-8 are kept as surrogate escapes (shared/core/surrogate-escape.ts), which
    // the printer writes back as the same \\xHH bytes.
    out += decodeEscaped(Uint8Array.from(bytes));
    bytes = undefined;
  };
  while (true) {
    if (i >= n)
      throw err(start, `Unterminated ${quote === 39 ? 'string literal' : 'quoted identifier'}: expected ${String.fromCharCode(quote)}, found end of query`);
    const c = src.charCodeAt(i);
    if (c === quote) {
      if (src.charCodeAt(i + 1) === quote) {
        flushBytes();
        out += src.slice(runStart, i + 1);
        i += 2;
        runStart = i;
        continue;
      }
      flushBytes();
      out += src.slice(runStart, i);
      return { value: out, end: i + 1, lines };
    }
    if (c === 10) {
      lines.count++;
      lines.lastStart = i + 1;
    }
    if (c === 92 /* \ */) {
      const isByte = src.charCodeAt(i + 1) === 120 && isHex(src.charCodeAt(i + 2)) && isHex(src.charCodeAt(i + 3));
      if (!isByte) flushBytes();
      out += src.slice(runStart, i);
      const d = src[i + 1];
      if (d === undefined) throw err(start, 'Unterminated string literal: expected a character after \\, found end of query');
      if (isByte) {
        const b = parseInt(src.slice(i + 2, i + 4), 16);
        if (b < 0x80 && !bytes) out += String.fromCharCode(b);
        else {
          bytes ??= [];
          bytes.push(b);
        }
        i += 4;
      } else if (d in SIMPLE_ESCAPES) {
        out += SIMPLE_ESCAPES[d];
        i += 2;
      } else {
        // ClickHouse keeps unknown escapes verbatim, backslash included ('a\db' is `a\db`).
        out += '\\' + d;
        i += 2;
      }
      runStart = i;
      continue;
    }
    if (bytes) {
      flushBytes();
    }
    i++;
  }
}

function decodeBitString(src: string, start: number, digits: string, hex: boolean): string {
  const bytes: number[] = [];
  const per = hex ? 2 : 8;
  if (!(hex ? /^[0-9A-Fa-f]*$/ : /^[01]*$/).test(digits) || digits.length % per !== 0) {
    throw syntaxError(src, start, `Malformed ${hex ? 'hex' : 'binary'} string literal: expected ${hex ? 'pairs of hex digits' : 'groups of 8 bits'}`);
  }
  for (let k = 0; k < digits.length; k += per) bytes.push(parseInt(digits.slice(k, k + per), hex ? 16 : 2));
  return decodeEscaped(Uint8Array.from(bytes));
}
