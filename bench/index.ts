// `npm run bench [-- <section>...] [--json] [--quick]`: runs benchmark sections and prints each
// as a table (or all of them as one JSON object). A section is bench/<name>.ts exporting
// `run({ quick })` -> { table, json }. Each figure is measured against a reference in the same
// run (these machines are noisy); docs/benchmarks.md records the method and the results.
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

interface Section {
  run(opts: { quick: boolean }): Promise<{ table: string; json: Record<string, unknown> }>;
}

const here = dirname(fileURLToPath(import.meta.url));
// The default order: cheap sections first, so a partial run still reports something.
const ORDER = ['merge', 'plan', 'fanout', 'tree', 'hedging', 'payload', 'coldstart', 'e2e', 'cost'];

function available(): string[] {
  const names = readdirSync(here)
    .filter((f) => f.endsWith('.ts') && !f.startsWith('_') && f !== 'index.ts')
    .map((f) => f.slice(0, -3));
  return names.sort((a, b) => (ORDER.indexOf(a) + 1 || 99) - (ORDER.indexOf(b) + 1 || 99) || a.localeCompare(b));
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const json = args.includes('--json');
  const quick = args.includes('--quick') || process.env.CI === 'true';
  const all = available();
  const asked = args.filter((a) => !a.startsWith('--'));
  const unknown = asked.filter((a) => !all.includes(a));
  if (unknown.length) {
    console.error(`unknown bench section(s): ${unknown.join(', ')}; available: ${all.join(', ')}`);
    return 2;
  }
  const out: Record<string, unknown> = {};
  for (const name of asked.length ? asked : all) {
    const mod = (await import(join(here, `${name}.ts`))) as Section;
    const res = await mod.run({ quick });
    out[name] = res.json;
    if (!json) console.log(`\n## ${name}\n${res.table}`);
  }
  // One section asked with --json prints that section's object itself (`bench -- merge --json`).
  if (json) console.log(JSON.stringify(asked.length === 1 ? out[asked[0]!] : out, null, 2));
  return 0;
}

process.exitCode = await main();
