// Answers compared across paths (the Distributed table, ch-scatter's paths): rows as one string, floats
// (numbers, or decimal strings as ClickHouse quotes them) to 9 significant digits, since summation
// order differs between one node and shards.
export function normalize(rows: Record<string, unknown>[]): string {
  const v = (x: unknown): unknown => {
    const n = typeof x === 'number' ? x : typeof x === 'string' && /^-?\d+\.\d*(e[-+]?\d+)?$/i.test(x) ? Number(x) : undefined;
    return n === undefined ? x : Number(n.toPrecision(9));
  };
  return JSON.stringify(rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, x]) => [k, v(x)]))));
}
