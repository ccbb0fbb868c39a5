// The simulation's Lambda behaviour on a hand-written cloud assembly (no synthesis, no ClickHouse):
// references resolved to local names, Handler strings, Timeout, reserved concurrency, the 6 MB limit,
// the task root's isolation, and the HTTP API's authorizers.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../cdk/bundling.js';
import { startSim, type Sim } from '../../local/sim/index.js';

const dir = mkdtempSync(join(tmpdir(), 'ch-scatter-sim-unit-'));
let sim: Sim;
const logs: string[] = [];

const ECHO = `export const handler = async (event, context) => {
  if (event.sleepMs) await new Promise((r) => setTimeout(r, event.sleepMs));
  if (event.fail) throw new TypeError('asked to fail');
  if (event.importOutside) await import(event.importOutside);
  return { event, env: { OTHER: process.env.OTHER, OTHER_ARN: process.env.OTHER_ARN, SECRET: process.env.SECRET, NODE_PATH: process.env.NODE_PATH ?? null,
    LAMBDA_TASK_ROOT: process.env.LAMBDA_TASK_ROOT, region: process.env.AWS_REGION, lambdaEndpoint: process.env.AWS_ENDPOINT_URL_LAMBDA },
    cwd: process.cwd(), remaining: context.getRemainingTimeInMillis(), name: context.functionName };
};`;

function fn(handler: string, extra: Record<string, unknown> = {}) {
  return {
    Type: 'AWS::Lambda::Function',
    Properties: { Code: { S3Bucket: 'b', S3Key: 'abc.zip' }, Handler: handler, Runtime: 'nodejs22.x', Timeout: 1, MemorySize: 256, ...extra },
  };
}

function iamHeaders(): Record<string, string> {
  return {
    authorization: `AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/execute-api/aws4_request, SignedHeaders=host;x-amz-date, Signature=${'f'.repeat(64)}`,
    'x-amz-date': '20260101T000000Z',
  };
}

function jwt(claims: Record<string, unknown>): string {
  const part = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  return `${part({ alg: 'RS256', typ: 'JWT' })}.${part(claims)}.c2ln`;
}

async function invoke(name: string, payload: unknown) {
  const r = await fetch(`${sim.invokeUrl}/2015-03-31/functions/${name}/invocations`, {
    method: 'POST',
    body: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });
  return {
    status: r.status,
    functionError: r.headers.get('x-amz-function-error'),
    errorType: r.headers.get('x-amzn-errortype'),
    body: JSON.parse(await r.text()),
  };
}

