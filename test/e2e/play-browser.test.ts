// The web console in a real browser: headless Chromium loads /play from the local stack, runs a
// query across four shards (one with a slow replica, so a hedge fires; one slow with nowhere to
// hedge, so it is cut at the deadline; one skipped by the IN list), and the rendered timeline is
// checked against the answer's own statistics: one lane per shard plus the coordinator's, a hedge
// bar beside the primary, the timed-out bar, the skipped lane with its reason, the deadline line.
// Then the explain view, and that markup in data stays text. The screenshot goes to
// .tmp/play-timeline.png on every run; with CH_SCATTER_UPDATE_SCREENSHOT=1 it replaces
// docs/img/play-timeline.png, which the README shows (a plain test run leaves the tree clean).
//
// Nothing here depends on exact milliseconds: the slow replicas take seconds longer than the 250 ms
// cold-start hedge delay and the 1.5 s deadline, and assertions compare the page with the answer.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTopology } from '../../shared/core/config/load.js';
import { startLocalStack, type LocalStack } from '../../local/stack.js';
import { launchChromium } from '../support/browser.js';
import { tempDir } from './support.js';

// The callbacks of page.evaluate run in the page; this file is compiled without the DOM library.
declare const document: any;

const SCREENSHOT = fileURLToPath(
  new URL(process.env.CH_SCATTER_UPDATE_SCREENSHOT === '1' ? '../../docs/img/play-timeline.png' : '../../.tmp/play-timeline.png', import.meta.url),
);
const TIMEOUT_MS = 1500;
const SLOW_HEDGEABLE = { delayMs: 4000, delayProbability: 1 };
const SLOW_PAST_DEADLINE = { delayMs: 6000, delayProbability: 1 };
// identity key over weights 1,1,1,1: a row lives on shard k % 4; these keys never touch shard 3
const KEYS = [0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, 16, 17, 18];
// The fast path's sketch for uniq (opted into), so the page shows an approximate column.
const SQL = `SELECT count() AS readings, round(avg(value), 2) AS avg_value, uniq(site) AS sites FROM db.readings_dist WHERE k IN (${KEYS.join(', ')}) SETTINGS ch_scatter_approximate = 'sketches'`;

let dir: string;
let stack: LocalStack;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  dir = tempDir('play');
  const topo = parseTopology({
    cluster: 'play',
    shards: [
      { replicas: [{ embedded: path.join(dir, 's0a'), fault: SLOW_HEDGEABLE }, { embedded: path.join(dir, 's0b') }] },
      { replicas: [{ embedded: path.join(dir, 's1') }] },
      { replicas: [{ embedded: path.join(dir, 's2'), fault: SLOW_PAST_DEADLINE }] },
      { replicas: [{ embedded: path.join(dir, 's3') }] },
    ],
    tables: { 'db.readings_dist': { local: 'db.readings', shardingKey: { column: 'k', type: 'UInt64', function: 'identity' } } },
    query: { timeoutMs: 5000, hedge: { enabled: true, afterQuantile: 0.95, maxExtraPercent: 100 } },
  });
  [stack, browser] = await Promise.all([startLocalStack({ topo, logLevel: 'SILENT', lambdaTimeoutMs: 60_000 }), launchChromium()]);
  // Faults apply to admin requests too: the slow replicas make this setup take a few seconds.
  for (const sql of ['CREATE DATABASE IF NOT EXISTS db', 'CREATE TABLE db.readings (k UInt64, site String, value Float64) ENGINE = MergeTree ORDER BY k']) {
    const r = await fetch(`${stack.url}/admin/exec`, { method: 'POST', body: JSON.stringify({ sql }) });
    expect(r.status, await r.clone().text()).toBe(200);
  }
  const sites = ['ams', 'fra', 'lhr', 'nyc'];
  const rows = Array.from({ length: 400 }, (_, k) => JSON.stringify({ k, site: sites[(k % 7) % 4], value: k / 10 })).join('\n');
  const ins = await fetch(`${stack.url}/admin/insert?table=db.readings_dist`, { method: 'POST', body: rows });
  expect(ins.status, await ins.clone().text()).toBe(200);
  page = await browser.newPage();
  await page.setViewport({ width: 1200, height: 900, deviceScaleFactor: 1 });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

interface Drawn {
  lanes: Array<{ cls: string; shard: string | null; bars: Array<{ cls: string; kind: string | null; status: string | null; start: number; end: number }> }>;
  deadline: { ms: number; inScale: string; x: number } | null;
  svgWidth: number;
  texts: string[];
}

