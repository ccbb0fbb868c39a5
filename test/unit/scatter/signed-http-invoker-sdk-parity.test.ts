// Proof, without an AWS account, that the lean invoker's requests would pass AWS's signature check:
// the same Invoke goes through the real SDK (createLambdaClient + createLambdaInvoker) and through
// createSignedHttpInvoker to a capturing node:http server, both in their AWS configuration (no
// CH_SCATTER_LAMBDA_ENDPOINT: credentials from the SDK's default provider chain, here the env
// variables Lambda sets for a role, with and without a session token; the endpoint from the SDK's
// endpoint rules, here redirected by AWS_ENDPOINT_URL_LAMBDA to the capture server).
//  - as the SDK sends it (it signs its own amz-sdk-* headers too): our signer, given the SDK's
//    request and its x-amz-date, computes the SDK's Authorization header;
//  - with those SDK-internal headers taken off before the SDK signs: the lean invoker, signing at
//    the SDK's x-amz-date, sends the same path, the same signed headers and the same Authorization.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LambdaClient } from '@aws-sdk/client-lambda';
import { createLambdaClient, createLambdaInvoker } from '../../../shared/adapters/aws/lambda-invoker.js';
import { createSignedHttpInvoker } from '../../../shared/adapters/aws/signed-http-invoker.js';
import { lambdaEndpointOf } from '../../../shared/adapters/aws/lambda-sdk-target.js';
import { signPost } from '../../../shared/adapters/aws/sigv4.js';
import type { ShardRequest } from '../../../shared/core/protocol/shard-wire.js';

interface Captured {
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let server: Server;
let url = '';
const captured: Captured[] = [];
const savedEnv = { ...process.env };
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true'; // the pinned SDK's Node 22 notice

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      captured.push({ url: req.url ?? '', headers: req.headers, body });
      const p = JSON.parse(body) as ShardRequest;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ok: true, shard: p.shard, replica: p.replica, meta: [], rows: [], statistics: { elapsedMs: 0, rowsRead: 0, bytesRead: 0 } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  delete process.env.CH_SCATTER_LAMBDA_ENDPOINT;
  process.env.AWS_ENDPOINT_URL_LAMBDA = url;
  process.env.AWS_REGION = 'eu-west-1';
});

afterAll(() => {
  process.env = savedEnv;
  server.closeAllConnections();
  server.close();
});

const request: ShardRequest = {
  type: 'query',
  queryId: 'q-1',
  shard: 0,
  replica: 1,
  sql: 'SELECT count() FROM t',
  deadline: 1_900_000_000_000,
  settings: {},
  external: [],
  attempt: 'primary',
};

const NAMES = [
  'ch-scatter-shard-0',
  'arn:aws:lambda:eu-west-1:123456789012:function:ch-scatter-shard-1',
  'arn:aws:lambda:eu-west-1:123456789012:function:f:$LATEST',
  "odd name (v2)!*'~ü",
];
type CredentialEnv = { AWS_ACCESS_KEY_ID: string; AWS_SECRET_ACCESS_KEY: string; AWS_SESSION_TOKEN?: string };
const CREDENTIALS: Array<{ what: string; env: CredentialEnv }> = [
  { what: 'long-term keys', env: { AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE', AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' } },
  {
    what: 'role credentials with a session token',
    env: {
      AWS_ACCESS_KEY_ID: 'ASIAEXAMPLE',
      AWS_SECRET_ACCESS_KEY: 'role/secret+key',
      AWS_SESSION_TOKEN: 'IQoJb3JpZ2luX2VjEOr//////////wEaCXVzLWVhc3QtMSJHMEUCIQ==',
    },
  },
];

function useCredentials(env: CredentialEnv) {
  delete process.env.AWS_SESSION_TOKEN;
  Object.assign(process.env, env);
}

/** The signed headers of a captured request, by name, and its x-amz-date as ms. */
function signedPart(c: Captured): { names: string[]; values: Record<string, string>; at: number } {
  const names = /SignedHeaders=([^,]+)/.exec(String(c.headers.authorization))![1]!.split(';');
  const values = Object.fromEntries(names.map((n) => [n, String(c.headers[n])]));
  const d = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(values['x-amz-date']!)!;
  return { names, values, at: Date.UTC(+d[1]!, +d[2]! - 1, +d[3]!, +d[4]!, +d[5]!, +d[6]!) };
}