beforeAll(async () => {
  const asset = join(dir, 'asset.abc');
  mkdirSync(join(asset, 'lib'), { recursive: true });
  writeFileSync(join(asset, 'index.mjs'), ECHO);
  writeFileSync(join(asset, 'lib', 'main.js'), "exports.run = async () => 'cjs handler in a subdirectory';");
  const template = {
    Resources: {
      Echo: fn('index.handler', {
        Environment: {
          Variables: {
            OTHER: { Ref: 'Other' },
            OTHER_ARN: { 'Fn::GetAtt': ['Other', 'Arn'] },
            SECRET: { Ref: 'Creds' },
          },
        },
      }),
      Other: fn('lib/main.run', { FunctionName: 'other-fn' }),
      Closed: fn('index.handler', { ReservedConcurrentExecutions: 0 }),
      One: fn('index.handler', { ReservedConcurrentExecutions: 1 }),
      Creds: { Type: 'AWS::SecretsManager::Secret', Properties: { GenerateSecretString: {} } },
      Api: { Type: 'AWS::ApiGatewayV2::Api', Properties: {} },
      Integration: {
        Type: 'AWS::ApiGatewayV2::Integration',
        Properties: { ApiId: { Ref: 'Api' }, IntegrationType: 'AWS_PROXY', IntegrationUri: { 'Fn::GetAtt': ['Echo', 'Arn'] }, PayloadFormatVersion: '2.0' },
      },
      Jwt: {
        Type: 'AWS::ApiGatewayV2::Authorizer',
        Properties: {
          AuthorizerType: 'JWT',
          JwtConfiguration: { Issuer: 'https://issuer.example', Audience: ['ch-scatter'] },
          IdentitySource: ['$request.header.Authorization'],
        },
      },
      IamRoute: {
        Type: 'AWS::ApiGatewayV2::Route',
        Properties: { RouteKey: 'POST /iam', AuthorizationType: 'AWS_IAM', Target: { 'Fn::Join': ['', ['integrations/', { Ref: 'Integration' }]] } },
      },
      JwtRoute: {
        Type: 'AWS::ApiGatewayV2::Route',
        Properties: {
          RouteKey: 'GET /jwt',
          AuthorizationType: 'JWT',
          AuthorizerId: { Ref: 'Jwt' },
          Target: { 'Fn::Join': ['', ['integrations/', { Ref: 'Integration' }]] },
        },
      },
      Tick: {
        Type: 'AWS::Events::Rule',
        Properties: {
          ScheduleExpression: 'cron(0 * * * ? *)',
          Targets: [{ Arn: { 'Fn::GetAtt': ['Echo', 'Arn'] }, Id: 'T', Input: '{"kind":"tick",  "spaces":"kept"}' }],
        },
      },
    },
  };
  writeFileSync(join(dir, 'App.template.json'), JSON.stringify(template));
  writeFileSync(
    join(dir, 'App.assets.json'),
    JSON.stringify({ files: { abc: { source: { path: 'asset.abc', packaging: 'zip' }, destinations: { d: { objectKey: 'abc.zip' } } } } }),
  );
  writeFileSync(
    join(dir, 'manifest.json'),
    JSON.stringify({
      artifacts: {
        'App.assets': { type: 'cdk:asset-manifest', properties: { file: 'App.assets.json' } },
        App: {
          type: 'aws:cloudformation:stack',
          environment: 'aws://unknown-account/eu-west-1',
          properties: { templateFile: 'App.template.json' },
          dependencies: ['App.assets'],
        },
      },
    }),
  );
  sim = await startSim({ cdkOut: dir, log: (l) => logs.push(l) });
}, 60_000);

