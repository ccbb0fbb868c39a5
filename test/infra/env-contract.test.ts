// The environment the stack gives each Lambda function and the environment its handler reads must
// agree: a variable the template sets under one name and the code reads under another (or never
// reads) would only show up in AWS. Checked three ways, against the table in docs/deploy.md
// ("The functions' environment"):
//  - every variable the template sets on a function is read by that function's code (NODE_OPTIONS
//    is Node's own);
//  - every CH_SCATTER_* / POWERTOOLS_* variable a handler's code reads is set by the template (in
//    some deploy option) or listed in the table as optional;
//  - the table lists exactly the variables that are set or read.
// "The function's code" is every project file esbuild bundles for that handler (its import graph),
// and a read is `env.NAME`, `env['NAME']` or `env[CONST]` with `const CONST = 'NAME'`.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { ENTRY, esbuildOptions, PROJECT_ROOT } from '../../cdk/bundling.js';
import { awsExample, build, render, resourcesOf } from './support.js';

type Kind = 'coordinator' | 'shard' | 'authorizer' | 'stream';
const ENTRIES: Record<Kind, string> = { ...ENTRY, authorizer: join(PROJECT_ROOT, 'functions', 'authorizer', 'handler.ts') };
const NAME = /^[A-Z][A-Z0-9_]*$/;
const OURS = /^(CH_SCATTER_|POWERTOOLS_)/;

