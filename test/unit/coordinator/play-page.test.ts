// GET /play through the coordinator handler: absent (404, like any unknown path) unless the
// deployment ships the page; when it does, the page with its CSP; and the CSP's hashes.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { httpEvent } from '../../support/http-event.js';
import type { Context } from 'aws-lambda';
import { createCoordinatorHandler, createTools } from '../../../functions/coordinator/handler.js';
import type { CoordinatorDeps } from '../../../functions/coordinator/deps.js';
import { contentSecurityPolicy, playPageFromEnv } from '../../../functions/coordinator/play-page.js';
import { createHedgeState } from '../../../shared/core/scatter/hedge.js';
import { fakeInvoker, sumPlan, topo } from '../scatter/fakes.js';

beforeAll(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
});

const ctx = { getRemainingTimeInMillis: () => 30_000, awsRequestId: 'r', functionName: 'f' } as unknown as Context;
const get = (path: string, method = 'GET') => httpEvent(method, path) as never;

function deps(over: Partial<CoordinatorDeps> = {}): CoordinatorDeps {
  return {
    topo: topo([1]),
    invoker: fakeInvoker(() => ({ kind: 'ok' })),
    planQuery: async () => sumPlan(1),
    explainPlan: () => ({}),
    hedgeState: createHedgeState(),
    ...over,
  };
}

const PAGE = '<!doctype html><style>b{}</style><p>x</p><script>1</script>';

describe('GET /play in the coordinator', () => {
  it('is 404 when the page is not deployed (the default)', async () => {
    const h = createCoordinatorHandler(async () => deps(), createTools());
    const r = (await h(get('/play'), ctx)) as any;
    expect(r.statusCode).toBe(404);
    expect(JSON.parse(r.body).error.message).toBe('no route GET /play');
  });

  it('serves the file CH_SCATTER_PLAY_PAGE names, relative to LAMBDA_TASK_ROOT, with its CSP', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'play-page-'));
    writeFileSync(path.join(dir, 'play.html'), PAGE);
    const playPage = playPageFromEnv({ CH_SCATTER_PLAY_PAGE: 'play.html', LAMBDA_TASK_ROOT: dir })!;
    const h = createCoordinatorHandler(async () => deps({ playPage }), createTools());
    const r = (await h(get('/prod/play'), ctx)) as any;
    expect(r.statusCode).toBe(200);
    expect(r.body).toBe(PAGE);
    expect(r.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(r.headers['content-security-policy']).toBe(contentSecurityPolicy(PAGE));
    expect(((await h(get('/play', 'POST'), ctx)) as any).statusCode).toBe(405);
  });

  it('an unreadable page is a generic 500, not a stack trace', async () => {
    const playPage = playPageFromEnv({ CH_SCATTER_PLAY_PAGE: '/nonexistent/play.html' })!;
    const h = createCoordinatorHandler(async () => deps({ playPage }), createTools());
    const r = (await h(get('/play'), ctx)) as any;
    expect(r.statusCode).toBe(500);
    expect(r.body).not.toMatch(/nonexistent|ENOENT/);
  });

  it('unset: no page', () => {
    expect(playPageFromEnv({})).toBeUndefined();
  });
});

describe('contentSecurityPolicy', () => {
  it('hashes each inline script and style; none of either is none', () => {
    const csp = contentSecurityPolicy(PAGE);
    expect(csp).toContain("script-src 'sha256-a4ayc/80/OGda4BO/1o/V0etpOqiLx1JwB5S3beHW0s='");
    expect(csp).toMatch(/style-src 'sha256-[A-Za-z0-9+/=]{44}'/);
    expect(contentSecurityPolicy('<p>no code</p>')).toContain("script-src 'none'");
  });
});
