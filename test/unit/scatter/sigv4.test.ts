// The hand-written SigV4 signer (shared/adapters/aws/sigv4.ts) against the SDK's own signer,
// @smithy/signature-v4 (what @aws-sdk/client-lambda signs every request with): for any function
// name, body, credential set (with and without a session token), region and instant, both produce
// the same Authorization header for the same request. The signer's per-call cost against the
// SDK's is measured by `npm run bench -- fanout` (JSON key sigv4_sign_us), not timed here.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { SignatureV4 } from '@smithy/signature-v4';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { canonicalUri, signPost, uriEncode } from '../../../shared/adapters/aws/sigv4.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true'; // the pinned SDK's Node 22 notice
// The hash the SDK's own Lambda client signs with (its resolved config.sha256).
const Sha256 = new LambdaClient({ region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }).config.sha256;

interface Case {
  name: string;
  body: string;
  creds: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  region: string;
  now: number;
  host: string;
}

async function sdkAuthorization(c: Case, path: string, headers: Record<string, string>): Promise<string> {
  const signer = new SignatureV4({ service: 'lambda', region: c.region, credentials: c.creds, sha256: Sha256 });
  const signed = await signer.sign(
    { method: 'POST', protocol: 'https:', hostname: c.host, path, query: {}, headers: { ...headers, host: c.host }, body: c.body } as never,
    { signingDate: new Date(c.now) },
  );
  return (signed as unknown as { headers: Record<string, string> }).headers.authorization!;
}

const functionName = fc.oneof(
  fc.stringMatching(/^[a-zA-Z0-9_-]{1,40}$/),
  fc
    .tuple(fc.stringMatching(/^[a-z]{2}-[a-z]+-\d$/), fc.stringMatching(/^\d{12}$/), fc.stringMatching(/^[a-zA-Z0-9_-]{1,20}$/))
    .map(([r, a, n]) => `arn:aws:lambda:${r}:${a}:function:${n}`),
  fc.string({ minLength: 1, maxLength: 30 }), // anything: spaces, !'()*, unicode, '%', '/'
);
const secret = fc.string({ minLength: 1, maxLength: 40 });

describe('signPost', () => {
  it('produces the Authorization header @smithy/signature-v4 produces, for any name, body, credentials, region and instant', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          name: functionName,
          body: fc.oneof(fc.json(), fc.string({ maxLength: 300 })),
          creds: fc.record({
            accessKeyId: fc.stringMatching(/^[A-Z0-9]{16,20}$/),
            secretAccessKey: secret,
            sessionToken: fc.option(fc.base64String({ minLength: 4, maxLength: 200 }), { nil: undefined }),
          }),
          region: fc.constantFrom('us-east-1', 'eu-west-1', 'ap-southeast-2'),
          now: fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2035, 0, 1) }),
          host: fc.constantFrom('lambda.eu-west-1.amazonaws.com', '127.0.0.1:19800', 'localhost:8080'),
        }),
        fc.constantFrom('RequestResponse', '  Request   Response '),
        async (c, invocationType) => {
          const path = `/2015-03-31/functions/${uriEncode(c.name)}/invocations`;
          const headers = {
            'content-type': 'application/octet-stream',
            'content-length': String(Buffer.byteLength(c.body)),
            'x-amz-invocation-type': invocationType,
          };
          const ours = signPost({ host: c.host, path, headers, body: c.body, region: c.region, service: 'lambda', credentials: c.creds, now: c.now });
          expect(ours.authorization).toBe(
            await sdkAuthorization(c, path, {
              ...headers,
              'x-amz-content-sha256': ours['x-amz-content-sha256']!,
              ...(c.creds.sessionToken ? { 'x-amz-security-token': c.creds.sessionToken } : {}),
            }),
          );
          expect(ours['x-amz-security-token']).toBe(c.creds.sessionToken);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('encodes each path segment again for the canonical URI (%3A -> %253A), keeping the slashes', () => {
    const path = `/2015-03-31/functions/${uriEncode('arn:aws:lambda:eu-west-1:123456789012:function:f')}/invocations`;
    expect(path).toContain('arn%3Aaws%3Alambda');
    expect(canonicalUri(path)).toBe('/2015-03-31/functions/arn%253Aaws%253Alambda%253Aeu-west-1%253A123456789012%253Afunction%253Af/invocations');
    expect(uriEncode("a!b'c(d)e*f g")).toBe('a%21b%27c%28d%29e%2Af%20g');
  });

  it('signs with the key of the credentials and day at hand (the key cache never mixes them up)', () => {
    const base = { host: 'h', path: '/p', headers: {}, body: '{}', region: 'eu-west-1', service: 'lambda', now: Date.UTC(2026, 10, 30, 12) };
    const a = signPost({ ...base, credentials: { accessKeyId: 'A', secretAccessKey: 's1' } }).authorization;
    const b = signPost({ ...base, credentials: { accessKeyId: 'A', secretAccessKey: 's2' } }).authorization;
    const nextDay = signPost({ ...base, now: base.now + 86_400_000, credentials: { accessKeyId: 'A', secretAccessKey: 's1' } });
    const sameSecond = signPost({ ...base, now: base.now + 999, credentials: { accessKeyId: 'A', secretAccessKey: 's1' } }).authorization;
    expect(a).not.toBe(b);
    expect(nextDay.authorization).toContain('/20261201/eu-west-1/lambda/aws4_request');
    expect(nextDay['x-amz-date']).toBe('20261201T120000Z');
    expect(sameSecond).toBe(a);
    expect(signPost({ ...base, credentials: { accessKeyId: 'A', secretAccessKey: 's1' } }).authorization).toBe(a);
  });
});
