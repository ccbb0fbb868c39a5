// `ch-scatter insert --url`: the body goes unchanged to POST /admin/insert?table=..., and the
// answer (or the error) is printed. A throwaway node:http server stands in for the local stack.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
let server: Server;
let url: string;
const seen: { path: string; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      seen.push({ path: req.url ?? '', body });
      const table = new URL(req.url ?? '/', 'http://x').searchParams.get('table');
      res.setHeader('content-type', 'application/json');
      if (table === 'nope') {
        res.statusCode = 400;
        res.end(JSON.stringify({ error: { code: 'UNKNOWN_TABLE', message: 'unknown table default.nope' } }));
      } else res.end(JSON.stringify({ inserted: 3, perShard: [1, 2] }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

function cli(args: string[], stdin: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((res) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin/ch-scatter.mjs'), ...args], { cwd: ROOT });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => res({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

describe('ch-scatter insert --url', () => {
  it('posts the rows to /admin/insert and prints per-shard counts', async () => {
    const body = '{"id":1}\n{"id":2}\n{"id":3}\n';
    const r = await cli(['insert', '--url', url, '--table', 'db.events_dist'], body);
    expect(r.code).toBe(0);
    expect(seen.at(-1)).toEqual({ path: '/admin/insert?table=db.events_dist', body });
    expect(r.stdout).toBe('inserted 3 rows\nshard 0: 1 rows\nshard 1: 2 rows\n');
  });
  it('prints the error code and exits 1', async () => {
    const r = await cli(['insert', '--url', url, '--table', 'nope'], '{"id":1}\n');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/UNKNOWN_TABLE: unknown table default.nope/);
  });
  it('usage error without --table', async () => {
    const r = await cli(['insert', '--url', url], '');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/usage: ch-scatter insert/);
  });
});
