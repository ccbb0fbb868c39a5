// Runs bench sections one after another and writes each one's table and JSON to a directory,
// for docs/benchmarks.md (npm run bench prints either tables or JSON; this keeps both).
//   npx tsx bench/_run-all.ts OUT_DIR [--quick] section...
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [out, ...rest] = process.argv.slice(2);
if (!out) throw new Error('usage: tsx bench/_run-all.ts OUT_DIR [--quick] section...');
const quick = rest.includes('--quick');
mkdirSync(out, { recursive: true });
for (const name of rest.filter((a) => !a.startsWith('--'))) {
  const t0 = Date.now();
  const mod = (await import(`./${name}.ts`)) as { run(o: { quick: boolean }): Promise<{ table: string; json: Record<string, unknown> }> };
  try {
    const r = await mod.run({ quick });
    writeFileSync(join(out, `${name}.md`), `${r.table}\n`);
    writeFileSync(
      join(out, `${name}.json`),
      JSON.stringify({ ...r.json, run_seconds: Math.round((Date.now() - t0) / 1000), run_at: new Date(t0).toISOString() }, null, 2),
    );
    console.log(`${name}: done in ${Math.round((Date.now() - t0) / 1000)} s`);
  } catch (e) {
    writeFileSync(join(out, `${name}.error.txt`), String((e as Error)?.stack ?? e));
    console.log(`${name}: FAILED ${(e as Error)?.message}`);
  }
}
