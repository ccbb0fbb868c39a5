// The fast-check seed of this test run: FC_SEED when set, else a fresh random one (then written
// back to FC_SEED so every later reader in this process agrees). vitest.config.ts draws one per run,
// so all forked test files share it. Tests that take several independent samples derive their seeds
// from it (fcSeed() + k) instead of hard-coding them, so a new run explores new cases and a printed
// seed replays them.
export function fcSeed(): number {
  const raw = process.env.FC_SEED;
  if (raw !== undefined && raw !== '') {
    const n = Number(raw);
    if (!Number.isSafeInteger(n)) throw new Error(`FC_SEED must be an integer, got '${raw}'`);
    return n | 0;
  }
  const fresh = (Math.random() * 0x1_0000_0000) | 0;
  process.env.FC_SEED = String(fresh);
  return fresh;
}
