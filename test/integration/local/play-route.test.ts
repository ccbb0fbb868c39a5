// GET /play on the local stack: the web console page, self-contained (no external script, style or
// font), sent with a Content-Security-Policy whose hashes match its inline script and style, and a
// real query whose statistics carry what the page draws. One chdb shard host.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTopology } from '../../../shared/core/config/load.js';
import { startLocalStack, type LocalStack } from '../../../local/stack.js';

let dir: string;
let stack: LocalStack;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'play-route-'));
  const topo = parseTopology({
    cluster: 'c',
    shards: [{ replicas: [{ embedded: 'shard-0' }] }, { replicas: [{ embedded: 'shard-1' }] }],
    tables: { 'db.t_dist': { local: 'db.t', shardingKey: { column: 'k', type: 'UInt64', function: 'identity' } } },
  });
  stack = await startLocalStack({ topo, baseDir: dir, logLevel: 'SILENT' });
  for (const sql of [
    'CREATE DATABASE IF NOT EXISTS db',
    'CREATE TABLE db.t (k UInt64) ENGINE = MergeTree ORDER BY k',
    'INSERT INTO db.t SELECT number FROM numbers(10)',
  ]) {
    const r = await fetch(`${stack.url}/admin/exec`, { method: 'POST', body: JSON.stringify({ sql }) });
    expect(r.status, await r.clone().text()).toBe(200);
  }
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const sha = (s: string) => `'sha256-${createHash('sha256').update(s, 'utf8').digest('base64')}'`;

describe('GET /play', () => {
  it('serves the page as HTML with a CSP that admits exactly its inline script and style', async () => {
    const r = await fetch(`${stack.url}/play`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    const html = await r.text();
    expect(html).toMatch(/^<!doctype html>/i);
    const script = /<script>([\s\S]*?)<\/script>/.exec(html)![1]!;
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)![1]!;
    const csp = r.headers.get('content-security-policy')!;
    expect(csp).toContain(`script-src ${sha(script)}`);
    expect(csp).toContain(`style-src ${sha(style)}`);
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("default-src 'none'");
    // self-contained: nothing loaded from elsewhere, and data never enters the DOM as markup
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href="(?!data:)|@import|https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
    expect(script).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write/);
  });

  it('is GET only, and /play/ with a trailing slash is the same page', async () => {
    expect((await fetch(`${stack.url}/play`, { method: 'POST', body: '{}' })).status).toBe(405);
    expect((await fetch(`${stack.url}/play/`)).status).toBe(200);
  });

  it('a query answers the timeline the page draws: attempts, the deadline, skipped shards, coordinator spans', async () => {
    const r = await fetch(`${stack.url}/query`, {
      method: 'POST',
      body: JSON.stringify({ sql: 'SELECT count() AS c FROM db.t_dist WHERE k IN (1, 2, 3)', timeoutMs: 3000 }),
    });
    const b = (await r.json()) as any;
    expect(r.status, JSON.stringify(b)).toBe(200);
    expect(b.data).toEqual([{ c: '3' }]);
    const st = b.statistics;
    // identity key over 2 shards: 1 and 3 live on shard 1, 2 on shard 0; both are asked
    expect(st.shards.map((s: any) => s.attempts.map((a: any) => [a.kind, a.status]))).toEqual([[['primary', 'ok']], [['primary', 'ok']]]);
    for (const s of st.shards) expect(s.endMs).toBeGreaterThanOrEqual(s.startMs);
    expect(st.deadlineAtMs).toBeGreaterThan(0);
    expect(st.deadlineAtMs).toBeLessThanOrEqual(3000);
    expect(st.skipped).toEqual([]);
    expect(st.coordinator.map((c: any) => c.name)).toEqual(['plan', 'merge', 'merge', 'finalize']);

    const one = await fetch(`${stack.url}/query`, { method: 'POST', body: JSON.stringify({ sql: 'SELECT count() AS c FROM db.t_dist WHERE k = 2' }) });
    const ob = (await one.json()) as any;
    expect(ob.statistics.skipped).toEqual([{ shard: 1, reason: expect.any(String) }]);
    expect(ob.statistics.shards.map((s: any) => s.shard)).toEqual([0]);
  }, 30_000);
});
