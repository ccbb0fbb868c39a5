// What X-Ray sees of the lean query invoker in AWS. The coordinator's Powertools Tracer (createTools)
// runs with its default captureHTTPsRequests, which patches node:http and node:https for the whole
// process once tracing is on (in Lambda). The signed invoker posts through those modules, so each
// shard invoke becomes a generic HTTP subsegment (named after the endpoint's host, namespace
// "remote") and carries an X-Amzn-Trace-Id header, which links the shard function's trace to the
// coordinator's. What it does not get is the SDK's AWS subsegment (service, operation, function
// name, request id): captureAWSv3Client wraps SDK clients only. docs/deploy.md and
// docs/operations.md say so; these tests fail if either half stops being true.
// The header is added after signing and stays unsigned, as the SDK leaves it too (x-amzn-trace-id is
// one of @smithy/signature-v4's always-unsignable headers), so the signature is unaffected.
// The invoker picks its request function when it first resolves its endpoint, so an invoker that
// made its first call before the Tracer existed stays untraced: the control case below.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { createSignedHttpInvoker } from '../../../shared/adapters/aws/signed-http-invoker.js';
import { createTools } from '../../../functions/coordinator/handler.js';
import type { ShardRequest } from '../../../shared/core/protocol/shard-wire.js';

interface XraySegment {
  trace_id: string;
  subsegments?: { name: string; namespace?: string; id: string }[];
}
interface XraySdk {
  Segment: new (name: string) => XraySegment;
  getNamespace(): { run(fn: () => void): void };
  setSegment(segment: XraySegment): void;
  setContextMissingStrategy(strategy: () => void): void;
}

let server: Server;
let endpoint = '';
const traceHeaders: (string | undefined)[] = [];
const savedExecutionEnv = process.env.AWS_EXECUTION_ENV;

const request = (): ShardRequest => ({
  type: 'query',
  queryId: 'xray-probe',
  shard: 0,
  replica: 0,
  sql: 'SELECT 1',
  deadline: Date.now() + 5_000,
  settings: {},
  external: [],
  attempt: 'primary',
});

/** The X-Ray SDK instance Powertools' Tracer patches with (resolved from the tracer package). */
function xraySdk(): XraySdk {
  const fromTracer = createRequire(createRequire(import.meta.url).resolve('@aws-lambda-powertools/tracer'));
  return fromTracer('aws-xray-sdk-core') as XraySdk;
}

/** Run fn inside an X-Ray segment, as the Lambda handler's own segment would be. */
function inSegment<T>(sdk: XraySdk, fn: () => Promise<T>): Promise<{ segment: XraySegment; result: T }> {
  return new Promise((resolve, reject) => {
    sdk.getNamespace().run(() => {
      const segment = new sdk.Segment('coordinator');
      sdk.setSegment(segment);
      fn().then((result) => resolve({ segment, result }), reject);
    });
  });
}

beforeAll(async () => {
  server = createServer((req, res) => {
    traceHeaders.push(req.headers['x-amzn-trace-id'] as string | undefined);
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ok: true, shard: 0, replica: 0, meta: [], rows: [], statistics: { elapsedMs: 0, rowsRead: 0, bytesRead: 0 } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  if (savedExecutionEnv === undefined) delete process.env.AWS_EXECUTION_ENV;
  else process.env.AWS_EXECUTION_ENV = savedExecutionEnv;
  await new Promise<void>((r) => server.close(() => r()));
});

describe('the lean invoker under the coordinator Tracer', () => {
  it('sends no trace header while no Tracer has patched node:http (the control)', async () => {
    const invoker = createSignedHttpInvoker(1, { endpoint, functionNames: ['shard-0'] });
    try {
      const answer = await invoker.invoke(0, request(), AbortSignal.timeout(5_000));
      expect(answer.ok).toBe(true);
      expect(traceHeaders).toEqual([undefined]);
    } finally {
      invoker.close();
    }
  });

  it('with tracing on, each invoke is an HTTP subsegment and carries the trace header to the shard function', async () => {
    process.env.AWS_EXECUTION_ENV = 'AWS_Lambda_nodejs22.x'; // what Lambda sets: Powertools turns tracing on
    const { tracer } = createTools({ logLevel: 'SILENT' });
    expect(tracer.isTracingEnabled()).toBe(true);
    const sdk = xraySdk();
    sdk.setContextMissingStrategy(() => undefined);
    const invoker = createSignedHttpInvoker(1, { endpoint, functionNames: ['shard-0'] });
    try {
      const { segment, result } = await inSegment(sdk, () => invoker.invoke(0, request(), AbortSignal.timeout(5_000)));
      expect(result.ok).toBe(true);
      const header = traceHeaders[1];
      expect(header, 'the shard invoke carries X-Amzn-Trace-Id').toMatch(/^Root=1-[0-9a-f]{8}-[0-9a-f]{24};Parent=[0-9a-f]{16};Sampled=1$/);
      expect(header?.split(';')[0]).toBe(`Root=${segment.trace_id}`);
      const remote = (segment.subsegments ?? []).filter((s) => s.namespace === 'remote');
      expect(remote.map((s) => s.name)).toEqual(['127.0.0.1']);
      expect(header?.split(';')[1]).toBe(`Parent=${remote[0]?.id}`);
    } finally {
      invoker.close();
    }
  });
});
