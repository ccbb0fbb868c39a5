// The coordinator's default path reads the endpoint and credentials the AWS SDK would use straight
// from the environment (shared/adapters/aws/env-resolution.ts), so it never loads the SDK. Whenever it gives
// an answer, the answer must be the SDK's own for the same environment; where it cannot be sure (a
// shared config file, a profile, FIPS, dual-stack, another partition) it must give none, and the
// caller asks the SDK. Checked here against real LambdaClient / SecretsManagerClient instances.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import {
  credentialsFromEnv,
  endpointFromEnv,
  environmentDecides,
  LAMBDA,
  SECRETS_MANAGER,
  type ServiceNames,
} from '../../../shared/adapters/aws/env-resolution.js';
import { lambdaEndpointOf } from '../../../shared/adapters/aws/lambda-sdk-target.js';

const saved = { ...process.env };
const home = mkdtempSync(join(tmpdir(), 'ch-scatter-env-home-'));
afterEach(() => {
  process.env = { ...saved };
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

/** Lambda's environment: no config files (HOME without .aws), the role's keys, a region. */
function lambdaEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: saved.PATH,
    HOME: home,
    AWS_REGION: 'eu-west-1',
    AWS_ACCESS_KEY_ID: 'ASIAEXAMPLE',
    AWS_SECRET_ACCESS_KEY: 'secret/key+1',
    AWS_SESSION_TOKEN: 'token==',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    ...extra,
  };
  process.env = env;
  return env;
}

const SERVICES: Array<{ names: ServiceNames; make: (region: string) => LambdaClient | SecretsManagerClient }> = [
  { names: LAMBDA, make: (region) => new LambdaClient({ region }) },
  { names: SECRETS_MANAGER, make: (region) => new SecretsManagerClient({ region }) },
];

/** The SDK's endpoint for `client`, or its error's message. */
async function sdkEndpoint(client: LambdaClient | SecretsManagerClient, region: string): Promise<string> {
  try {
    return (await lambdaEndpointOf(client as LambdaClient, region)).href;
  } catch (e) {
    return `error: ${(e as Error).message}`;
  } finally {
    client.destroy();
  }
}

const REGIONS = [
  'us-east-1',
  'eu-west-1',
  'ap-southeast-5',
  'il-central-1',
  'mx-central-1',
  'cn-north-1',
  'us-gov-west-1',
  'us-iso-east-1',
  'eusc-de-east-1',
  'local',
];
const SETTINGS: Array<Record<string, string>> = [
  {},
  { AWS_USE_FIPS_ENDPOINT: 'true' },
  { AWS_USE_FIPS_ENDPOINT: 'false', AWS_USE_DUALSTACK_ENDPOINT: 'false' },
  { AWS_USE_DUALSTACK_ENDPOINT: 'true' },
  { AWS_ENDPOINT_URL: 'http://127.0.0.1:4566' },
  {
    AWS_ENDPOINT_URL_LAMBDA: 'http://10.0.0.1:9001/lambda',
    AWS_ENDPOINT_URL_SECRETS_MANAGER: 'https://sm.example.com',
    AWS_ENDPOINT_URL: 'http://127.0.0.1:4566',
  },
  { AWS_ENDPOINT_URL_LAMBDA: 'http://10.0.0.1:9001', AWS_IGNORE_CONFIGURED_ENDPOINT_URLS: 'true' },
  { AWS_ENDPOINT_URL: 'http://127.0.0.1:4566', AWS_USE_FIPS_ENDPOINT: 'true' },
];

describe.each(SERVICES)('$names.prefix endpoint: the environment answers as the SDK does, or not at all', ({ names, make }) => {
  it.each(SETTINGS.map((s) => [JSON.stringify(s), s] as const))('%s', async (_, settings) => {
    let answered = 0;
    for (const region of REGIONS) {
      const env = lambdaEnv(settings);
      const ours = endpointFromEnv(names, region, env);
      const sdk = await sdkEndpoint(make(region), region);
      if (ours) {
        answered++;
        expect(ours.href, region).toBe(sdk);
      }
    }
    // The standard partition without FIPS or dual-stack (Lambda's usual environment) is always answered.
    if (!settings.AWS_USE_FIPS_ENDPOINT?.startsWith('t') && !settings.AWS_USE_DUALSTACK_ENDPOINT?.startsWith('t')) expect(answered).toBeGreaterThanOrEqual(5);
    else expect(answered).toBe(0);
  });
});

describe('endpoint and credentials defer to the SDK when something else could decide', () => {
  it('a shared config or credentials file, named or in HOME, or a profile', () => {
    expect(environmentDecides(lambdaEnv())).toBe(true);
    expect(endpointFromEnv(LAMBDA, 'eu-west-1', lambdaEnv())?.href).toBe('https://lambda.eu-west-1.amazonaws.com/');
    const others: Record<string, string>[] = [
      { AWS_PROFILE: 'prod' },
      { AWS_CONFIG_FILE: '/nonexistent/config' },
      { AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/credentials' },
    ];
    for (const extra of others) {
      const env = lambdaEnv(extra);
      expect(endpointFromEnv(LAMBDA, 'eu-west-1', env)).toBeUndefined();
      expect(credentialsFromEnv(env)).toBeUndefined();
    }
    for (const file of ['config', 'credentials']) {
      const withFile = mkdtempSync(join(tmpdir(), 'ch-scatter-env-home-'));
      try {
        mkdirSync(join(withFile, '.aws'));
        writeFileSync(join(withFile, '.aws', file), '[default]\n');
        const env = lambdaEnv({ HOME: withFile });
        expect(endpointFromEnv(LAMBDA, 'eu-west-1', env)).toBeUndefined();
        expect(credentialsFromEnv(env)).toBeUndefined();
      } finally {
        rmSync(withFile, { recursive: true, force: true });
      }
    }
  });

  it('a boolean setting the SDK would refuse', () => {
    expect(endpointFromEnv(LAMBDA, 'eu-west-1', lambdaEnv({ AWS_USE_FIPS_ENDPOINT: 'yes' }))).toBeUndefined();
    expect(endpointFromEnv(LAMBDA, 'eu-west-1', lambdaEnv({ AWS_IGNORE_CONFIGURED_ENDPOINT_URLS: '1' }))).toBeUndefined();
  });
});

describe('credentials: the environment answers as the SDK default chain does', () => {
  it.each([
    ['with a session token', {}],
    ['long-term keys', { AWS_SESSION_TOKEN: '' }],
  ])('%s', async (_, extra) => {
    const env = lambdaEnv(extra);
    const ours = credentialsFromEnv(env);
    const client = new LambdaClient({ region: 'eu-west-1' });
    try {
      const sdk = await client.config.credentials();
      expect(ours).toEqual({
        accessKeyId: sdk.accessKeyId,
        secretAccessKey: sdk.secretAccessKey,
        ...(sdk.sessionToken ? { sessionToken: sdk.sessionToken } : {}),
      });
    } finally {
      client.destroy();
    }
  });

  it('none without both keys', () => {
    expect(credentialsFromEnv(lambdaEnv({ AWS_ACCESS_KEY_ID: '' }))).toBeUndefined();
    expect(credentialsFromEnv(lambdaEnv({ AWS_SECRET_ACCESS_KEY: '' }))).toBeUndefined();
  });
});
