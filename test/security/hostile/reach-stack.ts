// A local stack for the reach corpus: the stack's shard functions wrapped so every payload they
// receive is recorded (the only way from ch-scatter to an engine), tables created through /admin/exec.
import { expect } from 'vitest';
import { parseTopology } from '../../../shared/core/config/load.js';
import { startLocalStack, type LocalStack } from '../../../local/stack.js';
import { judge, reachCases, reachTopology, send, SHARD_DDL, type ReachCase } from './reach-corpus.js';

export interface ReachStack {
  stack: LocalStack;
  /** Query payloads the shard functions received, in order (the runtime's own handshake reads left out). */
  payloads: { sql: string; format?: string; settings: Record<string, unknown> }[];
}

/** The interface's own reads, the same for every request: its engine's version and the columns of its views. */
const RUNTIME_READ = /^SELECT (version\(\) AS version, timezone\(\) AS timezone$|name FROM system\.columns WHERE database = 'system' AND table = )/;

/**
 * `exec` runs the setup statements on every shard; by default through the stack's /admin/exec (embedded
 * shards), while servers whose unauthenticated user only reads are set up as their admin user.
 */
export async function startReachStack(
  shards: unknown[],
  baseDir: string | undefined,
  rowsSql: string,
  exec?: (sql: string) => Promise<void>,
): Promise<ReachStack> {
  const payloads: ReachStack['payloads'] = [];
  const stack = await startLocalStack({
    topo: parseTopology(reachTopology(shards)),
    logLevel: 'SILENT',
    ...(baseDir ? { baseDir } : {}),
    wrapFunctions: (fns) =>
      Object.fromEntries(
        Object.entries(fns).map(([name, fn]) => [
          name,
          async (p: unknown) => {
            const q = p as { type?: string; sql?: string; format?: string; settings?: Record<string, unknown> };
            if (q.type === 'query' && !RUNTIME_READ.test(q.sql ?? '')) payloads.push({ sql: q.sql ?? '', format: q.format, settings: q.settings ?? {} });
            return fn(p);
          },
        ]),
      ),
  });
  for (const sql of [...SHARD_DDL, rowsSql]) {
    if (exec) {
      await exec(sql);
      continue;
    }
    const r = await fetch(`${stack.url}/admin/exec`, { method: 'POST', body: JSON.stringify({ sql }) });
    expect(r.status, await r.clone().text()).toBe(200);
  }
  return { stack, payloads };
}

/** Every case of the corpus, one at a time; the problems found (none when every case is refused cleanly). */
export async function runCorpus(s: ReachStack, cases: ReachCase[] = reachCases()): Promise<string[]> {
  const problems: string[] = [];
  for (const c of cases) {
    const before = s.payloads.length;
    const a = await send(s.stack.url, c);
    const p = judge(c, a, s.payloads.length - before);
    if (p.length) problems.push(`${c.route} | ${c.position} | ${c.forbidden}: ${p.join('; ')} :: ${c.sql} -> ${a.text.slice(0, 200)}`);
  }
  return problems;
}
