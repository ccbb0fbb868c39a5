// A Lambda Function URL in RESPONSE_STREAM mode, as `ch-scatter sim` serves it: each HTTP request
// becomes the URL's event (payload format 2.0, the HTTP API's shape), the function is invoked with
// InvokeWithResponseStream on the sim's Invoke endpoint, and its stream is the response: the JSON
// prelude HttpResponseStream.from wrote (status, headers) up to its 8 null bytes, then the body as
// it arrives. A client that leaves cancels the invocation's stream. IAM auth is not checked (the sim
// checks no signature); the caller is named as a sim user.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { decodeResponseStream, responseStreamPath } from '../../shared/adapters/aws/response-stream-wire.js';
import { toHttpApiEvent } from '../http-api-event.js';
import type { SimFunctionUrl } from './assembly.js';

const PRELUDE_DELIMITER = Buffer.alloc(8);
const SIM_CALLER = 'arn:aws:iam::000000000000:user/sim';

export interface FunctionUrlServer {
  url: string;
  close(): Promise<void>;
}

async function readBody(req: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

export async function startFunctionUrl(fu: SimFunctionUrl, invokeUrl: string, port = 0): Promise<FunctionUrlServer> {
  const server = http.createServer((req, res) => {
    const gone = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) gone.abort();
    });
    serve(req, res, gone.signal).catch((e: Error) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' }).end(JSON.stringify({ Message: e.message }));
      else res.destroy(e);
    });
  });
  const serve = async (req: http.IncomingMessage, res: http.ServerResponse, signal: AbortSignal) => {
    const url = new URL(req.url ?? '/', 'http://sim');
    const body = await readBody(req);
    const requestId = randomUUID();
    const event = toHttpApiEvent(req, url, body, {
      routeKey: '$default',
      apiId: 'sim-url',
      requestId,
      ...(fu.authType === 'AWS_IAM' ? { authorizer: { iam: { userArn: SIM_CALLER } } } : {}),
    });
    const r = await fetch(`${invokeUrl}${responseStreamPath(fu.functionName)}`, { method: 'POST', body: JSON.stringify(event), signal });
    if (r.status !== 200 || !r.body) {
      res.writeHead(502, { 'content-type': 'application/json' }).end(await r.text());
      return;
    }
    let head: Buffer | undefined = Buffer.alloc(0) as Buffer;
    for await (const e of decodeResponseStream(r.body as AsyncIterable<Uint8Array>)) {
      if ('InvokeComplete' in e) {
        if (e.InvokeComplete.ErrorCode) throw new Error(`${e.InvokeComplete.ErrorCode}: ${e.InvokeComplete.ErrorDetails ?? ''}`);
        continue;
      }
      let chunk: Buffer = Buffer.from(e.PayloadChunk);
      if (head !== undefined) {
        head = Buffer.concat([head, chunk]);
        const at = head.indexOf(PRELUDE_DELIMITER);
        if (at < 0) continue;
        const prelude = JSON.parse(head.subarray(0, at).toString('utf8')) as { statusCode?: number; headers?: Record<string, string> };
        res.writeHead(prelude.statusCode ?? 200, prelude.headers ?? {});
        chunk = head.subarray(at + PRELUDE_DELIMITER.length);
        head = undefined;
      }
      if (chunk.length > 0 && !res.write(chunk)) await new Promise((resolve) => res.once('drain', resolve));
    }
    if (head !== undefined) res.writeHead(200, {});
    res.end();
  };
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
