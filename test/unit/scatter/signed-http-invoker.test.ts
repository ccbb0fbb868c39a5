// The lean invoker's answers that the local Invoke endpoint never gives (a raw node:http server
// here): odd statuses, error names only in the body, bodies that are not JSON, a connection reset,
// nothing listening. Each case goes through the SDK invoker too, and both must classify it alike
// (kind and AWS error name); the one documented difference is an error answer whose body is not
// JSON, where the SDK reports its own parse failure (SyntaxError) and the lean invoker the
// x-amzn-errortype header's name, and socket errors, which the lean invoker names by their code
// (ECONNRESET) where the SDK's handler says TimeoutError or Error. The runtime acts on the kind
// (and on the errorType of 'unhandled' only, which always agrees).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLambdaInvoker } from '../../../shared/adapters/aws/lambda-invoker.js';
import { createSignedHttpInvoker, invocationPath } from '../../../shared/adapters/aws/signed-http-invoker.js';
import { InvokeError } from '../../../shared/core/scatter/invoker.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

type Reply = [status: number, headers: Record<string, string>, body: string] | 'reset';
const CASES: Record<string, { reply: Reply; want: [kind: string, errorType: string | undefined]; sdkErrorType?: string }> = {
  'not-json-200': { reply: [200, {}, 'Internal Server Err'], want: ['malformed', undefined] },
  'empty-200': { reply: [200, {}, ''], want: ['malformed', undefined] },
  'accepted-202': { reply: [202, {}, '{"echo":1}'], want: ['ok', undefined] },
  'unhandled-not-json': { reply: [200, { 'x-amz-function-error': 'Unhandled' }, 'Task timed out'], want: ['unhandled', 'Unhandled'] },
  'service-502': { reply: [502, { 'x-amzn-errortype': 'ServiceException' }, '{"message":"svc down"}'], want: ['unavailable', 'ServiceException'] },
  'name-with-suffix': {
    reply: [400, { 'x-amzn-errortype': 'InvalidParameterValueException:http://internal.amazon.com/coral/' }, '{"message":"x"}'],
    want: ['unavailable', 'InvalidParameterValueException'],
  },
  'name-in-body': {
    reply: [400, {}, '{"__type":"com.amazon.coral#KMSAccessDeniedException","Message":"y"}'],
    want: ['unavailable', 'KMSAccessDeniedException'],
  },
  'code-in-body': { reply: [400, {}, '{"code":"EC2ThrottledException","message":"z"}'], want: ['unavailable', 'EC2ThrottledException'] },
  'throttling-400': { reply: [400, { 'x-amzn-errortype': 'ThrottlingException' }, '{"message":"slow"}'], want: ['throttled', 'ThrottlingException'] },
  'bare-429': { reply: [429, {}, '{"message":"Rate Exceeded."}'], want: ['throttled', 'Unknown'] },
  'bare-503': { reply: [503, {}, ''], want: ['unavailable', 'Unknown'] },
  'html-500': {
    reply: [500, { 'x-amzn-errortype': 'ServiceException' }, '<html>oops</html>'],
    want: ['unavailable', 'ServiceException'],
    sdkErrorType: 'SyntaxError',
  },
  reset: { reply: 'reset', want: ['unavailable', 'ECONNRESET'], sdkErrorType: 'TimeoutError' },
};
const NAMES = Object.keys(CASES);

let server: Server;
let url = '';
const paths: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    paths.push(req.url ?? '');
    const name = decodeURIComponent(/functions\/([^/]+)\//.exec(req.url ?? '')?.[1] ?? '');
    req.resume();
    req.on('end', () => {
      const c = CASES[name];
      if (!c || c.reply === 'reset') return req.socket.destroy();
      const [status, headers, body] = c.reply;
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

async function outcome(p: Promise<unknown>): Promise<[string, string | undefined]> {
  try {
    await p;
    return ['ok', undefined];
  } catch (e) {
    expect(e).toBeInstanceOf(InvokeError);
    return [(e as InvokeError).kind, (e as InvokeError).errorType];
  }
}

describe('lean invoker vs SDK invoker on raw answers', () => {
  it.each(NAMES)('%s', async (name) => {
    const i = NAMES.indexOf(name);
    const lean = createSignedHttpInvoker(NAMES.length, { endpoint: url, functionNames: NAMES });
    const sdk = createLambdaInvoker(NAMES.length, { endpoint: url, functionNames: NAMES });
    try {
      const payload = { type: 'exec' as const, queryId: 'q', shard: i, replica: 0, sql: 'SELECT 1', deadline: 1 };
      const got = await outcome(lean.invokeAdmin!(i, payload, AbortSignal.timeout(3000)));
      const viaSdk = await outcome(sdk.invokeAdmin!(i, payload, AbortSignal.timeout(3000)));
      expect(got).toEqual(CASES[name]!.want);
      expect(viaSdk).toEqual([CASES[name]!.want[0], CASES[name]!.sdkErrorType ?? CASES[name]!.want[1]]);
    } finally {
      lean.close();
      sdk.close();
    }
  });

  it('nothing listening: unavailable, as with the SDK', async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
    const dead = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`;
    await new Promise<void>((r) => probe.close(() => r()));
    const lean = createSignedHttpInvoker(1, { endpoint: dead, functionNames: ['f'] });
    const sdk = createLambdaInvoker(1, { endpoint: dead, functionNames: ['f'] });
    try {
      const p = { type: 'exec' as const, queryId: 'q', shard: 0, replica: 0, sql: 'SELECT 1', deadline: 1 };
      const [a, b] = [await outcome(lean.invokeAdmin!(0, p, AbortSignal.timeout(3000))), await outcome(sdk.invokeAdmin!(0, p, AbortSignal.timeout(3000)))];
      expect(a).toEqual(['unavailable', 'ECONNREFUSED']);
      expect(b[0]).toBe('unavailable');
    } finally {
      lean.close();
      sdk.close();
    }
  });

  it('puts an endpoint path prefix before the Invoke path and encodes names as the SDK does', async () => {
    paths.length = 0;
    const lean = createSignedHttpInvoker(1, { endpoint: `${url}/proxy/`, functionNames: ['accepted-202'] });
    try {
      await lean.invokeAdmin!(0, { type: 'exec', queryId: 'q', shard: 0, replica: 0, sql: 'SELECT 1', deadline: 1 }, AbortSignal.timeout(3000));
    } finally {
      lean.close();
    }
    expect(paths).toEqual(['/proxy/2015-03-31/functions/accepted-202/invocations']);
    expect(invocationPath("a:b (c)!*'")).toBe('/2015-03-31/functions/a%3Ab%20%28c%29%21%2A%27/invocations');
  });
});
