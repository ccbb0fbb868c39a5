// A JSON path for a problem report: `$.shards[1].weight`, `$.tables["db.events"]` (a key that is not
// a plain identifier is quoted, so the path can be pasted back into a JSON tool).
export function jsonPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '$';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : /^[A-Za-z_$][\w$]*$/.test(String(p)) ? `.${String(p)}` : `[${JSON.stringify(String(p))}]`;
  return out;
}
