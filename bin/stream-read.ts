// Reading a streaming front door's answer as it comes, header line by header line: node's HTTP
// client hands over the headers only once they are complete (at the first byte of the body), and
// ClickHouse's X-ClickHouse-Progress headers arrive one by one before it. HTTP/1.1 over node:net:
// the status line, each header as it arrives, then the body (chunked, or to the end of the stream).
import net from 'node:net';

export interface StreamReadHandlers {
  /** Each X-ClickHouse-Progress header, parsed, as it arrives. */
  onProgress?(p: Record<string, string>): void;
  /** The status and every header, once they are complete. */
  onHead?(status: number, headers: Record<string, string>): void;
  onBody(chunk: Buffer): void;
}

/** POST `body` to `url` (http only: the local stack's door); resolves with the status once the body has ended. */
export function streamRead(url: string, body: string, h: StreamReadHandlers): Promise<number> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(u.port || 80), u.hostname);
    socket.on('error', reject);
    socket.write(`POST ${u.pathname}${u.search} HTTP/1.1\r\nHost: ${u.host}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
    let buf = Buffer.alloc(0);
    let status = 0;
    const headers: Record<string, string> = {};
    let inBody = false;
    let chunked = false;
    let chunkLeft = -1; // bytes left in the current chunk; -1: a size line is next
    const body_ = (b: Buffer) => {
      if (!chunked) return h.onBody(b);
      buf = Buffer.concat([buf, b]);
      for (;;) {
        if (chunkLeft < 0) {
          const eol = buf.indexOf('\r\n');
          if (eol < 0) return;
          chunkLeft = Number.parseInt(buf.subarray(0, eol).toString('latin1'), 16);
          buf = buf.subarray(eol + 2);
          if (chunkLeft === 0) return;
        }
        if (buf.length < chunkLeft + 2) return;
        h.onBody(buf.subarray(0, chunkLeft));
        buf = buf.subarray(chunkLeft + 2);
        chunkLeft = -1;
      }
    };
    socket.on('data', (c: Buffer) => {
      if (inBody) return body_(c);
      buf = Buffer.concat([buf, c]);
      for (let eol = buf.indexOf('\r\n'); eol >= 0; eol = buf.indexOf('\r\n')) {
        const line = buf.subarray(0, eol).toString('latin1');
        buf = buf.subarray(eol + 2);
        if (line === '') {
          inBody = true;
          chunked = (headers['transfer-encoding'] ?? '').toLowerCase().includes('chunked');
          h.onHead?.(status, headers);
          const rest = buf;
          buf = Buffer.alloc(0);
          if (rest.length) body_(rest);
          return;
        }
        if (status === 0) {
          status = Number(line.split(' ')[1]);
          continue;
        }
        const colon = line.indexOf(':');
        const name = line.slice(0, colon).trim().toLowerCase();
        const value = line.slice(colon + 1).trim();
        if (name === 'x-clickhouse-progress') {
          try {
            h.onProgress?.(JSON.parse(value) as Record<string, string>);
          } catch {
            // a malformed progress line only loses that progress
          }
        }
        headers[name] = value;
      }
    });
    socket.on('end', () => resolve(status));
  });
}
