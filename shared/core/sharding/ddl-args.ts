// Reading a Distributed engine's arguments out of system.tables.engine_full and putting a
// sharding expression into one canonical spelling, so that `xxHash64( \`sensor\` )` and
// `xxHash64(sensor)` compare equal while `xxHash64(sensor2)` or `sensor` do not. The text is read
// with the SQL front end's lexer (shared/core/sql/lexer.ts), so quotes, escapes and comments are read as
// ClickHouse reads them. Text that lexer cannot read gives no arguments, or a canonical form that
// matches nothing but itself: the parity check then reports a difference rather than guessing.
import { tokenize, type Token } from '../sql/lexer.js';
import { quoteStringLiteral } from '../sql/quote.js';

function tokensOf(text: string): Token[] | undefined {
  try {
    return tokenize(text);
  } catch {
    return undefined;
  }
}

/** Top-level arguments of `Distributed(a, b, c, d)` (text of each, trimmed); undefined if not Distributed. */
export function distributedArgs(engineFull: string): string[] | undefined {
  const toks = tokensOf(engineFull);
  if (toks?.[0]?.type !== 'ident' || toks[0].text !== 'Distributed' || toks[1]?.type !== 'op' || toks[1].text !== '(') return undefined;
  const args: string[] = [];
  let depth = 0;
  let from = toks[1].end;
  for (let k = 2; k < toks.length; k++) {
    const t = toks[k]!;
    if (t.type !== 'op') continue;
    if (t.text === '(' || t.text === '[') depth++;
    else if ((t.text === ')' || t.text === ']') && depth > 0) depth--;
    else if (t.text === ')') {
      const last = engineFull.slice(from, t.start).trim();
      if (last !== '' || args.length > 0) args.push(last);
      return args;
    } else if (t.text === ',' && depth === 0) {
      args.push(engineFull.slice(from, t.start).trim());
      from = t.end;
    }
  }
  return undefined; // unbalanced
}

/** An identifier-or-string argument (cluster, database, table) without its quotes, escapes decoded. */
export function unquoteName(arg: string): string {
  const toks = tokensOf(arg);
  if (toks && toks.length === 2 && (toks[0]!.type === 'string' || toks[0]!.type === 'qident')) return toks[0]!.text;
  return arg.trim();
}

/**
 * Canonical text of an expression: whitespace and comments dropped, identifier quotes (backquotes,
 * double quotes) removed, string literals in one quoting.
 */
export function normalizeExpr(expr: string): string {
  const toks = tokensOf(expr);
  if (!toks) return `unreadable:${expr}`;
  let out = '';
  for (const t of toks) {
    if (t.type === 'string') out += quoteStringLiteral(t.text);
    else if (t.type === 'param') out += `{${t.text}:${t.extra}}`;
    else out += t.text;
  }
  return out;
}
