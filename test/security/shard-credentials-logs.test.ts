// The deployed shard handler (functions/shard/handler.ts: middy + Powertools) with its ClickHouse
// credentials from Secrets Manager (aws-sdk-client-mock; the real Powertools getSecret), talking
// to a stand-in ClickHouse HTTP endpoint on loopback that records how it was authenticated.
// Proves: the secret's username and password are what reach ClickHouse; the secret is fetched
// once per warm container; and neither the password nor any row value appears in any log line,
// even at DEBUG and even when ClickHouse's error message echoes a row value.
// (test/server/http-shard-handler.test.ts runs the same handler against 18.16: a wrong
// password from the secret is refused there.)
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { Context } from 'aws-lambda';
import type { ShardFailure, ShardRequest, ShardSuccess } from '../../shared/core/protocol/shard-wire.js';
import { fakeLambdaContext } from '../support/lambda-context.js';

const USER = 'h9_reader';
const PASSWORD = 'pw-H9-7f3c-never-log-me';
const ROW_MARKER = 'ROWDATA-H9-5b1e'; // only ever in result rows / ClickHouse's error text
const sm = mockClient(SecretsManagerClient);
const logged: string[] = [];
const seenAuth: Array<{ user?: string; password?: string }> = [];
let server: http.Server;
let handler: (event: unknown, context: Context) => Promise<unknown>;

function authOf(req: http.IncomingMessage): { user?: string; password?: string } {
  const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '');
  if (basic) {
    const [user, ...rest] = Buffer.from(basic[1]!, 'base64').toString('utf8').split(':');
    return { user, password: rest.join(':') };
  }
  return { user: req.headers['x-clickhouse-user'] as string | undefined, password: req.headers['x-clickhouse-key'] as string | undefined };
}

/** Enough of ClickHouse's HTTP interface for one query: FORMAT JSON answers, Code-prefixed errors. */
function fakeClickHouse(req: http.IncomingMessage, res: http.ServerResponse, body: string): void {
  const auth = authOf(req);
  seenAuth.push(auth);
  if (auth.user !== USER || auth.password !== PASSWORD) {
    res.writeHead(516, { 'X-ClickHouse-Exception-Code': '516' }).end(`Code: 516, e.displayText() = DB::Exception: ${auth.user}: Authentication failed`);
    return;
  }
  if (/KILL QUERY/.test(body) || req.url?.startsWith('/ping')) {
    res.writeHead(200).end('Ok.\n');
    return;
  }
  if (/toUInt64/.test(body)) {
    // ClickHouse echoes the offending value, which is row data
    res.writeHead(500, { 'X-ClickHouse-Exception-Code': '6' }).end(`Code: 6, e.displayText() = DB::Exception: Cannot parse string '${ROW_MARKER}' as UInt64`);
    return;
  }
  const json = {
    meta: [
      { name: 'm', type: 'String' },
      { name: 'c', type: 'UInt64' },
    ],
    data: [{ m: ROW_MARKER, c: '7' }],
    rows: 1,
    statistics: { elapsed: 0.001, rows_read: 7, bytes_read: 70 },
  };
  res.writeHead(200, { 'Content-Type': 'application/json; charset=UTF-8', 'X-ClickHouse-Format': 'JSON' }).end(JSON.stringify(json));
}

