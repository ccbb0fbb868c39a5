// One keep-alive POST whose answer is parsed as JSON: the raw-HTTP floor of the fan-out bench
// (no signing, no answer validation: the least any invoker can do).
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
