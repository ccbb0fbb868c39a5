// CPU per SigV4 signature of one Invoke request: the hand-written signer the coordinator's query
// invoker uses (shared/adapters/aws/sigv4.ts) against the AWS SDK's own @smithy/signature-v4, which it
// replaced for that path. Same request (a 64-shard fan-out's typical body, a full ARN, a session
// token), interleaved rounds, median per signer. Both produce the same signature
// (test/unit/scatter/sigv4.test.ts); this says what each costs.
import { LambdaClient } from '@aws-sdk/client-lambda';
import { signPost } from '../shared/adapters/aws/sigv4.js';

/**
 * Median microseconds of CPU per signature, per signer; `smithy` is absent when @smithy/signature-v4
 * (a transitive dependency of the SDK, not in package.json) cannot be loaded.
 */
export async function signerCost(opts: { quick: boolean }): Promise<{ lean: number; smithy?: number }> {
  const credentials = {
    accessKeyId: 'ASIAEXAMPLEEXAMPLE',
    secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
    sessionToken: 'IQoJb3JpZ2luX2Vj'.repeat(24),
  };
  const host = 'lambda.eu-west-1.amazonaws.com';
  const body = JSON.stringify({
    type: 'query',
    queryId: 'bench-0123456789',
    shard: 17,
    replica: 0,
    sql: 'SELECT site, count() AS c FROM analytics.sensor_events GROUP BY site',
    deadline: Date.now() + 10_000,
    settings: {},
    external: [],
    attempt: 'primary',
  });
  const path = `/2015-03-31/functions/${encodeURIComponent('arn:aws:lambda:eu-west-1:123456789012:function:ch-scatter-shard-17')}/invocations`;
  const headers = { 'content-type': 'application/octet-stream', 'content-length': String(Buffer.byteLength(body)), 'x-amz-invocation-type': 'RequestResponse' };
  const signers: Record<string, (n: number) => Promise<void>> = {
    lean: async (n) => {
      for (let i = 0; i < n; i++) signPost({ host, path, headers, body, region: 'eu-west-1', service: 'lambda', credentials, now: Date.now() });
    },
  };
  try {
    const { SignatureV4 } = await import('@smithy/signature-v4');
    // With the hash the SDK's own Lambda client signs with (its resolved config.sha256).
    const sha256 = new LambdaClient({ region: 'eu-west-1', credentials }).config.sha256;
    const sdk = new SignatureV4({ service: 'lambda', region: 'eu-west-1', credentials, sha256 });
    signers.smithy = async (n) => {
      for (let i = 0; i < n; i++)
        await sdk.sign({ method: 'POST', protocol: 'https:', hostname: host, path, query: {}, headers: { ...headers, host }, body } as never);
    };
  } catch {
    /* reported without it */
  }
  const per = opts.quick ? 1_000 : 2_500;
  const rounds = opts.quick ? 3 : 7;
  for (const f of Object.values(signers)) await f(per); // warm-up
  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(signers).map((k) => [k, []]));
  for (let r = 0; r < rounds; r++) {
    for (const [k, f] of Object.entries(signers)) {
      const c0 = process.cpuUsage();
      await f(per);
      const d = process.cpuUsage(c0);
      samples[k]!.push((d.user + d.system) / per);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const round = (x: number) => Math.round(x * 10) / 10;
  return { lean: round(median(samples.lean!)), ...(samples.smithy ? { smithy: round(median(samples.smithy)) } : {}) };
}