/** What the page drew, read back from the DOM. */
function readTimeline(p: Page): Promise<Drawn> {
  return p.evaluate(() => {
    const svg = document.querySelector('svg.timeline')!;
    const lanes = [...svg.querySelectorAll('g.lane')].map((g) => ({
      cls: g.getAttribute('class')!,
      shard: g.getAttribute('data-shard'),
      bars: [...g.querySelectorAll('rect.bar')].map((r) => ({
        cls: r.getAttribute('class')!,
        kind: r.getAttribute('data-kind') ?? r.getAttribute('data-name'),
        status: r.getAttribute('data-status'),
        start: Number(r.getAttribute('data-start-ms')),
        end: Number(r.getAttribute('data-end-ms')),
      })),
    }));
    const d = svg.querySelector('line.deadline');
    return {
      lanes,
      deadline: d ? { ms: Number(d.getAttribute('data-ms')), inScale: d.getAttribute('data-in-scale')!, x: Number(d.getAttribute('x1')) } : null,
      svgWidth: Number(svg.getAttribute('viewBox')!.split(' ')[2]),
      texts: [...svg.querySelectorAll('text')].map((t) => t.textContent ?? ''),
    };
  });
}

describe('/play in headless Chromium', () => {
  it('runs a query and draws its shard timeline: a hedge bar, a timed-out shard, a skipped lane, the deadline line', async () => {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    await page.goto(`${stack.url}/play`, { waitUntil: 'load' });
    await page.$eval('#sql', (e, sql) => ((e as unknown as { value: string }).value = sql), SQL);
    await page.type('#timeoutMs', String(TIMEOUT_MS));
    const answered = page.waitForResponse((r) => r.url().endsWith('/query') && r.request().method() === 'POST');
    await page.click('#run');
    const body = (await (await answered).json()) as any;
    await page.waitForSelector('svg.timeline line.deadline');
    expect(errors).toEqual([]); // no script error, no CSP violation

    // the answer itself: partial, shard 2 missing by timeout, shard 0 hedged, shard 3 skipped
    expect(body.partial).toBe(true);
    expect(body.shards.missing).toEqual([expect.objectContaining({ shard: 2, reason: 'timeout' })]);
    const st = body.statistics;
    const s0 = st.shards.find((s: any) => s.shard === 0);
    expect(s0).toMatchObject({ status: 'ok', hedged: true, replica: 1 });
    expect(st.skipped).toEqual([{ shard: 3, reason: expect.stringContaining('k') }]);

    const drawn = await readTimeline(page);
    // one lane per shard (queried or skipped), in shard order, then the coordinator's
    expect(drawn.lanes.map((l) => l.shard ?? l.cls)).toEqual(['0', '1', '2', '3', 'lane coordinator']);
    const lane = (s: string) => drawn.lanes.find((l) => l.shard === s)!;
    // shard 0: the primary (cancelled when the hedge won) and the hedge as a second bar, as answered
    const hedgeAttempt = s0.attempts.find((a: any) => a.kind === 'hedge');
    expect(lane('0').bars.map((b) => [b.kind, b.status])).toEqual([
      ['primary', 'aborted'],
      ['hedge', 'ok'],
    ]);
    const hedgeBar = lane('0').bars.find((b) => b.kind === 'hedge')!;
    expect(hedgeBar.cls).toContain('hedge');
    expect([hedgeBar.start, hedgeBar.end]).toEqual([hedgeAttempt.startMs, hedgeAttempt.endMs]);
    // shard 2: cut at the deadline
    expect(lane('2').bars.map((b) => [b.kind, b.status])).toEqual([['primary', 'timeout']]);
    expect(lane('2').bars[0]!.cls).toContain('timeout');
    // shard 3: skipped, with the reason written in the lane
    expect(lane('3').bars.map((b) => b.status)).toEqual(['skipped']);
    expect(drawn.texts).toContain(`skipped: ${st.skipped[0].reason}`);
    // the coordinator: plan, the merges of shards 0 and 1, finalize
    const coord = drawn.lanes.at(-1)!.bars.map((b) => b.kind);
    expect(coord[0]).toBe('plan');
    expect(coord.at(-1)).toBe('finalize');
    expect(coord.filter((k) => k === 'merge')).toHaveLength(2);
    // the deadline: drawn where the answer says, inside the chart (the query ran up to it)
    expect(drawn.deadline).not.toBeNull();
    expect(drawn.deadline!.ms).toBe(st.deadlineAtMs);
    expect(drawn.deadline!.inScale).toBe('true');
    expect(drawn.deadline!.x).toBeGreaterThan(0);
    expect(drawn.deadline!.x).toBeLessThan(drawn.svgWidth);

    // the flags: partial, the missing shard with its reason, the approximate column
    const flags = await page.$eval('#answer', (e) => e.textContent ?? '');
    expect(flags).toContain('partial');
    expect(flags).toContain('missing shard 2: timeout');
    expect(flags).toMatch(/approximate sites: hll, relative std error/);
    // a partial answer says how much of the rows it covers; this table configures no statistics, so: unknown
    expect(flags).toContain('coverage unknown');
    expect(flags).toContain('coverage of db.readings_dist: unknown (no statistics are configured for db.readings_dist');
    const cells = await page.$$eval('#table td', (tds) => tds.map((t) => t.textContent));
    expect(cells).toHaveLength(3);

    fs.mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT as `${string}.png`, fullPage: true });
    expect(fs.statSync(SCREENSHOT).size).toBeGreaterThan(10_000);
  }, 60_000);

  it('the explain view lists each shard SQL and the skipped shard with its reason', async () => {
    const answered = page.waitForResponse((r) => r.url().endsWith('/explain'));
    await page.click('#explain');
    const body = (await (await answered).json()) as any;
    await page.waitForSelector('#explain-box:not(.hidden) .explain-shard');
    const shards = await page.$$eval('.explain-shard', (ds) => ds.map((d) => d.textContent ?? ''));
    expect(shards).toHaveLength(4);
    for (const s of body.shards.filter((x: any) => !x.skipped)) expect(shards[s.shard]).toContain(s.sql);
    expect(shards[3]).toContain(`skipped: ${body.shards[3].reason}`);
    expect(await page.$$eval('#explain-out pre.sql', (p) => p.length)).toBe(3);
  }, 30_000);

  it('errors are shown as the API gives them: a syntax error with its position, 504 with the missing shard and no timeline', async () => {
    await page.$eval('#sql', (e) => ((e as unknown as { value: string }).value = 'SELECT count( FROM db.readings_dist'));
    let answered = page.waitForResponse((r) => r.url().endsWith('/query'));
    await page.click('#run');
    expect((await answered).status()).toBe(400);
    await page.waitForFunction(() => document.querySelector('#flags')?.textContent?.includes('SYNTAX_ERROR'));
    expect(await page.$eval('#error', (e) => e.textContent)).toMatch(/\(line 1, column \d+\)$/);
    expect(await page.$eval('#timeline-box', (e) => e.classList.contains('hidden'))).toBe(true);
    expect(await page.$eval('#table-box', (e) => e.classList.contains('hidden'))).toBe(true);

    await page.$eval('#sql', (e, sql) => ((e as unknown as { value: string }).value = sql), SQL);
    await page.click('#requireComplete');
    answered = page.waitForResponse((r) => r.url().endsWith('/query'));
    await page.click('#run');
    expect((await answered).status()).toBe(504);
    await page.waitForFunction(() => document.querySelector('#flags')?.textContent?.includes('INCOMPLETE_RESULT'));
    expect(await page.$eval('#notes', (e) => e.textContent)).toContain('missing shard 2: timeout');
    expect(await page.$eval('#timeline-box', (e) => e.classList.contains('hidden'))).toBe(true);
    await page.click('#requireComplete');
  }, 30_000);

  it('markup in data stays text: a value and a column name holding HTML are shown, never parsed', async () => {
    const sql = `SELECT count() AS \`<img id="pwn1" src=x>\`, any('<b id="pwn2">bold</b>') AS tag FROM db.readings_dist WHERE k IN (0, 1)`;
    await page.$eval('#sql', (e, s) => ((e as unknown as { value: string }).value = s), sql);
    const answered = page.waitForResponse((r) => r.url().endsWith('/query'));
    await page.click('#run');
    const body = (await (await answered).json()) as any;
    expect(body.error, JSON.stringify(body.error)).toBeUndefined();
    await page.waitForFunction(() => document.querySelector('#table th')?.textContent === '<img id="pwn1" src=x>');
    expect(await page.$$eval('#pwn1, #pwn2', (e) => e.length)).toBe(0);
    expect(await page.$$eval('#table td', (tds) => tds.map((t) => t.textContent))).toContain('<b id="pwn2">bold</b>');
  }, 30_000);
});
