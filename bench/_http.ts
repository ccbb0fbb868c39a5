// One keep-alive POST whose answer is parsed as JSON: the raw-HTTP floor and the signed
// lean invoker of the fan-out bench both send their invocations through it, so the two differ
// only in what they add (signing), not in how they read the answer.
import http from 'node:http';

export function postJson(
  agent: http.Agent,
  target: URL,
  path: string,
  headers: http.OutgoingHttpHeaders,
  body: string,
  signal?: AbortSignal,
): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: target.hostname, port: target.port, method: 'POST', path, agent, headers, signal }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        } catch (e) {
          reject(e);
        }
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}
