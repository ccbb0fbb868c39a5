// Lists ClickHouse writes as text, split at their top-level commas: a type's arguments, a table
// structure (`name Type, ...`) of external data or values().
/**
 * Top-level parts of a comma-separated list (quotes and brackets respected), untrimmed; undefined when
 * its parentheses or quotes do not balance.
 */
export function splitTopLevel(s: string): string[] | undefined {
  const out: string[] = [];
  let depth = 0;
  let quote: string | undefined;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = undefined;
    } else if (c === "'" || c === '`' || c === '"') quote = c;
    else if (c === '(') depth++;
    else if (c === ')') {
      if (--depth < 0) return undefined;
    } else if (c === ',' && depth === 0) {
      out.push(s.slice(start, i));
      start = i + 1;
    }
  }
  if (depth !== 0 || quote) return undefined;
  out.push(s.slice(start));
  return out;
}
