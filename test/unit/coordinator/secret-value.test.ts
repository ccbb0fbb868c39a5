// The coordinator's cursor key read (shared/adapters/aws/secret-value.ts): in Lambda's environment one
// hand-signed GetSecretValue, which must be the request the SDK's Secrets Manager client sends, signed
// identically (so AWS accepts it); transient failures retried as the SDK does, others final; and,
// where the environment does not decide, the SDK's SecretsManagerClient does the read.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { getSecretValueSigned, readSecretString, SecretReadError } from '../../../shared/adapters/aws/secret-value.js';
import { cursorKeyFromEnv } from '../../../functions/coordinator/deps.js';

interface Captured {
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

const ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:ch-scatter/cursor-AbCdEf';
const saved = { ...process.env };
const home = mkdtempSync(join(tmpdir(), 'ch-scatter-secret-home-'));
let server: Server;
let url = '';
const captured: Captured[] = [];
/** What the server answers next (status, body), then the default success. */
const script: Array<[number, unknown]> = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      captured.push({ url: req.url ?? '', headers: req.headers, body });
      const [status, answer] = script.shift() ?? [200, { ARN, Name: 'ch-scatter/cursor', SecretString: 'cursor-key-0123456789abcdef', VersionId: 'v1' }];
      res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(() => {
  process.env = { ...saved };
  captured.length = 0;
  script.length = 0;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
  rmSync(home, { recursive: true, force: true });
});

function lambdaEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  process.env = {
    PATH: saved.PATH,
    HOME: home,
    AWS_REGION: 'eu-west-1',
    AWS_ACCESS_KEY_ID: 'ASIAEXAMPLE',
    AWS_SECRET_ACCESS_KEY: 'role/secret+key',
    AWS_SESSION_TOKEN: 'IQoJb3JpZ2luX2VjEOr//////////wEaCXVzLWVhc3QtMSJHMEUCIQ==',
    AWS_ENDPOINT_URL_SECRETS_MANAGER: url,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    ...extra,
  };
  return process.env;
}

function signedPart(c: Captured): { values: Record<string, string>; at: number } {
  const names = /SignedHeaders=([^,]+)/.exec(String(c.headers.authorization))![1]!.split(';');
  const values = Object.fromEntries(names.map((n) => [n, String(c.headers[n])]));
  const d = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(values['x-amz-date']!)!;
  return { values, at: Date.UTC(+d[1]!, +d[2]! - 1, +d[3]!, +d[4]!, +d[5]!, +d[6]!) };
}

describe('GetSecretValue signed by hand', () => {
  it('sends what the SDK sends and signs it identically', async () => {
    lambdaEnv();
    const client = new SecretsManagerClient({ region: 'eu-west-1' });
    // Off before signing: the SDK's own bookkeeping and user-agent headers, which the lean read does not send.
    client.middlewareStack.addRelativeTo(
      ((next: (a: { request: unknown }) => Promise<unknown>) => async (args: { request: unknown }) => {
        const headers = (args.request as { headers: Record<string, string> }).headers;
        for (const h of ['amz-sdk-invocation-id', 'amz-sdk-request', 'x-amz-user-agent', 'user-agent']) delete headers[h];
        return next(args);
      }) as never,
      { relation: 'before', toMiddleware: 'httpSigningMiddleware', name: 'testDropSdkHeaders' },
    );
    try {
      const out = await client.send(new GetSecretValueCommand({ SecretId: ARN }));
      expect(out.SecretString).toBe('cursor-key-0123456789abcdef');
    } finally {
      client.destroy();
    }
    const sdk = captured.shift()!;
    const want = signedPart(sdk);
    expect(Object.keys(want.values)).toEqual(expect.arrayContaining(['x-amz-target', 'content-type', 'x-amz-security-token']));
    const v = await getSecretValueSigned(ARN, {
      endpoint: new URL(url),
      region: 'eu-west-1',
      credentials: { accessKeyId: 'ASIAEXAMPLE', secretAccessKey: 'role/secret+key', sessionToken: process.env.AWS_SESSION_TOKEN },
      now: () => want.at,
    });
    expect(v).toBe('cursor-key-0123456789abcdef');
    const got = captured.shift()!;
    expect(got.url).toBe(sdk.url);
    expect(got.body).toBe(sdk.body);
    expect(signedPart(got).values).toEqual(want.values);
    expect(got.headers.authorization).toBe(sdk.headers.authorization);
  });

  it("in Lambda's environment reads without the SDK; retries a 500 and a throttle, not a missing secret", async () => {
    const env = lambdaEnv();
    expect(await readSecretString(ARN, env)).toBe('cursor-key-0123456789abcdef');
    expect(captured).toHaveLength(1);
    expect(captured[0]!.headers['amz-sdk-invocation-id']).toBeUndefined(); // not the SDK's request
    captured.length = 0;

    script.push([500, { __type: 'InternalServiceError', message: 'try again' }], [400, { __type: 'ThrottlingException', message: 'slow down' }]);
    expect(await readSecretString(ARN, env)).toBe('cursor-key-0123456789abcdef');
    expect(captured).toHaveLength(3);
    captured.length = 0;

    script.push([400, { __type: 'com.amazonaws.secretsmanager#ResourceNotFoundException', message: "Secrets Manager can't find the specified secret." }]);
    const e = await readSecretString(ARN, env).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(SecretReadError);
    expect(e).toMatchObject({ errorName: 'ResourceNotFoundException', transient: false });
    expect(captured).toHaveLength(1);
    captured.length = 0;

    script.push([503, {}], [503, {}], [503, {}], [200, { SecretString: 'never-read-0123456789' }]);
    await expect(readSecretString(ARN, env)).rejects.toThrow(/GetSecretValue failed: HTTP 503/);
    expect(captured).toHaveLength(3);
    script.length = 0;
  });

  it('a binary secret has no string', async () => {
    const env = lambdaEnv();
    script.push([200, { ARN, SecretBinary: 'AAEC' }]);
    expect(await readSecretString(ARN, env)).toBeUndefined();
  });

  it('where the environment does not decide (a config file), the SDK reads it', async () => {
    const config = join(home, 'config');
    writeFileSync(config, '[default]\n');
    const env = lambdaEnv({ AWS_CONFIG_FILE: config });
    expect(await readSecretString(ARN, env)).toBe('cursor-key-0123456789abcdef');
    expect(captured).toHaveLength(1);
    expect(captured[0]!.headers['amz-sdk-invocation-id']).toBeDefined(); // the SDK's request
  });

  it('the coordinator takes its cursor key from the secret, and refuses a short one', async () => {
    const env = lambdaEnv({ CH_SCATTER_CURSOR_SECRET_ARN: ARN });
    expect(await cursorKeyFromEnv(env)).toEqual({ source: 'secret', key: Buffer.from('cursor-key-0123456789abcdef') });
    expect(JSON.parse(captured[0]!.body)).toEqual({ SecretId: ARN });
    script.push([200, { ARN, SecretString: 'short' }]);
    await expect(cursorKeyFromEnv(env)).rejects.toThrow(/missing or shorter than 16/);
  });
});
