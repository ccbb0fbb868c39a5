// The ClickHouse interface from a browser page on another origin, in headless Chromium, asked by the
// real @clickhouse/client-web (bundled for the page with esbuild): Basic credentials in Authorization,
// so the browser sends a preflight first. A page from an origin on the topology's allowlist reads the
// rows and the X-ClickHouse-* headers; one from another origin is blocked by the browser itself.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { build } from 'esbuild';
import type { Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../support/browser.js';
import { AUTH_HEADER, ROWS_SQL, startHarness, type Harness } from './support.js';

// The bundle's global in the page; this file is compiled without the DOM library.
declare const ClickHouse: typeof import('@clickhouse/client-web');

let h: Harness;
let browser: Browser;
let pages: http.Server;
let allowedOrigin: string;
let otherOrigin: string;

/** @clickhouse/client-web as one script for the page, exposing `ClickHouse.createClient`. */
async function bundleClient(dir: string): Promise<string> {
  const outfile = path.join(dir, 'client-web.js');
  await build({
    stdin: { contents: "export { createClient } from '@clickhouse/client-web';", resolveDir: process.cwd() },
    bundle: true,
    format: 'iife',
    globalName: 'ClickHouse',
    platform: 'browser',
    outfile,
    logLevel: 'silent',
  });
  return fs.readFileSync(outfile, 'utf8');
}

beforeAll(async () => {
  const tmp = fs.mkdtempSync(path.join(process.env.TMPDIR ?? '/tmp', 'client-web-'));
  const script = await bundleClient(tmp);
  fs.rmSync(tmp, { recursive: true, force: true });
  // Two origins for the pages: the same server under two host names (127.0.0.1 and localhost).
  pages = http.createServer((req, res) => {
    if (req.url === '/client-web.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      res.end(script);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><title>dashboard</title><script src="/client-web.js"></script>');
  });
  await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
  const port = (pages.address() as AddressInfo).port;
  allowedOrigin = `http://127.0.0.1:${port}`;
  otherOrigin = `http://localhost:${port}`;
  [h, browser] = await Promise.all([startHarness({ clickhouseHttp: { corsOrigins: [allowedOrigin] } }), launchChromium()]);
  const r = await fetch(`${h.stack.url}/admin/exec`, { method: 'POST', headers: AUTH_HEADER, body: JSON.stringify({ sql: ROWS_SQL('analytics.events') }) });
  expect(r.status).toBe(200);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await h?.stop();
  await new Promise((resolve) => pages?.close(resolve));
});

/** A query by client-web from a page on `origin`: the rows and headers it read, or the error it got. */
async function fromPage(origin: string, query: string) {
  const page = await browser.newPage();
  try {
    await page.goto(`${origin}/`, { waitUntil: 'load' });
    return await page.evaluate(
      async (url: string, username: string, password: string, query: string) => {
        const client = ClickHouse.createClient({ url, username, password });
        try {
          const rs = await client.query({ query, format: 'JSONEachRow', query_id: 'from-the-page' });
          return {
            rows: (await rs.json()) as unknown[],
            queryId: rs.query_id,
            summary: (rs.response_headers['x-clickhouse-summary'] ?? null) as string | null,
          };
        } catch (e) {
          return { error: String(e), code: (e as { code?: string }).code ?? null };
        } finally {
          await client.close();
        }
      },
      h.stack.url,
      h.auth.username,
      h.auth.password,
      query,
    );
  } finally {
    await page.close();
  }
}

describe('the ClickHouse interface from another origin, by @clickhouse/client-web', () => {
  it('an allowed origin reads a distributed answer and its headers (after the preflight)', async () => {
    const r = await fromPage(allowedOrigin, 'SELECT count() AS c FROM analytics.events_dist WHERE v >= 0');
    // The admin statement ran on both shards: 200 rows each.
    expect(r).toMatchObject({ rows: [{ c: 400 }], queryId: 'from-the-page' });
    // The exposed headers are readable from the page: the rows the shards' engines read, not returned.
    expect(JSON.parse((r as { summary: string }).summary)).toMatchObject({ read_rows: '400', result_bytes: String('{"c":400}\n'.length) });
  });

  it('an error reaches the page with its code', async () => {
    const r = await fromPage(allowedOrigin, 'SELECT nope FROM analytics.events_dist');
    expect(r).toMatchObject({ code: '47', error: expect.stringMatching(/nope/) });
  });

  it('an origin off the allowlist is blocked by the browser', async () => {
    const r = await fromPage(otherOrigin, 'SELECT 1');
    expect(r).toMatchObject({ error: expect.stringMatching(/Failed to fetch/) });
  });
});