async function sdkRequest(client: LambdaClient, name: string): Promise<Captured> {
  const sdk = createLambdaInvoker(1, { client, functionNames: [name] });
  captured.length = 0;
  const r = await sdk.invoke(0, request, new AbortController().signal);
  expect(r.ok).toBe(true);
  expect(captured).toHaveLength(1);
  return captured[0]!;
}

describe.each(CREDENTIALS)('signatures against the SDK, $what', ({ env }) => {
  it.each(NAMES)('the SDK request as sent: our signer computes its Authorization (%s)', async (name) => {
    useCredentials(env);
    const client = createLambdaClient({});
    try {
      const sdk = await sdkRequest(client, name);
      const { names, values, at } = signedPart(sdk);
      expect(names).toEqual(
        expect.arrayContaining([
          'host',
          'x-amz-date',
          'x-amz-content-sha256',
          'content-type',
          'x-amz-invocation-type',
          ...(env.AWS_SESSION_TOKEN ? ['x-amz-security-token'] : []),
        ]),
      );
      const rest = Object.fromEntries(
        Object.entries(values).filter(([n]) => !['host', 'x-amz-date', 'x-amz-content-sha256', 'x-amz-security-token'].includes(n)),
      );
      const ours = signPost({
        host: values.host!,
        path: sdk.url,
        headers: rest,
        body: sdk.body,
        region: 'eu-west-1',
        service: 'lambda',
        credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY, sessionToken: env.AWS_SESSION_TOKEN },
        now: at,
      });
      expect(ours.authorization).toBe(sdk.headers.authorization);
    } finally {
      client.destroy();
    }
  });

  it.each(NAMES)('the lean invoker sends what the SDK sends and signs it identically (%s)', async (name) => {
    useCredentials(env);
    const client = createLambdaClient({});
    // Off before signing: the SDK's per-attempt bookkeeping headers, which the lean invoker does not send.
    client.middlewareStack.addRelativeTo(
      ((next: (a: { request: unknown }) => Promise<unknown>) => async (args: { request: unknown }) => {
        const headers = (args.request as { headers: Record<string, string> }).headers;
        delete headers['amz-sdk-invocation-id'];
        delete headers['amz-sdk-request'];
        return next(args);
      }) as never,
      { relation: 'before', toMiddleware: 'httpSigningMiddleware', name: 'testDropSdkHeaders' },
    );
    try {
      const sdk = await sdkRequest(client, name);
      const want = signedPart(sdk);
      // Half the cases share the SDK client (as the coordinator's deps do), half let the invoker make its own.
      const lean = createSignedHttpInvoker(1, { functionNames: [name], now: () => want.at, ...(name.includes('arn') ? { client } : {}) });
      captured.length = 0;
      try {
        const r = await lean.invoke(0, request, new AbortController().signal);
        expect(r).toMatchObject({ ok: true, shard: 0, replica: 1 });
      } finally {
        lean.close();
      }
      const got = captured[0]!;
      expect(got.url).toBe(sdk.url);
      expect(got.body).toBe(sdk.body);
      expect(signedPart(got).values).toEqual(want.values);
      expect(got.headers.authorization).toBe(sdk.headers.authorization);
    } finally {
      client.destroy();
    }
  });
});

it('resolves the endpoint as the SDK does: the endpoint rules for the region, else the configured override', async () => {
  useCredentials(CREDENTIALS[0]!.env);
  delete process.env.AWS_ENDPOINT_URL_LAMBDA;
  const plain = createLambdaClient({ region: 'ap-southeast-2' });
  const overridden = createLambdaClient({ region: 'ap-southeast-2' });
  const explicitClient = createLambdaClient({ endpoint: 'http://10.1.2.3:9001/prefix' });
  try {
    expect((await lambdaEndpointOf(plain, 'ap-southeast-2')).href).toBe('https://lambda.ap-southeast-2.amazonaws.com/');
    process.env.AWS_ENDPOINT_URL_LAMBDA = url; // read when the endpoint is resolved, as the SDK reads it
    expect((await lambdaEndpointOf(overridden, 'ap-southeast-2')).href).toBe(`${url}/`);
    expect((await lambdaEndpointOf(explicitClient, 'eu-west-1')).href).toBe('http://10.1.2.3:9001/prefix');
  } finally {
    for (const c of [plain, overridden, explicitClient]) c.destroy();
  }
});
