// Strict flag parsing for every command: an unknown or mistyped flag (say --require-completed for
// --require-complete) exits 2 with one line naming it and the command's usage, instead of being
// ignored; and every documented flag still reaches its command. A throwaway node:http server stands
// in for a running stack; commands run in-process through cli.ts's main (one real spawn at the end).
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type FlagSpec, parseArgs, UsageError } from '../../../bin/args.js';
import { main } from '../../../bin/cli.js';
import * as dev from '../../../bin/commands/dev.js';
import * as sim from '../../../bin/commands/sim.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const BIN = join(ROOT, 'bin/ch-scatter.mjs');
const COMMANDS = ['dev', 'sim', 'query', 'export', 'explain', 'exec', 'insert', 'check'] as const;
const MISSING_CONFIG = join(tmpdir(), 'ch-scatter-no-such-config.json');

interface CommandModule {
  usage: string;
  flags: FlagSpec;
}
const loadCommand = async (name: string) => (await import(`../../../bin/commands/${name}.ts`)) as CommandModule;

/** Runs the CLI in this process and collects what it prints. */
async function cli(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const log = vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => {
    stdout += `${a.join(' ')}\n`;
  });
  const error = vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => {
    stderr += `${a.join(' ')}\n`;
  });
  const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    return { code: await main(argv), stdout, stderr };
  } finally {
    log.mockRestore();
    error.mockRestore();
    write.mockRestore();
  }
}

describe('parseArgs', () => {
  const spec: FlagSpec = { config: 'string', json: 'boolean' };
  const usage = 'cmd --config FILE [--json] "SQL"';

  it('reads --flag value, --flag=value, booleans and positionals; -- ends the flags', () => {
    expect(parseArgs(['--config', 'a.json', 'SELECT', '1', '--json'], spec, usage)).toEqual({
      flags: { config: 'a.json', json: true },
      positionals: ['SELECT', '1'],
    });
    expect(parseArgs(['--config=b.json', '--', '--json', '-1'], spec, usage)).toEqual({ flags: { config: 'b.json' }, positionals: ['--json', '-1'] });
    expect(parseArgs(['SELECT 1'], spec, usage)).toEqual({ flags: {}, positionals: ['SELECT 1'] });
  });

  it.each([
    [['--require-completed'], 'unknown option --require-completed'],
    [['SELECT 1', '--jsonn'], 'unknown option --jsonn'],
    [['-j'], 'unknown option -j (a positional starting with "-" goes after --)'],
    [['--config'], 'option --config needs a value'],
    [['--json=yes'], 'option --json takes no value'],
    [['--config', '-x.json'], 'option --config: a value starting with "-" must be written --config=VALUE'],
  ])('%j is refused with one line naming the flag, then the usage', (args, problem) => {
    let thrown: unknown;
    try {
      parseArgs(args, spec, usage);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(UsageError);
    expect((thrown as Error).message).toBe(`${problem}; usage: ch-scatter ${usage}`);
  });
});

describe.each(COMMANDS)('ch-scatter %s', (name) => {
  it('parses exactly the flags its usage line and docs/api.md name', async () => {
    const mod = await loadCommand(name);
    const named = (text: string) => new Set(text.match(/--[a-z][a-z-]*/g));
    const usageFlags = named(mod.usage);
    expect(new Set(Object.keys(mod.flags).map((f) => `--${f}`))).toEqual(usageFlags);
    const docLine = readFileSync(join(ROOT, 'docs/api.md'), 'utf8')
      .split('\n')
      .find((l) => l.startsWith(`- \`${name} `));
    expect(docLine, `docs/api.md has no CLI line for ${name}`).toBeDefined();
    expect(named(docLine!.split('`')[1]!)).toEqual(usageFlags);
  });

  it('an unknown flag exits 2 with one line naming it and the usage, before doing anything', async () => {
    const mod = await loadCommand(name);
    const r = await cli(name, '--require-completed', 'SELECT 1');
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`ch-scatter ${name}: unknown option --require-completed; usage: ch-scatter ${mod.usage}\n`);
    expect(r.stdout).toBe('');
  });
});