const context = (remainingMs = 60_000): Context => fakeLambdaContext({ requestId: 'req-h9', remainingMs });

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => fakeClickHouse(req, res, decodeURIComponent(req.url ?? '') + '\n' + body));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  process.env.AWS_REGION = 'eu-west-1';
  process.env.AWS_ACCESS_KEY_ID = 'test';
  process.env.AWS_SECRET_ACCESS_KEY = 'test';
  process.env.POWERTOOLS_LOG_LEVEL = 'DEBUG'; // the most a deployment could log
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
  // Replica 1's secret holds the bare password, not JSON: an operator's likely mistake.
  process.env.CH_SCATTER_SHARD = JSON.stringify({
    shard: 0,
    replicas: [
      { url, secretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:ch-h9' },
      { url, secretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:ch-h9-bare' },
    ],
  });
  sm.on(GetSecretValueCommand).resolves({ SecretString: JSON.stringify({ username: USER, password: PASSWORD }) });
  sm.on(GetSecretValueCommand, { SecretId: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:ch-h9-bare' }).resolves({ SecretString: PASSWORD });
  for (const s of [process.stdout, process.stderr]) {
    const orig = s.write.bind(s);
    vi.spyOn(s, 'write').mockImplementation(((chunk: unknown, ...rest: unknown[]) => {
      logged.push(String(chunk));
      return (orig as (...a: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof s.write);
  }
  // console.* too (a stray console.log of an error object would not go through the Logger)
  for (const m of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    vi.spyOn(console, m).mockImplementation(
      (...a: unknown[]) => void logged.push(a.map((x) => (typeof x === 'string' ? x : JSON.stringify(x, Object.getOwnPropertyNames(x ?? {})))).join(' ')),
    );
  }
  ({ handler } = (await import('../../functions/shard/handler.js')) as unknown as { handler: typeof handler });
});

afterAll(async () => {
  vi.restoreAllMocks();
  sm.restore();
  await new Promise<void>((r) => server.close(() => r()));
});

const req = (over: Partial<ShardRequest> = {}): ShardRequest => ({
  type: 'query',
  queryId: 'h9-cred-1',
  shard: 0,
  replica: 0,
  sql: 'SELECT m, count() AS c FROM db.t GROUP BY m',
  deadline: Date.now() + 5000,
  settings: {},
  external: [],
  attempt: 'primary',
  ...over,
});

describe('shard handler: credentials from Secrets Manager, never logged; no row data in logs', () => {
  it("the secret's username and password are what ClickHouse receives", async () => {
    const r = (await handler(req(), context())) as ShardSuccess;
    expect(r.ok, JSON.stringify(r)).toBe(true);
    expect(r.rows).toEqual([{ m: ROW_MARKER, c: '7' }]);
    expect(seenAuth.length).toBeGreaterThan(0);
    expect(seenAuth.every((a) => a.user === USER && a.password === PASSWORD)).toBe(true);
  });

  it('fetches the secret once per warm container', async () => {
    await handler(req({ queryId: 'h9-cred-2' }), context());
    await handler(req({ queryId: 'h9-cred-3' }), context());
    expect(sm.commandCalls(GetSecretValueCommand).length).toBe(1);
  });

  it('a ClickHouse error that echoes a row value reaches the coordinator, not the logs', async () => {
    const r = (await handler(req({ queryId: 'h9-cred-err', sql: 'SELECT toUInt64(m) AS n FROM db.t' }), context())) as ShardFailure;
    expect(r.ok).toBe(false);
    expect(r.error.chCode).toBe(6);
    expect(r.error.message).toContain(ROW_MARKER); // the caller needs the message
  });

  it('a secret that is not JSON is answered unavailable without quoting any of it', async () => {
    const r = (await handler(req({ queryId: 'h9-cred-bare', replica: 1 }), context())) as ShardFailure;
    expect(r.ok).toBe(false);
    expect(r.error.kind).toBe('unavailable');
    expect(r.error.message).toMatch(/must be JSON \{"username"/);
    expect(r.error.message).not.toContain(PASSWORD.slice(0, 6));
  });

  it('no log line carries the password or row data (DEBUG level, success and failure paths)', () => {
    const all = logged.join('\n');
    expect(all).toMatch(/h9-cred-1/); // the handler did log, with the query id
    expect(all).toMatch(/h9-cred-err/);
    expect(all).not.toContain(PASSWORD);
    expect(all).not.toContain(PASSWORD.slice(0, 6)); // a JSON parse error quotes the start of its input
    expect(all).toMatch(/h9-cred-bare/);
    expect(all).not.toContain(Buffer.from(`${USER}:${PASSWORD}`).toString('base64'));
    expect(all).not.toContain(ROW_MARKER);
  });
});
