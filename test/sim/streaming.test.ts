// Response streaming in `ch-scatter sim` on a hand-written cloud assembly: the sim's runtime defines
// the global `awslambda` before the bundle loads (as Lambda's Node.js runtime does), runs handlers
// marked by awslambda.streamifyResponse with a response stream, and its Invoke endpoint speaks
// InvokeWithResponseStream: read with the real SDK and with both invokers' streaming invoke.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvokeWithResponseStreamCommand } from '@aws-sdk/client-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSim, type Sim } from '../../local/sim/index.js';
import { createLambdaClient, createLambdaInvoker } from '../../shared/adapters/aws/lambda-invoker.js';
import { createSignedHttpInvoker } from '../../shared/adapters/aws/signed-http-invoker.js';
import { InvokeError, type ShardStreamAnswer } from '../../shared/core/scatter/invoker.js';
import type { ShardRequest } from '../../shared/core/protocol/shard-wire.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const dir = mkdtempSync(join(tmpdir(), 'ch-scatter-sim-stream-'));
let sim: Sim;

// The bundle uses the global as a Lambda bundle does: no import of it.
const HANDLERS = `
const write = (s, b) => new Promise((r) => (s.write(b) ? r() : s.once('drain', r)));
export const stream = awslambda.streamifyResponse(async (event, responseStream) => {
  for (let i = 0; i < event.n; i++) await write(responseStream, Buffer.alloc(event.size, i % 251));
  if (event.failAfter) throw new TypeError('failed after the rows');
  if (event.hangAfter) await new Promise((r) => setTimeout(r, 60_000));
  responseStream.end();
});
export const buffered = async (event) => ({ buffered: event.n });
`;

function fn(handler: string) {
  return {
    Type: 'AWS::Lambda::Function',
    Properties: { Code: { S3Bucket: 'b', S3Key: 'abc.zip' }, Handler: handler, Runtime: 'nodejs22.x', Timeout: 1, MemorySize: 256 },
  };
}

beforeAll(async () => {
  const asset = join(dir, 'asset.abc');
  mkdirSync(asset, { recursive: true });
  writeFileSync(join(asset, 'index.mjs'), HANDLERS);
  writeFileSync(join(dir, 'App.template.json'), JSON.stringify({ Resources: { Stream: fn('index.stream'), Buffered: fn('index.buffered') } }));
  writeFileSync(
    join(dir, 'App.assets.json'),
    JSON.stringify({ files: { abc: { source: { path: 'asset.abc', packaging: 'zip' }, destinations: { d: { objectKey: 'abc.zip' } } } } }),
  );
  writeFileSync(
    join(dir, 'manifest.json'),
    JSON.stringify({
      artifacts: {
        'App.assets': { type: 'cdk:asset-manifest', properties: { file: 'App.assets.json' } },
        App: {
          type: 'aws:cloudformation:stack',
          environment: 'aws://unknown-account/eu-west-1',
          properties: { templateFile: 'App.template.json' },
          dependencies: ['App.assets'],
        },
      },
    }),
  );
  sim = await startSim({ cdkOut: dir, log: () => undefined });
}, 60_000);

afterAll(async () => {
  await sim?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const pattern = (n: number, size: number) => Buffer.concat(Array.from({ length: n }, (_, i) => Buffer.alloc(size, i % 251)));

describe('streaming functions in the sim', () => {
  it('the real SDK reads the chunks a streamified handler writes, and a buffered handler as one chunk', async () => {
    const client = createLambdaClient({ endpoint: sim.invokeUrl });
    try {
      const read = async (name: string, payload: unknown) => {
        const out = await client.send(new InvokeWithResponseStreamCommand({ FunctionName: name, Payload: Buffer.from(JSON.stringify(payload)) }));
        const chunks: Buffer[] = [];
        let complete: unknown;
        for await (const e of out.EventStream!) {
          if (e.PayloadChunk) chunks.push(Buffer.from(e.PayloadChunk.Payload!));
          if (e.InvokeComplete) complete = e.InvokeComplete;
        }
        return { type: out.ResponseStreamContentType, bytes: Buffer.concat(chunks), chunks: chunks.length, complete };
      };
      const s = await read('App-Stream', { n: 20, size: 2000 });
      expect([s.type, s.complete]).toEqual(['application/octet-stream', {}]);
      expect(s.bytes.equals(pattern(20, 2000))).toBe(true);
      const b = await read('App-Buffered', { n: 3 });
      expect([b.type, b.bytes.toString(), b.complete]).toEqual(['application/json', '{"buffered":3}', {}]);
      const f = await read('App-Stream', { n: 2, size: 10, failAfter: true });
      expect([f.bytes.equals(pattern(2, 10)), f.complete]).toEqual([true, { ErrorCode: 'TypeError', ErrorDetails: 'failed after the rows' }]);
    } finally {
      client.destroy();
    }
  });

  const req = (extra: Record<string, unknown>): ShardRequest =>
    ({
      type: 'query',
      queryId: 'q',
      shard: 0,
      replica: 0,
      sql: 'SELECT 1',
      deadline: Date.now() + 10_000,
      settings: {},
      external: [],
      attempt: 'primary',
      format: 'TSV',
      ...extra,
    }) as ShardRequest;
  const bytesOf = async (a: ShardStreamAnswer) => {
    if (!a.ok) throw new Error(a.error.message);
    const parts: Buffer[] = [];
    for await (const c of a.chunks) parts.push(Buffer.from(c));
    return Buffer.concat(parts);
  };

  it.each([
    ['http (signed node:http)', () => createSignedHttpInvoker(1, { endpoint: sim.invokeUrl, functionNames: ['App-Stream'] })],
    ['sdk (@aws-sdk/client-lambda)', () => createLambdaInvoker(1, { endpoint: sim.invokeUrl, functionNames: ['App-Stream'] })],
  ])('%s: streams the chunks; the Timeout mid-stream fails the hop as Sandbox.Timedout', async (_kind, make) => {
    const inv = make();
    try {
      expect((await bytesOf(await inv.invokeStream!(0, req({ n: 30, size: 1000 }), AbortSignal.timeout(5_000)))).equals(pattern(30, 1000))).toBe(true);
      const e = await bytesOf(await inv.invokeStream!(0, req({ n: 1, size: 10, hangAfter: true }), AbortSignal.timeout(5_000))).then(
        () => undefined,
        (x: unknown) => x,
      );
      expect(e).toBeInstanceOf(InvokeError);
      expect([(e as InvokeError).kind, (e as InvokeError).errorType]).toEqual(['unhandled', 'Sandbox.Timedout']);
    } finally {
      inv.close();
    }
  });
});
