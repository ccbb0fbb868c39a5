// A local Secrets Manager endpoint for the simulated functions (AWS_ENDPOINT_URL_SECRETS_MANAGER):
// GetSecretValue over the AWS JSON 1.1 protocol (POST /, X-Amz-Target: secretsmanager.GetSecretValue),
// which is all the shard function's credentials lookup uses. A SecretId may be the secret's name, its
// partial ARN (as a stack that imports a secret by name passes it) or its complete ARN. The values
// come from the caller: a secret the stack generates has no value before deployment, so the
// simulation must be told what the replicas accept. Anything else is UnknownOperationException.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { findSecret, type SimSecret } from './assembly.js';

/** The SecretString for a secret, or undefined for "not found". May be slow (a test of a stalled endpoint). */
export type SecretValueOf = (secret: SimSecret) => string | undefined | Promise<string | undefined>;

export interface SecretsServer {
  url: string;
  /** GetSecretValue calls answered, by secret name. */
  reads(name: string): number;
  close(): Promise<void>;
}

export async function startSecretsServer(secrets: SimSecret[], secretValueOf: SecretValueOf): Promise<SecretsServer> {
  const reads = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const send = (status: number, body: unknown) => {
        const text = JSON.stringify(body);
        res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1', 'content-length': Buffer.byteLength(text) });
        res.end(text);
      };
      const fail = (type: string, message: string) => send(400, { __type: type, message });
      const target = String(req.headers['x-amz-target'] ?? '');
      if (req.method !== 'POST' || target !== 'secretsmanager.GetSecretValue') {
        return fail('UnknownOperationException', `the simulation serves secretsmanager.GetSecretValue only (got ${target || `${req.method} ${req.url}`})`);
      }
      let secretId: unknown;
      try {
        secretId = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { SecretId?: unknown }).SecretId;
      } catch {
        return fail('InvalidRequestException', 'the request body is not JSON');
      }
      const secret = typeof secretId === 'string' ? findSecret(secrets, secretId) : undefined;
      if (!secret) return fail('ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
      Promise.resolve(secretValueOf(secret)).then(
        (value) => {
          if (value === undefined)
            return fail('ResourceNotFoundException', "Secrets Manager can't find the specified secret value for staging label: AWSCURRENT");
          reads.set(secret.name, (reads.get(secret.name) ?? 0) + 1);
          send(200, {
            ARN: secret.arn,
            Name: secret.name,
            SecretString: value,
            VersionId: '00000000-0000-0000-0000-000000000001',
            VersionStages: ['AWSCURRENT'],
            CreatedDate: Math.floor(Date.now() / 1000),
          });
        },
        (e: unknown) => send(500, { __type: 'InternalServiceError', message: (e as Error).message }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    reads: (name) => reads.get(name) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
