// The local stack's streaming front door (what a Lambda Function URL in RESPONSE_STREAM mode serves
// in AWS): ClickHouse's HTTP interface on its own port, each answer written to the socket as it is
// produced. The response is written by hand (status line, headers, chunked body) because ClickHouse
// sends X-ClickHouse-Progress headers one by one before the body, which node's ServerResponse
// cannot. A client that closes the connection aborts the request (every shard's query is KILLed).
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { ResponseSink } from '../shared/core/clickhouse-http/stream-answer.js';
import type { HttpInput } from '../shared/core/clickhouse-http/request.js';
import { CLICKHOUSE_MAX_BODY_BYTES } from './api-server.js';

export type StreamingHandler = (input: HttpInput, sink: ResponseSink, arrivedAt: number) => Promise<void>;

export interface StreamServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

const REASON: Record<number, string> = { 200: 'OK', 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 413: 'Payload Too Large' };

/** A sink writing HTTP/1.1 by hand on `socket`: the header block stays open for progress lines until the first body byte. */
export function socketSink(socket: Socket, head: boolean): ResponseSink {
  const gone = new AbortController();
  let finished = false;
  // 'end' comes first when the client closes (a client never half-closes an HTTP/1.1 request); 'close' may wait for our writes.
  const leave = () => {
    if (!finished) gone.abort(new Error('the client closed the connection'));
  };
  socket.once('end', leave);
  socket.once('error', leave);
  socket.once('close', leave);
  let headerOpen = false;
  const send = (s: string | Uint8Array) =>
    new Promise<void>((resolve) => {
      if (socket.destroyed) return resolve();
      if (socket.write(s)) resolve();
      else socket.once('drain', resolve);
    });
  const closeHeader = () => {
    if (!headerOpen) return;
    headerOpen = false;
    socket.write('\r\n');
  };
  return {
    closed: gone.signal,
    begin(status, headers) {
      let h = `HTTP/1.1 ${status} ${REASON[status] ?? (status >= 500 ? 'Internal Server Error' : 'Error')}\r\n`;
      for (const [k, v] of Object.entries({ ...headers, 'transfer-encoding': 'chunked', connection: 'close' })) h += `${k}: ${v}\r\n`;
      socket.write(h);
      headerOpen = true;
    },
    header(name, value) {
      if (headerOpen) socket.write(`${name}: ${value}\r\n`);
    },
    async write(chunk) {
      closeHeader();
      if (head || chunk.byteLength === 0) return;
      socket.write(`${chunk.byteLength.toString(16)}\r\n`);
      socket.write(chunk);
      await send('\r\n');
    },
    end() {
      finished = true;
      closeHeader();
      if (!socket.destroyed) socket.end(head ? '' : '0\r\n\r\n');
    },
  };
}

function readBody(req: IncomingMessage, cap: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > cap) {
        req.pause();
        resolve(undefined);
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export async function startStreamServer(opts: { port?: number; host?: string; handler: StreamingHandler }): Promise<StreamServer> {
  const server: Server = createServer((req, res) => {
    const arrivedAt = Date.now();
    const socket = req.socket;
    void (async () => {
      const body = await readBody(req, CLICKHOUSE_MAX_BODY_BYTES).catch(() => undefined);
      if (body === undefined) {
        res.writeHead(413, { 'content-type': 'text/plain; charset=UTF-8', connection: 'close' });
        res.end('Code: 1001. DB::Exception: request body too large (ch-scatter)\n');
        return;
      }
      const url = new URL(req.url ?? '/', 'http://localhost');
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
      // The response is this module's from here: node's ServerResponse never writes on the socket.
      res.detachSocket?.(socket);
      const input: HttpInput = { method: (req.method ?? 'GET').toUpperCase(), path: url.pathname, query: url.searchParams, headers, body };
      await opts.handler(input, socketSink(socket, input.method === 'HEAD'), arrivedAt);
    })().catch(() => socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
