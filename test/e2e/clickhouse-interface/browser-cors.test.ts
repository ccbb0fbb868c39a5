// The ClickHouse interface from a browser page on another origin, in headless Chromium: the page
// asks as @clickhouse/client-web does (fetch, POST, Basic credentials in Authorization, so the browser
// sends a preflight first) and reads the answer and the X-ClickHouse-* headers. A page from an origin
// on the topology's allowlist gets them; one from another origin is blocked by the browser itself.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../support/browser.js';
import { AUTH_HEADER, ROWS_SQL, startHarness, type Harness } from './support.js';

// The callbacks of page.evaluate run in the page; this file is compiled without the DOM library.
declare const fetch: (url: string, init: Record<string, unknown>) => Promise<any>;

let h: Harness;
let browser: Browser;
let pages: http.Server;
let allowedOrigin: string;
let otherOrigin: string;

beforeAll(async () => {
  // Two origins for the pages: the same server under two host names (127.0.0.1 and localhost).
  pages = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><title>dashboard</title>');
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

/** A query from a page on `origin`, as client-web sends it: what the page could read, or the error it got. */
async function fromPage(origin: string, sql: string) {
  const page = await browser.newPage();
  try {
    await page.goto(`${origin}/`, { waitUntil: 'load' });
    return await page.evaluate(
      async (url: string, authorization: string, body: string) => {
        try {
          const r = await fetch(`${url}/?default_format=JSONEachRow&query_id=from-the-page`, {
            method: 'POST',
            headers: { Authorization: authorization, 'Content-Type': 'text/plain;charset=UTF-8' },
            body,
          });
          return {
            status: r.status as number,
            body: (await r.text()) as string,
            queryId: r.headers.get('x-clickhouse-query-id') as string | null,
            summary: r.headers.get('x-clickhouse-summary') as string | null,
            code: r.headers.get('x-clickhouse-exception-code') as string | null,
          };
        } catch (e) {
          return { error: String(e) };
        }
      },
      h.stack.url,
      AUTH_HEADER.authorization,
      sql,
    );
  } finally {
    await page.close();
  }
}

describe('the ClickHouse interface from another origin', () => {
  it('an allowed origin reads a distributed answer and its headers (after the preflight)', async () => {
    const r = await fromPage(allowedOrigin, 'SELECT count() AS c FROM analytics.events_dist WHERE v >= 0');
    // The admin statement ran on both shards: 200 rows each.
    expect(r).toMatchObject({ status: 200, body: '{"c":400}\n', queryId: 'from-the-page' });
    // The exposed headers are readable from the page.
    expect(JSON.parse((r as { summary: string }).summary)).toMatchObject({ result_bytes: String('{"c":400}\n'.length) });
  });

  it('an error reaches the page with its code', async () => {
    const r = await fromPage(allowedOrigin, 'SELECT nope FROM analytics.events_dist');
    expect(r).toMatchObject({ code: '47' });
    expect((r as { body: string }).body).toMatch(/^Code: 47\. /);
  });

  it('an origin off the allowlist is blocked by the browser', async () => {
    const r = await fromPage(otherOrigin, 'SELECT 1');
    expect(r).toEqual({ error: expect.stringMatching(/TypeError: Failed to fetch/) });
  });
});