afterAll(async () => {
  await sim?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('simulated Lambda functions', () => {
  it('resolve Ref and GetAtt of siblings to local names, run from a task root outside the project, without NODE_PATH', async () => {
    const r = await invoke('App-Echo', { hello: 1 });
    expect(r.status).toBe(200);
    expect(r.functionError).toBeNull();
    expect(r.body.env).toMatchObject({
      OTHER: 'other-fn',
      OTHER_ARN: 'arn:aws:lambda:eu-west-1:000000000000:function:other-fn',
      region: 'eu-west-1',
      NODE_PATH: null,
      lambdaEndpoint: sim.invokeUrl,
    });
    expect(r.body.env.SECRET).toMatch(/^arn:aws:secretsmanager:eu-west-1:000000000000:secret:App-Creds-[a-z0-9]{6}$/);
    expect(r.body.cwd).toBe(r.body.env.LAMBDA_TASK_ROOT);
    expect(r.body.cwd.startsWith(PROJECT_ROOT)).toBe(false);
    expect(r.body.remaining).toBeGreaterThan(0);
    expect(r.body.remaining).toBeLessThanOrEqual(1000);
    expect(r.body.name).toBe('App-Echo');
    // A Handler in a subdirectory, CommonJS: found as Lambda's runtime finds it.
    expect((await invoke('other-fn', {})).body).toBe('cjs handler in a subdirectory');
  });

  it('refuses a module outside the task root (Lambda has only what the bundle carries)', async () => {
    const r = await invoke('App-Echo', { importOutside: `${PROJECT_ROOT}bin/args.ts` });
    expect(r.functionError).toBe('Unhandled');
    expect(r.body.errorMessage).toMatch(/outside the task root/);
  });

  it('answers a thrown error, a Timeout, reserved concurrency and an oversized payload as Lambda does', async () => {
    const failed = await invoke('App-Echo', { fail: true });
    expect(failed).toMatchObject({ status: 200, functionError: 'Unhandled', body: { errorType: 'TypeError', errorMessage: 'asked to fail' } });

    const t0 = Date.now();
    const timedOut = await invoke('App-Echo', { sleepMs: 5000 });
    expect(Date.now() - t0).toBeLessThan(4000);
    expect(timedOut.status).toBe(200);
    expect(timedOut.functionError).toBe('Unhandled');
    expect(timedOut.body.errorType).toBe('Sandbox.Timedout');
    expect(timedOut.body.errorMessage).toMatch(/^RequestId: [0-9a-f-]{36} Error: Task timed out after 1\.00 seconds$/);
    // The environment was discarded: the next invocation is a cold start, and answers.
    const before = sim.functions.get('App-Echo')!.stats.coldStarts;
    expect((await invoke('App-Echo', {})).status).toBe(200);
    expect(sim.functions.get('App-Echo')!.stats.coldStarts).toBe(before + 1);

    const closed = await invoke('App-Closed', {});
    expect(closed.status).toBe(429);
    expect(closed.errorType).toBe('TooManyRequestsException');
    const held = invoke('App-One', { sleepMs: 600 });
    while (sim.inFlight('App-One') === 0) await new Promise((r) => setTimeout(r, 10));
    expect((await invoke('App-One', {})).status).toBe(429);
    expect((await held).status).toBe(200);

    const big = await invoke('App-Echo', JSON.stringify({ s: 'x'.repeat(6 * 1024 * 1024) }));
    expect(big.status).toBe(413);
  });

  it('fires a rule with its exact Input bytes', async () => {
    const [answer] = await sim.fireRule('Tick');
    expect(answer!.payload).toMatchObject({ event: { kind: 'tick', spaces: 'kept' } });
    expect(sim.assembly.rules[0]!.targets[0]!.input).toBe('{"kind":"tick",  "spaces":"kept"}');
  });
});

describe('the simulated HTTP API', () => {
  it('IAM routes need a SigV4-shaped Authorization header and pass payload 2.0 events', async () => {
    expect((await fetch(`${sim.url}/iam`, { method: 'POST', body: '{}' })).status).toBe(403);
    const r = await fetch(`${sim.url}/iam?x=1`, { method: 'POST', headers: iamHeaders(), body: '{"a":1}' });
    expect(r.status).toBe(200);
    const out = (await r.json()) as { event: any };
    expect(out.event).toMatchObject({ version: '2.0', routeKey: 'POST /iam', rawPath: '/iam', rawQueryString: 'x=1', body: '{"a":1}', isBase64Encoded: false });
    expect(out.event.requestContext.authorizer.iam.accessKey).toBe('AKID');
    expect((await fetch(`${sim.url}/nowhere`)).status).toBe(404);
  });

  it('JWT routes check issuer, audience and expiry (not the signature)', async () => {
    const get = (token?: string) => fetch(`${sim.url}/jwt`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
    const now = Math.floor(Date.now() / 1000);
    expect((await get()).status).toBe(401);
    expect((await get(jwt({ iss: 'https://other.example', aud: 'ch-scatter', exp: now + 60 }))).status).toBe(401);
    expect((await get(jwt({ iss: 'https://issuer.example', aud: 'someone-else', exp: now + 60 }))).status).toBe(401);
    expect((await get(jwt({ iss: 'https://issuer.example', aud: 'ch-scatter', exp: now - 1 }))).status).toBe(401);
    const ok = await get(jwt({ iss: 'https://issuer.example', aud: 'ch-scatter', exp: now + 60, sub: 'u1' }));
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { event: any }).event.requestContext.authorizer.jwt.claims.sub).toBe('u1');
  });
});
