// Reading a Distributed engine's arguments out of system.tables.engine_full and putting a
// sharding expression into one canonical spelling, so that `xxHash64( \`sensor\` )` and
// `xxHash64(sensor)` compare equal while `xxHash64(sensor2)` or `sensor` do not.

/** Top-level arguments of `Distributed(a, b, c, d)` (text of each, trimmed); undefined if not Distributed. */
export function distributedArgs(engineFull: string): string[] | undefined {
  const m = /^\s*Distributed\s*\(/.exec(engineFull);
  if (!m) return undefined;
  const args: string[] = [];
  let depth = 0;
  let cur = '';
  for (let i = m[0].length; i < engineFull.length; i++) {
    const c = engineFull[i]!;
    if (c === "'" || c === '`' || c === '"') {
      // Copy a quoted run whole, honouring backslash escapes.
      let j = i + 1;
      while (j < engineFull.length && engineFull[j] !== c) j += engineFull[j] === '\\' ? 2 : 1;
      cur += engineFull.slice(i, j + 1);
      i = j;
      continue;
    }
    if (c === '(') depth++;
    if (c === ')') {
      if (depth === 0) {
        if (cur.trim() !== '' || args.length > 0) args.push(cur.trim());
        return args;
      }
      depth--;
    }
    if (c === ',' && depth === 0) {
      args.push(cur.trim());
      cur = '';
      continue;
    }
    cur += c;
  }
  return undefined; // unbalanced
}

/** An identifier-or-string argument (cluster, database, table) without its quotes. */
export function unquoteName(arg: string): string {
  const t = arg.trim();
  const m = /^(['`"])(.*)\1$/s.exec(t);
  return m ? m[2]!.replace(/\\(.)/g, '$1') : t;
}

/**
 * Canonical text of an expression: whitespace outside string literals removed, identifier
 * quotes (backquotes, double quotes) dropped. String literals are kept as they are.
 */
export function normalizeExpr(expr: string): string {
  let out = '';
  for (let i = 0; i < expr.length; i++) {
    const c = expr[i]!;
    if (c === "'") {
      let j = i + 1;
      while (j < expr.length && expr[j] !== "'") j += expr[j] === '\\' ? 2 : 1;
      out += expr.slice(i, j + 1);
      i = j;
    } else if (c === '`' || c === '"') {
      let j = i + 1;
      while (j < expr.length && expr[j] !== c) j += expr[j] === '\\' ? 2 : 1;
      out += expr.slice(i + 1, j).replace(/\\(.)/g, '$1');
      i = j;
    } else if (!/\s/.test(c)) out += c;
  }
  return out;
}
