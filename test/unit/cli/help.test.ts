// `npx ch-scatter --help` must work right after `npm install` (no build step): the bin registers
// tsx and loads every command module. A command that fails to load shows up here, not in a user's shell.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../../../bin/ch-scatter.mjs', import.meta.url));
const run = (...args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', timeout: 60_000 });

describe('ch-scatter CLI', () => {
  it('--help lists every documented command, each loadable', () => {
    const r = run('--help');
    expect(r.status).toBe(0);
    for (const cmd of ['dev', 'sim', 'query', 'export', 'explain', 'exec', 'insert', 'check']) expect(r.stdout).toMatch(new RegExp(`^  ${cmd} `, 'm'));
    expect(r.stdout).not.toMatch(/cannot load|not available/);
  });

  it('an unknown command exits 2 with the usage', () => {
    const r = run('frobnicate');
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('unknown command "frobnicate"');
    expect(r.stderr).toContain('usage: ch-scatter');
  });

  it('a config with problems exits 1 with one line per problem naming its JSON path', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cli-'));
    const cfg = join(dir, 'bad.json');
    writeFileSync(cfg, JSON.stringify({ cluster: 'c', shards: [{ weight: 0, replicas: [] }], tables: {} }));
    const r = run('explain', '--config', cfg, 'SELECT 1');
    expect(r.status).toBe(1);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^\$\.shards\[0\]\.weight: /),
        expect.stringMatching(/^\$\.shards\[0\]\.replicas: /),
        expect.stringMatching(/^\$\.tables: /),
      ]),
    );
    expect(r.stderr).not.toMatch(/at .*\.ts:\d+/); // no stack trace
  });
});
