// The S3 adapter after this process was busy past the server's keep-alive timeout: every idle pooled
// socket was closed by the server unseen, and each request must still be answered (sent again on a
// fresh socket), not fail with a reset. The server is a small S3-like one in its own process, so its
// keep-alive timer runs while this one is blocked.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createS3Exchange } from '../../../shared/adapters/aws/s3-exchange.js';

const SERVER = `
const http = require('node:http');
const objects = new Map();
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    if (req.method === 'PUT') { objects.set(req.url, Buffer.concat(chunks)); res.writeHead(200).end(); }
    else if (req.method === 'GET' && objects.has(req.url)) res.writeHead(200).end(objects.get(req.url));
    else if (req.method === 'DELETE') { objects.delete(req.url); res.writeHead(204).end(); }
    else res.writeHead(404).end('<Error><Code>NoSuchKey</Code></Error>');
  });
});
server.keepAliveTimeout = 2000;
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;

let server: ChildProcess;
let endpoint: string;
const identity = { name: 'identity', compress: (b: Buffer) => b, decompress: (b: Buffer) => b };

beforeAll(async () => {
  server = spawn(process.execPath, ['-e', SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [port] = (await once(server.stdout!, 'data')) as [Buffer];
  endpoint = `http://127.0.0.1:${port.toString().trim()}`;
});
afterAll(() => {
  server?.kill();
});

describe('S3 exchange requests on kept-alive sockets the server closed', () => {
  it('are answered on fresh sockets after the event loop was busy past the keep-alive timeout', async () => {
    const store = createS3Exchange({ bucket: 'b', region: 'eu-west-1', endpoint, credentials: { accessKeyId: 'k', secretAccessKey: 's' } }, identity);
    // Twelve idle pooled sockets, then the loop blocked well past the server's 2 s (a shorter one, Node's client drops its idle sockets itself).
    const keys = Array.from({ length: 12 }, (_, i) => i + 1).map((i) => `q/${i}`);
    await Promise.all(keys.map((k, i) => store.put(k, Buffer.from(`value ${i}`))));
    const until = Date.now() + 4_000;
    while (Date.now() < until) {} // busy on purpose: no socket event of this process runs meanwhile
    const got = await Promise.all([store.get(keys[0]!), store.get(keys[11]!)]);
    expect(got.map((b) => b.toString())).toEqual(['value 0', 'value 11']);
  });
});
