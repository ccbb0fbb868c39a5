// Small statistics and formatting helpers shared by the bench sections. Nearest-rank quantiles
// over the raw samples (no interpolation: with 200 samples p99 is the 2nd-worst, said plainly).
export function quantile(xs: readonly number[], q: number): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const rank = Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1));
  return s[rank]!;
}

export const r2 = (x: number): number => Math.round(x * 100) / 100;
export const r3 = (x: number): number => Math.round(x * 1000) / 1000;

/**
 * Wall milliseconds of each variant, `reps` times, repetition i in `orders[i % orders.length]`, so
 * no variant always runs first (on the coldest or the warmest cache). `run` does one variant once.
 */
export async function timeInOrders<K extends string>(
  orders: readonly (readonly K[])[],
  reps: number,
  run: (k: K) => Promise<unknown>,
): Promise<Record<K, number[]>> {
  const ms = {} as Record<K, number[]>;
  for (const k of orders[0]!) ms[k] = [];
  for (let i = 0; i < reps; i++) {
    for (const k of orders[i % orders.length]!) {
      const t0 = performance.now();
      await run(k);
      ms[k].push(performance.now() - t0);
    }
  }
  return ms;
}

/** Wall milliseconds since an hrtime.bigint() mark. */
export function msSince(t0: bigint): number {
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

/** CPU milliseconds (user + system) of THIS process since a process.cpuUsage() mark. */
export function cpuMsSince(c0: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(c0);
  return (d.user + d.system) / 1000;
}

/** A markdown table from a header row and body rows. */
export function table(head: string[], rows: (string | number)[][]): string {
  const align = head.map((_, i) => (i === 0 ? '---' : '---:'));
  return [`| ${head.join(' | ')} |`, `| ${align.join(' | ')} |`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

/** The machine, for every section's JSON: figures from a 2-core shared box are not absolute. */
export function machine(): Record<string, unknown> {
  return { node: process.version, date: new Date().toISOString() };
}
