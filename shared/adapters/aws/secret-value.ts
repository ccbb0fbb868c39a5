// One Secrets Manager GetSecretValue, for a value read once per execution environment (the
// coordinator's cursor key). Where the environment alone decides the endpoint and the credentials
// (Lambda; env-resolution.ts) it is one SigV4-signed POST over node:http(s), AWS JSON 1.1 protocol,
// as the SDK sends it; the SDK's Secrets Manager client is neither loaded nor compiled, which is
// most of what that read would add to a cold start. Otherwise the SDK's SecretsManagerClient does it.
//
// Like the SDK's default client it tries three times on what the SDK treats as transient (a network
// error, a 5xx, a throttling answer), with a short backoff; any other answer is final.
import http from 'node:http';
import https from 'node:https';
import { credentialsFromEnv, endpointFromEnv, SECRETS_MANAGER } from './env-resolution.js';
import { signPost, type SigV4Credentials } from './sigv4.js';

const ATTEMPTS = 3;
const BACKOFF_MS = [100, 400];
const THROTTLING = new Set(['ThrottlingException', 'TooManyRequestsException', 'RequestLimitExceeded', 'Throttling']);

/** A failed GetSecretValue: the AWS error name (or the socket error's code) and its message. */
export class SecretReadError extends Error {
  readonly errorName: string;
  readonly transient: boolean;
  constructor(errorName: string, message: string, transient: boolean) {
    super(`GetSecretValue failed: ${errorName}: ${message}`);
    this.name = 'SecretReadError';
    this.errorName = errorName;
    this.transient = transient;
  }
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

function post(url: URL, headers: Record<string, string>, body: string): Promise<Answer> {
  const request = url.protocol === 'https:' ? https.request : http.request;
  return new Promise((resolve, reject) => {
    const req = request({ protocol: url.protocol, hostname: url.hostname, port: url.port, method: 'POST', path: url.pathname, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The error name of a non-2xx AWS JSON answer: x-amzn-errortype, else the body's __type/code, without its namespace. */
function errorName(a: Answer, body: { __type?: unknown; code?: unknown } | undefined): string {
  const raw = a.headers['x-amzn-errortype'] ?? body?.__type ?? body?.code;
  if (typeof raw !== 'string' || raw === '') return `HTTP ${a.status}`;
  const name = raw.split(':')[0]!;
  return name.includes('#') ? name.split('#')[1]! : name;
}

/** One signed GetSecretValue to `endpoint`: the SecretString, or a SecretReadError. */
export async function getSecretValueSigned(
  secretId: string,
  opts: { endpoint: URL; region: string; credentials: SigV4Credentials; now?: () => number },
): Promise<string | undefined> {
  const body = JSON.stringify({ SecretId: secretId });
  const path = opts.endpoint.pathname || '/';
  const headers = signPost({
    host: opts.endpoint.host,
    path,
    headers: {
      'content-type': 'application/x-amz-json-1.1',
      'content-length': String(Buffer.byteLength(body)),
      'x-amz-target': 'secretsmanager.GetSecretValue',
    },
    body,
    region: opts.region,
    service: 'secretsmanager',
    credentials: opts.credentials,
    now: (opts.now ?? Date.now)(),
  });
  let a: Answer;
  try {
    a = await post(opts.endpoint, headers, body);
  } catch (e) {
    const err = e as Error & { code?: string };
    throw new SecretReadError(err.code ?? err.name, err.message, true);
  }
  let parsed: { SecretString?: unknown; __type?: unknown; code?: unknown; message?: unknown; Message?: unknown } | undefined;
  try {
    parsed = JSON.parse(a.text) as typeof parsed;
  } catch {
    /* not JSON: a proxy's page */
  }
  if (a.status < 200 || a.status >= 300) {
    const name = errorName(a, parsed);
    const message = parsed?.message ?? parsed?.Message;
    throw new SecretReadError(name, typeof message === 'string' ? message : a.text.slice(0, 200), a.status >= 500 || a.status === 429 || THROTTLING.has(name));
  }
  if (!parsed) throw new SecretReadError('SerializationException', `the answer is not JSON: ${JSON.stringify(a.text.slice(0, 80))}`, false);
  return typeof parsed.SecretString === 'string' ? parsed.SecretString : undefined;
}

/**
 * The SecretString of `secretId` (undefined for a binary secret), read as the SDK would: signed by
 * hand where the environment decides endpoint and credentials, else through the SDK's client.
 */
export async function readSecretString(secretId: string, env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  // Without AWS_REGION the SDK reads the region from a config file or fails: its call, not ours.
  const region = env.AWS_REGION;
  const endpoint = region ? endpointFromEnv(SECRETS_MANAGER, region, env) : undefined;
  const credentials = endpoint && credentialsFromEnv(env);
  if (!region || !endpoint || !credentials) {
    const { GetSecretValueCommand, SecretsManagerClient } = await import('@aws-sdk/client-secrets-manager');
    const client = new SecretsManagerClient({});
    try {
      return (await client.send(new GetSecretValueCommand({ SecretId: secretId }))).SecretString;
    } finally {
      client.destroy();
    }
  }
  for (let attempt = 1; ; attempt++) {
    try {
      return await getSecretValueSigned(secretId, { endpoint, region, credentials });
    } catch (e) {
      if (!(e instanceof SecretReadError) || !e.transient || attempt >= ATTEMPTS) throw e;
      await new Promise((r) => setTimeout(r, BACKOFF_MS[attempt - 1]));
    }
  }
}
