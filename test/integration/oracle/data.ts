// Generated rows for the oracle suite: several types, skewed group keys (Zipf-like sensors),
// NULLs in non-key columns, and an empty shard (no uid is 4 mod 5, and the identity-keyed table
// has 5 equal shards, so shard 4 holds nothing). Deterministic (seeded PRNG).

export const DDL_COLUMNS = `
  uid UInt32,
  sensor String,
  region String,
  v Int32,
  f Float64,
  n Nullable(Int64),
  s Nullable(String),
  d Date,
  ts DateTime,
  big UInt64,
  flag UInt8,
  amount Decimal(12, 2)`;

export function ddl(table: string): string {
  return `CREATE TABLE IF NOT EXISTS ${table} (${DDL_COLUMNS}) ENGINE = MergeTree ORDER BY (sensor, uid)`;
}

export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const REGIONS = ['eu', 'us', 'ap', 'sa', 'af', 'me', 'oc', 'an'];

export function generateRows(count: number, seed = 42): Record<string, unknown>[] {
  const r = rng(seed);
  const rows: Record<string, unknown>[] = [];
  for (let i = 0; i < count; i++) {
    let uid = 1 + Math.floor(r() * 6000);
    if (uid % 5 === 4) uid += 1; // shard 4 of the identity table stays empty
    // Zipf-ish skew: a few sensors get most rows.
    const sensor = `s-${Math.floor(r() ** 2.5 * 400)}`;
    const region = REGIONS[Math.floor(r() ** 1.5 * REGIONS.length)]!;
    const v = Math.floor(r() * 2001) - 1000;
    const f = Math.round((r() * 1000 - 300) * 1000) / 1000 + (r() < 0.05 ? 0 : 0.0001);
    const n = r() < 0.2 ? null : String(Math.floor(r() * 1e12) - 5e11);
    const s = r() < 0.3 ? null : `t${Math.floor(r() * 50)}`;
    const day = Math.floor(r() * 60);
    const d = new Date(Date.UTC(2024, 0, 1) + day * 86400000).toISOString().slice(0, 10);
    const ts = new Date(Date.UTC(2024, 0, 1) + Math.floor(r() * 60 * 86400) * 1000).toISOString().slice(0, 19).replace('T', ' ');
    const big = (BigInt(Math.floor(r() * 2 ** 31)) * 4294967296n + BigInt(Math.floor(r() * 2 ** 32))).toString();
    const flag = r() < 0.3 ? 1 : 0;
    const cents = Math.floor(r() * 2_000_000) - 500_000;
    const amount = `${cents < 0 ? '-' : ''}${Math.floor(Math.abs(cents) / 100)}.${String(Math.abs(cents) % 100).padStart(2, '0')}`;
    rows.push({ uid, sensor, region, v, f, n, s, d, ts, big, flag, amount });
  }
  return rows;
}
