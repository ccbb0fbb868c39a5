// `ch-scatter query (--config FILE | --url URL) [--json] [--timeline] [--timeout MS] [--require-complete] [--require-coverage SHARE] "SQL"`.
import { parseArgs, flagString, type FlagSpec } from '../args.js';
import { errorLine, postJson, targetOf, loadConfig } from '../api-client.js';
import { coverageLine, renderSummary, renderTable } from '../render.js';
import { renderTimeline } from '../render-timeline.js';
import type { QueryResponse } from '../../shared/core/scatter/run-query.js';

export const summary =
  "run a SELECT and print a table and a shard summary (--json: the raw response; --timeline: each shard's attempts over time, as text bars as wide as the terminal). With --config the local stack is started in-process for the one query: embedded replicas get temporary shard processes, so the directories must not be in use by a running `ch-scatter dev`";
export const usage = 'query (--config FILE | --url URL) [--json] [--timeline] [--timeout MS] [--require-complete] [--require-coverage SHARE] "SQL"';
export const flags: FlagSpec = {
  config: 'string',
  url: 'string',
  json: 'boolean',
  timeline: 'boolean',
  timeout: 'string',
  'require-complete': 'boolean',
  'require-coverage': 'string',
};

export async function run(args: string[]): Promise<number> {
  const p = parseArgs(args, flags, usage);
  const target = targetOf(p.flags);
  const sql = p.positionals.join(' ').trim();
  if (typeof target === 'string' || !sql) {
    console.error(typeof target === 'string' ? target : 'missing the SQL to run');
    console.error(`usage: ch-scatter ${usage}`);
    return 2;
  }
  const body: Record<string, unknown> = { sql };
  const timeout = flagString(p, 'timeout');
  if (timeout !== undefined) {
    const ms = Number(timeout);
    if (!Number.isInteger(ms) || ms <= 0) {
      console.error(`--timeout: a positive number of milliseconds, not ${timeout}`);
      return 2;
    }
    body.timeoutMs = ms;
  }
  if (p.flags['require-complete'] === true) body.requireComplete = true;
  const coverage = flagString(p, 'require-coverage');
  if (coverage !== undefined) {
    const share = Number(coverage);
    if (coverage.trim() === '' || !(share >= 0 && share <= 1)) {
      console.error(`--require-coverage: a share of the rows from 0 to 1 (0.99), not ${coverage}`);
      return 2;
    }
    body.requireCoverage = share;
  }

  let res: { status: number; body: unknown };
  if (target.url) res = await postJson(`${target.url}/query`, body);
  else {
    const { startLocalStack } = await import('../../local/stack.js');
    const stack = await startLocalStack({ topo: loadConfig(target), logLevel: 'ERROR' });
    try {
      res = await postJson(`${stack.url}/query`, body);
    } finally {
      await stack.stop();
    }
  }
  if (p.flags.json === true) {
    console.log(JSON.stringify(res.body, null, 2));
    return res.status === 200 ? 0 : 1;
  }
  if (res.status !== 200) {
    console.error(errorLine(res.body));
    // A query error (ClickHouse's code on the answer) is the query's to fix: listing the shards it reached would read as an outage.
    const {
      shards,
      clickhouse,
      coverage: covered,
    } = res.body as { shards?: QueryResponse['shards']; clickhouse?: unknown; coverage?: QueryResponse['coverage'] };
    if (!clickhouse) for (const m of shards?.missing ?? []) console.error(`  missing shard ${m.shard}: ${m.reason} — ${m.message}`);
    if (!clickhouse) for (const c of covered ?? []) console.error(`  ${coverageLine(c)}`);
    return 1;
  }
  const r = res.body as QueryResponse;
  console.log(renderTable(r.meta, r.data));
  console.log('');
  console.log(renderSummary(r));
  if (p.flags.timeline === true) {
    console.log('');
    console.log(renderTimeline(r.statistics, process.stdout.columns || 80));
  }
  return 0;
}
