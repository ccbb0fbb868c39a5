// `ch-scatter export --url STREAM_URL [--format F] "SQL"`: a query through the streaming front door,
// its answer written to stdout as it arrives; on a terminal, stderr shows the shards' rows and bytes
// read (X-ClickHouse-Progress) while the answer has not started, then what has arrived.
import { parseArgs, flagString, type FlagSpec } from '../args.js';
import { streamRead } from '../stream-read.js';

export const summary =
  "run a SELECT through the streaming front door (ch-scatter dev's --stream-port, or a deployment's StreamingUrl with auth 'users') and write its answer to stdout as it arrives; progress on stderr when it is a terminal";
export const usage = 'export --url STREAM_URL [--format TabSeparated] "SQL"';
export const flags: FlagSpec = { url: 'string', format: 'string' };

const mb = (n: number) => (n / 2 ** 20).toFixed(1);

/** One progress line, rewritten in place. */
export function progressLine(p: { readRows: number; readBytes: number; received: number; elapsedMs: number }): string {
  return `\r${p.readRows.toLocaleString('en-US')} rows, ${mb(p.readBytes)} MB read by the shards; ${mb(p.received)} MB received; ${(p.elapsedMs / 1000).toFixed(1)} s`;
}

export async function run(args: string[]): Promise<number> {
  const p = parseArgs(args, flags, usage);
  const url = flagString(p, 'url');
  const sql = p.positionals.join(' ').trim();
  if (!url || !sql) {
    console.error(!url ? '--url is required' : 'missing the SQL to run');
    console.error(`usage: ch-scatter ${usage}`);
    return 2;
  }
  const tty = process.stderr.isTTY === true;
  const t0 = Date.now();
  const shown = { readRows: 0, readBytes: 0, received: 0 };
  let last = 0;
  const show = (force = false) => {
    if (!tty || (!force && Date.now() - last < 200)) return;
    last = Date.now();
    process.stderr.write(progressLine({ ...shown, elapsedMs: Date.now() - t0 }));
  };
  const q = new URLSearchParams({
    send_progress_in_http_headers: '1',
    http_headers_progress_interval_ms: '500',
    default_format: flagString(p, 'format') ?? 'TabSeparated',
  });
  let status = 0;
  const errorBody: Buffer[] = [];
  status = await streamRead(`${url.replace(/\/+$/, '')}/?${q}`, sql, {
    onProgress: (x) => {
      shown.readRows = Number(x.read_rows ?? 0);
      shown.readBytes = Number(x.read_bytes ?? 0);
      show();
    },
    onHead: (s) => {
      status = s;
    },
    onBody: (c) => {
      if (status !== 200) return void errorBody.push(c);
      shown.received += c.length;
      process.stdout.write(c);
      show();
    },
  });
  if (tty) {
    show(true);
    process.stderr.write('\n');
  }
  if (status !== 200) {
    process.stderr.write(Buffer.concat(errorBody).toString('utf8'));
    return 1;
  }
  return 0;
}
