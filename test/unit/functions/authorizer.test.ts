// The ClickHouse interface's Lambda authorizer: users from a Secrets Manager secret (mocked SDK),
// the secret read once per five minutes, each verified credential cached, a yes/no answer that says
// nothing about which part was wrong, and a rotated secret taking effect.
import { beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { APIGatewayRequestAuthorizerEventV2 } from 'aws-lambda';
import { hashPassword } from '../../../shared/core/clickhouse-http/auth.js';
import { createAuthorizer, handler, SECRET_ENV } from '../../../functions/authorizer/handler.js';

const sm = mockClient(SecretsManagerClient);
const ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:users-AbCdEf';
const users = (pw: string) => JSON.stringify({ users: [{ name: 'grafana', password: hashPassword(pw, 1024) }] });

function event(headers: Record<string, string>, rawQueryString = ''): APIGatewayRequestAuthorizerEventV2 {
  return { type: 'REQUEST', routeArn: 'arn', headers, rawQueryString } as unknown as APIGatewayRequestAuthorizerEventV2;
}
const basic = (u: string, p: string) => ({ authorization: `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}` });

beforeEach(() => {
  sm.reset();
  process.env[SECRET_ENV] = ARN;
});

describe('the deployed handler', () => {
  it('reads the users from the secret once for many requests, and authorizes by Basic or X-ClickHouse headers', async () => {
    sm.on(GetSecretValueCommand, { SecretId: ARN }).resolves({ SecretString: users('pw-1') });
    expect(await handler(event(basic('grafana', 'pw-1')))).toEqual({ isAuthorized: true, context: { user: 'grafana' } });
    expect(await handler(event({ 'X-ClickHouse-User': 'grafana', 'X-ClickHouse-Key': 'pw-1' }))).toEqual({ isAuthorized: true, context: { user: 'grafana' } });
    expect(await handler(event({}, 'user=grafana&password=pw-1'))).toMatchObject({ isAuthorized: true });
    expect(await handler(event(basic('grafana', 'nope')))).toEqual({ isAuthorized: false });
    expect(sm.commandCalls(GetSecretValueCommand)).toHaveLength(1);
  });
});

describe('createAuthorizer', () => {
  it('every failure is the same bare no; bearer tokens are not its business', async () => {
    const a = createAuthorizer({ readSecret: async () => users('pw') });
    for (const e of [event({}), event(basic('nobody', 'pw')), event(basic('grafana', 'PW')), event({ authorization: 'Bearer x.y.z' })]) {
      expect(await a(e)).toEqual({ isAuthorized: false });
    }
  });

  it('caches a verified credential for a minute, and forgets it when the secret changes', async () => {
    let t = 0;
    let secret = users('old');
    let reads = 0;
    const a = createAuthorizer({
      readSecret: async () => {
        reads++;
        return secret;
      },
      now: () => t,
    });
    expect((await a(event(basic('grafana', 'old')))).isAuthorized).toBe(true);
    expect((await a(event(basic('grafana', 'old')))).isAuthorized).toBe(true);
    expect(reads).toBe(1); // the second was a cache hit: no secret read, no scrypt
    secret = users('new');
    t = 61_000;
    expect((await a(event(basic('grafana', 'old')))).isAuthorized).toBe(false);
    expect((await a(event(basic('grafana', 'new')))).isAuthorized).toBe(true);
  });
});
