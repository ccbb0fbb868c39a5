// Loading and validating the topology config. Problems come back as one line per problem,
// each naming its JSON path (`$.shards[1].weight: ...`), so the CLI can print them and exit 1.
import { readFileSync } from 'node:fs';
import { resolve, dirname, isAbsolute } from 'node:path';
import type { z } from 'zod';
import { jsonPath } from '../json-path.js';
import { qualifyTable, topologySchema, type Topology } from './schema.js';

export { qualifyTable };

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`invalid config:\n${problems.join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

function issuesToLines(issues: z.core.$ZodIssue[]): string[] {
  return issues.map((i) => `${jsonPath(i.path)}: ${i.message}`);
}

/** Validate a parsed JSON value. Throws ConfigError listing every problem. */
export function parseTopology(value: unknown, opts: { baseDir?: string } = {}): Topology {
  const res = topologySchema.safeParse(value);
  if (!res.success) throw new ConfigError(issuesToLines(res.error.issues));
  const topo = res.data;

  // Table names are normalized to db.table so every lookup agrees on one spelling (the schema has
  // already refused two names for one table).
  const tables: Topology['tables'] = {};
  for (const [name, t] of Object.entries(topo.tables)) tables[qualifyTable(name)] = { ...t, local: qualifyTable(t.local) };
  topo.tables = tables;
  for (const s of topo.schedules) s.destination.table = qualifyTable(s.destination.table);

  if (topo.distributedCheck) topo.distributedCheck.table = qualifyTable(topo.distributedCheck.table);

  // Embedded replica directories are relative to the config file.
  if (opts.baseDir) {
    for (const shard of topo.shards)
      for (const r of shard.replicas) {
        if (r.embedded && !isAbsolute(r.embedded)) r.embedded = resolve(opts.baseDir, r.embedded);
      }
  }
  return topo;
}

/** Read, parse and validate a config file. JSON syntax errors are reported as problems too. */
export function loadTopology(file: string): Topology {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new ConfigError([`$: cannot read ${file}: ${(e as Error).message}`]);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new ConfigError([`$: not valid JSON: ${(e as Error).message}`]);
  }
  return parseTopology(value, { baseDir: dirname(resolve(file)) });
}

/** Local-only options (fault injection, embedded replicas) that a deployed stack must not carry. */
export function localOnlyProblems(topo: Topology): string[] {
  const out: string[] = [];
  for (const [i, s] of topo.shards.entries())
    s.replicas.forEach((r, j) => {
      if (r.fault) out.push(`${jsonPath(['shards', i, 'replicas', j, 'fault'])}: fault injection is for the local stack only`);
      if (r.embedded) out.push(`${jsonPath(['shards', i, 'replicas', j, 'embedded'])}: embedded replicas are for the local stack only; use "url"`);
    });
  return out;
}
