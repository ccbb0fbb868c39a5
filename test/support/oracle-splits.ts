// fast-check arbitraries for "any split of the rows and any arrival order": the answer of the
// general path must not depend on which shard holds a row (for queries whose answer does not depend
// on placement: see OracleQuery.placementDependent) nor on the order in which shards answer.
//
// A split is drawn as a seed and per-shard weights (zero weights give empty shards; shrinking moves
// towards them), and expanded into parts by a seeded PRNG, so a failing case is replayed from the
// run's printed seed (test/support/fast-check-seed.ts: `FC_SEED=<n> npx vitest run <file>`) without
// fast-check holding thousands of per-row choices.
import fc from 'fast-check';
import { type Row, rng, toTsv } from '../oracle/data.js';
import { columnsFor, type OracleTable } from '../oracle/schema.js';
import type { Executor } from './oracle-cluster.js';

export interface Split<T> {
  /** parts[i]: the rows shard i holds. Every row is in exactly one part. */
  parts: T[][];
  /** The order shards answer in: a permutation of 0..parts.length-1. */
  arrival: number[];
  /** What the split was drawn from, for a failure message. */
  seed: number;
  weights: number[];
}

/** Deal `rows` into `weights.length` parts, each row to shard i with probability weights[i] / sum (all zero: every row to shard 0). */
export function splitRows<T>(rows: readonly T[], weights: readonly number[], seed: number): T[][] {
  const parts: T[][] = weights.map(() => []);
  const total = weights.reduce((a, b) => a + b, 0);
  if (total === 0) {
    parts[0]!.push(...rows);
    return parts;
  }
  const r = rng(seed);
  for (const row of rows) {
    let x = r() * total;
    let i = 0;
    while (x >= weights[i]! && i < weights.length - 1) x -= weights[i++]!;
    parts[i]!.push(row);
  }
  return parts;
}

/** A random split of `rows` over `shards` shards (some possibly empty) and a random arrival order. */
export function splitArbitrary<T>(rows: readonly T[], shards: number): fc.Arbitrary<Split<T>> {
  const indexes = Array.from({ length: shards }, (_, i) => i);
  return fc
    .record({
      seed: fc.integer(),
      weights: fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 10 })), { minLength: shards, maxLength: shards }),
      arrival: fc.shuffledSubarray(indexes, { minLength: shards, maxLength: shards }),
    })
    .map(({ seed, weights, arrival }) => ({ parts: splitRows(rows, weights, seed), arrival, seed, weights }));
}

/** Only an arrival order (the rows stay where the router put them). */
export function arrivalArbitrary(shards: number): fc.Arbitrary<number[]> {
  const indexes = Array.from({ length: shards }, (_, i) => i);
  return fc.shuffledSubarray(indexes, { minLength: shards, maxLength: shards });
}

/**
 * Put a split's parts in place: part i replaces the rows of `targets[i].table` on `targets[i].engine`
 * (chdb shard engines: the table under its local name; one engine: a table per part).
 */
export async function loadSplit(
  targets: ReadonlyArray<{ engine: Executor; table: string }>,
  t: OracleTable,
  parts: readonly (readonly Row[])[],
): Promise<void> {
  if (targets.length !== parts.length) throw new Error(`a split of ${parts.length} parts needs ${parts.length} targets, got ${targets.length}`);
  for (const [i, { engine, table }] of targets.entries()) {
    await engine.exec(`TRUNCATE TABLE ${table}`);
    const rows = parts[i]!;
    if (rows.length) await engine.exec(`INSERT INTO ${table} FORMAT TabSeparated\n${toTsv(rows, columnsFor(t, 'chdb'))}`);
  }
}
