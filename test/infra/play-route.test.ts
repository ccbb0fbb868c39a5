// The `play` deploy option: off by default (no route, no page shipped); on, GET /play joins the
// API behind the same authorizer as /query, the coordinator is told where its page is, and the
// bundling copies local/play/index.html beside the handler.
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { awsExample, build, resourcesOf } from './support.js';
import { HandlerBundling, PLAY_PAGE_BUNDLED, PLAY_PAGE_SOURCE } from '../../cdk/bundling.js';
import { parseDeployOptions } from '../../cdk/deploy-options.js';

const FN = 'AWS::Lambda::Function';
const ROUTE = 'AWS::ApiGatewayV2::Route';

function coordinatorEnv(t: ReturnType<typeof build>['template']): Record<string, unknown> {
  const [, fn] = Object.entries(resourcesOf(t, FN)).find(([id]) => id.startsWith('CoordinatorLambdaFunction'))!;
  return fn.Properties.Environment.Variables;
}

describe('the play deploy option', () => {
  it('is off by default: no GET /play route and no page for the coordinator', () => {
    expect(parseDeployOptions(() => undefined).play).toBe(false);
    const b = build(awsExample());
    const keys = Object.values(resourcesOf(b.template, ROUTE)).map((r) => r.Properties.RouteKey);
    expect(keys).not.toContain('GET /play');
    expect(coordinatorEnv(b.template).CH_SCATTER_PLAY_PAGE).toBeUndefined();
  });

  it('with IAM auth: GET /play is one more IAM-authorized route to the same integration, and the coordinator knows its page', () => {
    const b = build(awsExample(), { play: 'true' });
    const routes = Object.values(resourcesOf(b.template, ROUTE));
    expect(routes.map((r) => r.Properties.RouteKey).sort()).toEqual(['GET /health', 'GET /play', 'POST /explain', 'POST /query']);
    const play = routes.find((r) => r.Properties.RouteKey === 'GET /play')!;
    const query = routes.find((r) => r.Properties.RouteKey === 'POST /query')!;
    expect(play.Properties.AuthorizationType).toBe('AWS_IAM');
    expect(play.Properties.Target).toEqual(query.Properties.Target);
    expect(coordinatorEnv(b.template).CH_SCATTER_PLAY_PAGE).toBe(PLAY_PAGE_BUNDLED);
  });

  it('with a JWT authorizer: GET /play takes the same authorizer', () => {
    const b = build(awsExample(), { play: true, jwt: '{"issuer":"https://auth.example.com/","audience":["ch-scatter"]}' });
    const routes = Object.values(resourcesOf(b.template, ROUTE));
    expect(routes).toHaveLength(4);
    const ids = new Set(routes.map((r) => JSON.stringify(r.Properties.AuthorizerId)));
    expect(ids.size).toBe(1);
    for (const r of routes) expect(r.Properties.AuthorizationType).toBe('JWT');
  });

  it('the bundling copies the page that exists in the repository beside the handler', () => {
    expect(existsSync(PLAY_PAGE_SOURCE)).toBe(true);
    const dir = mkdtempSync(join(tmpdir(), 'ch-scatter-play-'));
    try {
      const entry = join(dir, 'entry.ts');
      writeFileSync(entry, 'export const handler = async () => 1;\n');
      for (const [out, copies] of [
        ['with', { [PLAY_PAGE_BUNDLED]: PLAY_PAGE_SOURCE }],
        ['without', {}],
      ] as const) {
        const outDir = join(dir, out);
        expect(new HandlerBundling(entry, copies).local.tryBundle(outDir, { image: undefined as never })).toBe(true);
        const files = readdirSync(outDir).sort();
        if (out === 'with') {
          // node_modules: the packages shipped beside every bundle (SHIPPED_PACKAGES, cdk/bundling.ts).
          expect(files).toEqual(['index.mjs', 'index.mjs.map', 'node_modules', PLAY_PAGE_BUNDLED]);
          expect(readFileSync(join(outDir, PLAY_PAGE_BUNDLED), 'utf8')).toBe(readFileSync(PLAY_PAGE_SOURCE, 'utf8'));
        } else expect(files).toEqual(['index.mjs', 'index.mjs.map', 'node_modules']);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