describe('every flag reaches its command', () => {
  let server: Server;
  let url: string;
  const seen: { path: string; body: string }[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => {
        body += d;
      });
      req.on('end', () => {
        seen.push({ path: req.url ?? '', body });
        res.setHeader('content-type', 'application/json');
        if (req.url === '/admin/exec') res.end(JSON.stringify({ ok: true, replicas: [{ shard: 0, replica: 0, ok: true }] }));
        else if (req.url?.startsWith('/admin/insert')) res.end(JSON.stringify({ inserted: 1, perShard: [1] }));
        else res.end(JSON.stringify({ answered: req.url }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const lastRequest = () => {
    const last = seen.at(-1)!;
    return { path: last.path, body: JSON.parse(last.body) as unknown };
  };

  it('query: --url, --json, --timeout, --require-complete (and --flag=value)', async () => {
    const r = await cli('query', '--url', url, '--json', '--timeout', '500', '--require-complete', 'SELECT', '1');
    expect(r.code).toBe(0);
    expect(lastRequest()).toEqual({ path: '/query', body: { sql: 'SELECT 1', timeoutMs: 500, requireComplete: true } });
    expect(JSON.parse(r.stdout)).toEqual({ answered: '/query' });
    const again = await cli('query', `--url=${url}/`, '--json', '--timeout=250', 'SELECT 2');
    expect(again.code).toBe(0);
    expect(lastRequest()).toEqual({ path: '/query', body: { sql: 'SELECT 2', timeoutMs: 250 } });
  });

  it('query: --require-coverage takes a share of the rows, checked by the command', async () => {
    const r = await cli('query', '--url', url, '--json', '--require-coverage', '0.99', 'SELECT', '1');
    expect(r.code).toBe(0);
    expect(lastRequest()).toEqual({ path: '/query', body: { sql: 'SELECT 1', requireCoverage: 0.99 } });
    const bad = await cli('query', '--url', url, '--require-coverage', '99%', 'SELECT 1');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('--require-coverage: a share of the rows from 0 to 1 (0.99), not 99%\n');
  });

  it('query: a bad --timeout value is still checked by the command', async () => {
    const r = await cli('query', '--url', url, '--timeout', 'soon', 'SELECT 1');
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('--timeout: a positive number of milliseconds, not soon\n');
  });

  it('explain: --url, --json', async () => {
    const r = await cli('explain', '--url', url, '--json', 'SELECT 1');
    expect(r.code).toBe(0);
    expect(lastRequest()).toEqual({ path: '/explain', body: { sql: 'SELECT 1' } });
    expect(JSON.parse(r.stdout)).toEqual({ answered: '/explain' });
  });

  it('exec: --url, and a statement after --', async () => {
    const r = await cli('exec', '--url', url, '--', '-- a comment first', 'SELECT 1');
    expect(r.code).toBe(0);
    expect(lastRequest()).toEqual({ path: '/admin/exec', body: { sql: '-- a comment first SELECT 1' } });
    expect(r.stdout).toBe('shard 0 replica 0: ok\n');
  });

  it('dev: --config and --port are read (a bad port exits 2 before anything starts)', async () => {
    const r = await cli('dev', '--config', MISSING_CONFIG, '--port', 'abc', '--demo');
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`ch-scatter dev: --port: not a port number: abc; usage: ch-scatter ${dev.usage}\n`);
    const m = await cli('dev', '--port', '3000');
    expect(m.code).toBe(2);
    expect(m.stderr).toBe(`ch-scatter dev: --config is required; usage: ch-scatter ${dev.usage}\n`);
  });

  it('sim: --cdk-out, --port and --secrets are read (a bad port or secrets file exits 2 before anything starts)', async () => {
    const r = await cli('sim', '--cdk-out', MISSING_CONFIG, '--port', 'abc');
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`ch-scatter sim: --port: not a port number: abc; usage: ch-scatter ${sim.usage}\n`);
    const s = await cli('sim', '--cdk-out=.', '--port=0', '--secrets', MISSING_CONFIG);
    expect(s.code).toBe(2);
    expect(s.stderr).toMatch(new RegExp(`^--secrets ${MISSING_CONFIG}: ENOENT`));
  });

  it('check: --config, --endpoint, --table are accepted (the missing config is what fails)', async () => {
    const r = await cli('check', '--config', MISSING_CONFIG, '--endpoint', url, '--table', 'db.events_dist');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`cannot read ${MISSING_CONFIG}`);
  });

  it('insert (the real binary; rows on stdin): --url, --table, --skip-bad-rows', async () => {
    const r = await new Promise<{ code: number; stdout: string }>((res) => {
      const child = spawn(process.execPath, [BIN, 'insert', '--url', url, '--table', 'db.events_dist', '--skip-bad-rows'], { cwd: ROOT });
      let stdout = '';
      child.stdout.on('data', (d) => {
        stdout += d;
      });
      child.on('close', (code) => res({ code: code ?? -1, stdout }));
      child.stdin.end('{"id":1}\n');
    });
    expect(r.code).toBe(0);
    expect(seen.at(-1)).toEqual({ path: '/admin/insert?table=db.events_dist&skipBadRows=1', body: '{"id":1}\n' });
    expect(r.stdout).toBe('inserted 1 rows\nshard 0: 1 rows\n');
  });
});

it('the installed binary refuses a mistyped flag with exit 2 and a single line', () => {
  const r = spawnSync(process.execPath, [BIN, 'query', '--url', 'http://127.0.0.1:9', '--require-completed', 'SELECT 1'], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(r.status).toBe(2);
  expect(r.stderr).toBe(
    'ch-scatter query: unknown option --require-completed; usage: ch-scatter query (--config FILE | --url URL) [--json] [--timeline] [--timeout MS] [--require-complete] [--require-coverage SHARE] "SQL"\n',
  );
});
