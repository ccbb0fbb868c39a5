// The streaming door checking bearer tokens itself (streaming.auth 'jwt'), as API Gateway's JWT
// authorizer does: an issuer served here (its discovery document and JWKS, RSA keys made in the
// test), the door in the local stack over two chdb shards. A good token reads (streamed rows and a
// whole answer); a token with a bad signature, past its exp, before its nbf, from another issuer,
// for another audience, with no kid, signed with HMAC, or no token at all, is ClickHouse's 516; an
// issuer that cannot be reached refuses too, and is read again on the next request.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTopology } from '../../../shared/core/config/load.js';
import { startLocalStack, type LocalStack } from '../../../local/stack.js';
import { createJwtCheck } from '../../../functions/coordinator/jwt-check.js';

const AUDIENCE = 'ch-scatter-door';
let dir: string;
let stack: LocalStack;
let issuerServer: http.Server;
let issuer: string;
let key: CryptoKey;
let strangerKey: CryptoKey;
let jwksReads = 0;
let discoveryDown = false;

beforeAll(async () => {
  const pair = await generateKeyPair('RS256', { extractable: true });
  key = pair.privateKey;
  strangerKey = (await generateKeyPair('RS256')).privateKey;
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  issuerServer = http.createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url === '/.well-known/openid-configuration') {
      if (discoveryDown) {
        res.statusCode = 503;
        return res.end('{}');
      }
      return res.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/keys` }));
    }
    if (req.url === '/keys') {
      jwksReads++;
      return res.end(JSON.stringify({ keys: [jwk] }));
    }
    res.statusCode = 404;
    res.end('{}');
  });
  await new Promise<void>((r) => issuerServer.listen(0, '127.0.0.1', r));
  issuer = `http://127.0.0.1:${(issuerServer.address() as AddressInfo).port}`;

  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stream-door-jwt-'));
  const topo = parseTopology({
    cluster: 'c',
    shards: [0, 1].map((i) => ({ replicas: [{ embedded: path.join(dir, `shard-${i}`) }] })),
    tables: { 'default.t_dist': { local: 'default.t', shardingKey: { column: 'id', type: 'UInt64', function: 'identity' } } },
  });
  stack = await startLocalStack({ topo, logLevel: 'SILENT', streamPort: 0, streamJwt: { issuer, audience: ['other', AUDIENCE] } });
  const exec = await fetch(`${stack.url}/admin/exec`, {
    method: 'POST',
    body: JSON.stringify({ sql: 'CREATE TABLE default.t (id UInt64) ENGINE = MergeTree ORDER BY id' }),
  });
  expect(exec.status, await exec.text()).toBe(200);
  const ins = await fetch(`${stack.url}/admin/insert?table=default.t_dist`, {
    method: 'POST',
    body: Array.from({ length: 100 }, (_, i) => JSON.stringify({ id: i })).join('\n'),
  });
  expect(ins.status, await ins.text()).toBe(200);
}, 180_000);
afterAll(async () => {
  await stack?.stop();
  await new Promise((r) => issuerServer?.close(r));
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const nowS = () => Math.floor(Date.now() / 1000);

function token(claims: JWTPayload, o: { signWith?: CryptoKey; kid?: string | null; iss?: string } = {}): Promise<string> {
  const header = { alg: 'RS256', ...(o.kid === null ? {} : { kid: o.kid ?? 'k1' }) };
  return new SignJWT({ sub: 'alice', aud: AUDIENCE, exp: nowS() + 300, iat: nowS() - 5, ...claims })
    .setProtectedHeader(header)
    .setIssuer(o.iss ?? issuer)
    .sign(o.signWith ?? key);
}

async function door(sql: string, authorization?: string): Promise<{ status: number; body: string; code: string | null }> {
  const r = await fetch(`${stack.streamUrl}/`, { method: 'POST', body: sql, headers: authorization ? { authorization } : {} });
  return { status: r.status, body: await r.text(), code: r.headers.get('x-clickhouse-exception-code') };
}

describe('the streaming door with auth jwt', () => {
  it('a good token reads: streamed rows and a whole answer', async () => {
    const bearer = `Bearer ${await token({})}`;
    const rows = await door('SELECT id FROM default.t_dist FORMAT TSV', bearer);
    expect(rows.status, rows.body).toBe(200);
    expect(
      rows.body
        .trim()
        .split('\n')
        .map(Number)
        .sort((a, b) => a - b),
    ).toEqual(Array.from({ length: 100 }, (_, i) => i));
    const whole = await door('SELECT count() FROM default.t_dist FORMAT TSV', bearer);
    expect([whole.status, whole.body]).toEqual([200, '100\n']);
    // An aud list naming one configured audience, and client_id where there is no aud, as the authorizer reads them.
    expect((await door('SELECT 1 FORMAT TSV', `Bearer ${await token({ aud: ['x', AUDIENCE] })}`)).status).toBe(200);
    expect((await door('SELECT 1 FORMAT TSV', `Bearer ${await token({ aud: undefined, client_id: AUDIENCE })}`)).status).toBe(200);
    // The keys were read once and kept.
    expect(jwksReads).toBe(1);
  });

  it('every bad token, and none, is 516 with the same words', async () => {
    const bad: Record<string, string | undefined> = {
      'no token': undefined,
      'a password instead': `Basic ${Buffer.from('alice:secret').toString('base64')}`,
      'not a JWT': 'Bearer abc.def.ghi',
      'signed by another key': `Bearer ${await token({}, { signWith: strangerKey })}`,
      expired: `Bearer ${await token({ exp: nowS() - 1 })}`,
      'no exp': `Bearer ${await token({ exp: undefined })}`,
      'not yet valid': `Bearer ${await token({ nbf: nowS() + 120 })}`,
      'issued in the future': `Bearer ${await token({ iat: nowS() + 120 })}`,
      'another issuer': `Bearer ${await token({}, { iss: 'https://elsewhere.example' })}`,
      'another audience': `Bearer ${await token({ aud: 'someone-else' })}`,
      'an aud that does not match, though client_id would': `Bearer ${await token({ aud: 'someone-else', client_id: AUDIENCE })}`,
      'no kid': `Bearer ${await token({}, { kid: null })}`,
      'an unknown kid': `Bearer ${await token({}, { kid: 'k2' })}`,
      'HMAC-signed': `Bearer ${await new SignJWT({ sub: 'alice', aud: AUDIENCE, exp: nowS() + 300 })
        .setProtectedHeader({ alg: 'HS256', kid: 'k1' })
        .setIssuer(issuer)
        .sign(new TextEncoder().encode('a shared secret of thirty-two bytes!'))}`,
    };
    for (const [why, authorization] of Object.entries(bad)) {
      for (const sql of ['SELECT id FROM default.t_dist FORMAT TSV', 'SELECT 1 FORMAT TSV']) {
        const r = await door(sql, authorization);
        expect([why, r.status, r.code], r.body).toEqual([why, 401, '516']);
        expect(r.body).toMatch(/^Code: 516\. DB::Exception: (default|alice): Authentication failed: password is incorrect, or there is no user with such name/);
      }
    }
  });

  it('an issuer unreachable at first: 516, and its keys read on a later request once it answers', async () => {
    const check = createJwtCheck({ issuer, audience: [AUDIENCE] });
    const good = { bearer: await token({}) };
    discoveryDown = true;
    try {
      await expect(check(good)).rejects.toMatchObject({ chCode: 516 });
    } finally {
      discoveryDown = false;
    }
    expect(await check(good)).toBe('alice');
  });
});