/** The environment variables `source` reads. */
function envReads(source: string): Set<string> {
  const constants = new Map<string, string>();
  for (const m of source.matchAll(/\bconst\s+([A-Za-z_$][\w$]*)\s*=\s*'([A-Z][A-Z0-9_]*)'/g)) constants.set(m[1]!, m[2]!);
  const out = new Set<string>();
  for (const m of source.matchAll(/\benv\??\.([A-Z][A-Z0-9_]*)\b/g)) out.add(m[1]!);
  for (const m of source.matchAll(/\benv\[\s*(?:'([^']+)'|"([^"]+)"|([A-Za-z_$][\w$]*))\s*\]/g)) {
    const name = m[1] ?? m[2] ?? constants.get(m[3]!);
    if (name && NAME.test(name)) out.add(name);
  }
  return out;
}

/** The project files a handler's bundle is built from (no dependencies). */
function projectInputs(entry: string): string[] {
  const r = buildSync({ ...esbuildOptions(entry, join(PROJECT_ROOT, 'env-contract-unused')), write: false, metafile: true, logLevel: 'silent' });
  return Object.keys(r.metafile.inputs).filter((f) => !f.includes('node_modules') && /\.(ts|mjs|js)$/.test(f));
}

const reads = Object.fromEntries(
  (Object.keys(ENTRIES) as Kind[]).map((k) => {
    const names = new Set<string>();
    for (const f of projectInputs(ENTRIES[k])) for (const n of envReads(readFileSync(join(PROJECT_ROOT, f), 'utf8'))) names.add(n);
    return [k, names];
  }),
) as Record<Kind, Set<string>>;

function kindOf(logicalId: string): Kind {
  if (logicalId.startsWith('Coordinator')) return 'coordinator';
  if (logicalId.startsWith('Shard')) return 'shard';
  if (logicalId.startsWith('ClickHouseAuthorizer')) return 'authorizer';
  if (logicalId.startsWith('StreamingDoor')) return 'stream';
  throw new Error(`which handler runs ${logicalId}?`);
}

/** What the template sets, per handler, over the default deployment and one with every option that adds a variable. */
function templateSets(): Record<Kind, Set<string>> {
  const withEverything = awsExample();
  withEverything.query = { ...withEverything.query, treeFanoutAbove: 2 };
  const builds = [
    build(awsExample()),
    build(withEverything, {
      play: 'true',
      clickhouse: JSON.stringify({ usersSecretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:ch-users-AbCdEf' }),
      streaming: JSON.stringify({ auth: 'users' }),
    }),
    build(awsExample(), { streaming: JSON.stringify({ auth: 'jwt' }), jwt: JSON.stringify({ issuer: 'https://issuer.example', audience: ['a'] }) }),
  ];
  const out: Record<Kind, Set<string>> = { coordinator: new Set(), shard: new Set(), authorizer: new Set(), stream: new Set() };
  for (const b of builds) {
    for (const [id, fn] of Object.entries(resourcesOf(b.template, 'AWS::Lambda::Function'))) {
      for (const [k, v] of Object.entries(fn.Properties.Environment?.Variables ?? {})) {
        render(v); // every value renders (no unexpected intrinsic)
        out[kindOf(id)].add(k);
      }
    }
  }
  return out;
}

/** The table in docs/deploy.md: variable -> { kinds, optional }. */
function documented(): Map<string, { kinds: Kind[]; optional: boolean }> {
  const md = readFileSync(join(PROJECT_ROOT, 'docs', 'deploy.md'), 'utf8');
  const section = md.slice(md.indexOf("### The functions' environment"));
  const rows = new Map<string, { kinds: Kind[]; optional: boolean }>();
  for (const m of section.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \| ([^|]+) \| ([^|]+) \|/gm)) {
    const who = m[2]!.trim();
    const kinds: Kind[] =
      who === 'all' ? ['coordinator', 'shard', 'authorizer', 'stream'] : (who.split(/,\s*/).map((w) => (w === 'shards' ? 'shard' : w)) as Kind[]);
    rows.set(m[1]!, { kinds, optional: m[3]!.trim().startsWith('never') });
  }
  return rows;
}

describe('the functions’ environment: template, code and docs agree', () => {
  const sets = templateSets();
  const docs = documented();

  it('finds reads the way the handlers write them', () => {
    expect([...envReads("const X = 'CH_A'; f(env.CH_B, process.env.CH_C, env['CH_D'], env[X], env?.CH_E, env[y]);")].sort()).toEqual([
      'CH_A',
      'CH_B',
      'CH_C',
      'CH_D',
      'CH_E',
    ]);
    // and finds the ones this test is about, so the checks below are not vacuous
    expect(reads.coordinator).toContain('CH_SCATTER_TOPOLOGY');
    expect(reads.coordinator).toContain('CH_SCATTER_PLAY_PAGE'); // through a constant
    expect(reads.shard).toContain('CH_SCATTER_SHARD');
    expect(reads.authorizer).toContain('CH_SCATTER_USERS_SECRET_ARN');
    expect(sets.coordinator).toContain('CH_SCATTER_SELF_FUNCTION');
    expect(sets.authorizer.size).toBeGreaterThan(0);
  });

  it('every variable the template sets is read by that function', () => {
    const unread = (Object.keys(sets) as Kind[]).flatMap((k) => [...sets[k]].filter((v) => v !== 'NODE_OPTIONS' && !reads[k].has(v)).map((v) => `${k}: ${v}`));
    expect(unread).toEqual([]);
  });

  it('every CH_SCATTER_* / POWERTOOLS_* variable a handler reads is set by the template or documented as optional', () => {
    const missing = (Object.keys(reads) as Kind[]).flatMap((k) =>
      [...reads[k]]
        .filter((v) => OURS.test(v) && !sets[k].has(v))
        .filter((v) => !(docs.get(v)?.optional && docs.get(v)!.kinds.includes(k)))
        // The streaming door runs the coordinator's code without its tree and web console: what the
        // coordinator is given for those, the door does without.
        .filter((v) => !(k === 'stream' && sets.coordinator.has(v)))
        .map((v) => `${k}: ${v}`),
    );
    expect(missing).toEqual([]);
  });

  it('docs/deploy.md lists exactly those variables, for the right functions', () => {
    const expected = new Map<string, Set<Kind>>();
    for (const k of Object.keys(sets) as Kind[]) {
      for (const v of sets[k]) (expected.get(v) ?? expected.set(v, new Set()).get(v)!).add(k);
      for (const v of reads[k]) if (OURS.test(v)) (expected.get(v) ?? expected.set(v, new Set()).get(v)!).add(k);
    }
    expect([...docs.keys()].sort()).toEqual([...expected.keys()].sort());
    for (const [v, row] of docs) {
      for (const k of row.kinds) expect(expected.get(v), `${v} is listed for the ${k} function`).toContain(k);
      expect(row.optional, `${v}: "never" in the table when the stack never sets it`).toBe(![...expected.get(v)!].some((k) => sets[k].has(v)));
    }
  });
});
