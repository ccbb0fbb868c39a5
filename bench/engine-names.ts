// What it costs the final stage's engine to write two columns of one name itself (engine-names.ts), against
// the final query alone, on one chdb engine in this process over a 1,000,000-row Memory table: the wrap
// that evaluates F once into a materialized CTE, and the one WITH TOTALS that evaluates F once per side in
// one thread. Each query rotates with the others, 7 repetitions after a warm-up; medians of wall time.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Session } from 'chdb';
import { type EngineEvaluation, engineNamedSql, engineNamingSettings } from '../shared/core/plan/two-stage/engine-names.js';

const settingsSql = (e: EngineEvaluation) =>
  Object.entries(engineNamingSettings(e))
    .map(([k, v]) => `${k} = ${typeof v === 'string' ? `'${v}'` : v}`)
    .join(', ');

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function run({ quick }: { quick: boolean }) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-engine-names-'));
  const s = new Session(dir);
  try {
    const rows = quick ? 200_000 : 1_000_000;
    s.query('CREATE TABLE m (k UInt32, v UInt64, s String) ENGINE = Memory');
    s.query(`INSERT INTO m SELECT number % 100000, number, toString(number % 977) FROM numbers(${rows})`);
    const reps = quick ? 3 : 7;
    const lines = [
      '| groups | F alone, one thread ms | once (materialized) ms | per side, WITH TOTALS ms | per side / alone |',
      '| ---: | ---: | ---: | ---: | ---: |',
    ];
    const json: Record<string, unknown> = { rows, reps };
    for (const groups of [1000, 100_000]) {
      const f = (totals: string) => `SELECT k % ${groups} AS _n0, toString(sum(v)) AS _n1, max(s) AS _n2 FROM m GROUP BY _n0${totals} ORDER BY _n0`;
      const queries = {
        alone: `${f(' WITH TOTALS')} SETTINGS max_threads = 1`,
        once: `${engineNamedSql(f(''), ['k', 's', 's'], 'once')} SETTINGS ${settingsSql('once')}`,
        perSide: `${engineNamedSql(f(' WITH TOTALS'), ['k', 's', 's'], 'perSide')} SETTINGS ${settingsSql('perSide')}`,
      };
      const times: Record<string, number[]> = { alone: [], once: [], perSide: [] };
      for (const q of Object.values(queries)) s.query(q, 'PrettyCompactNoEscapes');
      for (let i = 0; i < reps; i++)
        for (const [name, q] of Object.entries(queries)) {
          const t0 = performance.now();
          s.query(q, 'PrettyCompactNoEscapes');
          times[name]!.push(performance.now() - t0);
        }
      // The wraps answer F's rows (and totals) as they are: what the bench times is the same answer.
      const tsv = (q: string) => s.query(q, 'TabSeparated');
      const same = tsv(queries.perSide) === tsv(queries.alone) && tsv(queries.once) === tsv(`${f('')} SETTINGS max_threads = 1`);
      const m = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)])) as Record<keyof typeof queries, number>;
      lines.push(`| ${groups} | ${m.alone.toFixed(1)} | ${m.once.toFixed(1)} | ${m.perSide.toFixed(1)} | ${(m.perSide / m.alone).toFixed(2)} |`);
      json[String(groups)] = { ...m, same_answer: same };
    }
    return { table: lines.join('\n'), json };
  } finally {
    s.cleanup?.();
    rmSync(dir, { recursive: true, force: true });
  }
}
