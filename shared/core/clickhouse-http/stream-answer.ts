// ClickHouse's HTTP interface with the answer written as it is produced (the streaming front door).
// A row query in a format that concatenates streams from the shards (stream-select.ts); anything
// else, and any request with wait_end_of_query=1 or a compressed answer, is answered whole by
// handleClickHouseHttp and written at once, as ClickHouse buffers with wait_end_of_query.
// As in ClickHouse: X-ClickHouse-Progress headers (send_progress_in_http_headers=1, at most one per
// http_headers_progress_interval_ms) go out only before the body's first byte; an error before it
// is an ordinary exception answer (its code in X-ClickHouse-Exception-Code), an error after it ends
// the body with the tagged exception block (stream-exception.ts).
import { randomUUID } from 'node:crypto';
import { parseSelect } from '../sql/parse.js';
import { printSelect } from '../sql/print.js';
import { fromEscapedParams } from '../plan/bind-params.js';
import { checkEngineOptions } from '../plan/file-access.js';
import { toChException } from './exception.js';
import { answerCodec } from './compression.js';
import { parseChRequest } from './request.js';
import { classify } from './statement.js';
import { isCatalogSelect } from './catalog.js';
import { credentialsOf } from './auth.js';
import {
  contentTypeOf,
  exceptionAnswer,
  handleClickHouseHttp,
  headerText,
  qualify,
  serverInfo,
  summary,
  type ChHttpDeps,
  type HttpInput,
  type HttpOutput,
} from './handle.js';
import { EXCEPTION_TAG_HEADER, exceptionTag, streamExceptionBlock } from './stream-exception.js';
import type { StreamSelect } from './stream-select.js';

/** Where a streamed answer goes: the node:http socket locally, Lambda's response stream in AWS. */
export interface ResponseSink {
  /** The status line and headers; the header block stays open for header() until the first write(). */
  begin(status: number, headers: Record<string, string>): void;
  /** One more header line (progress), before the first write(). */
  header(name: string, value: string): void;
  /** Body bytes (the header block ends first); resolves when the sink may take more. */
  write(chunk: Uint8Array): Promise<void>;
  end(): void;
  /** Fires when the client went away. */
  readonly closed: AbortSignal;
}

export interface StreamingDeps extends ChHttpDeps {
  stream?: StreamSelect;
}

/** An answer built whole, written at once. */
async function writeWhole(sink: ResponseSink, out: HttpOutput): Promise<void> {
  sink.begin(out.status, out.headers);
  if (out.body.length > 0) await sink.write(out.body);
  sink.end();
}

/** Answer one request on `sink`. Never throws. */
export async function streamClickHouseHttp(input: HttpInput, deps: StreamingDeps, sink: ResponseSink): Promise<void> {
  const now = deps.now ?? Date.now;
  const t0 = deps.arrivedAt ?? now();
  const whole = async () => writeWhole(sink, await handleClickHouseHttp(input, { ...deps, arrivedAt: t0 }));
  const stream = deps.stream;
  if (!stream || (input.method !== 'GET' && input.method !== 'POST') || input.path.replace(/\/+$/, '').endsWith('/ping')) return whole();
  // What decides whether the answer can stream, read without side effects; any doubt (or error) answers whole.
  let req: ReturnType<typeof parseChRequest>;
  let select: ReturnType<typeof parseSelect>;
  let format: string;
  try {
    if (input.headers['content-encoding']) return whole();
    req = parseChRequest(input);
    if (req.http.waitEndOfQuery || answerCodec(req.compression.enabled, input.headers['accept-encoding'])) return whole();
    // External data is parsed and shipped by the buffered interface (external-data.ts).
    if (req.external.length > 0) return whole();
    if (classify(req.text).kind !== 'select') return whole();
    select = parseSelect(req.text);
    format = select.format ?? req.defaultFormat;
    select = { ...select, format: undefined };
    if (isCatalogSelect(select)) return whole();
    checkEngineOptions({ format, settings: req.formatSettings, where: 'a URL parameter' });
  } catch {
    return whole();
  }
  const asked = input.query.get('query_id') || input.headers['x-clickhouse-query-id'] || deps.requestId || randomUUID();
  const queryId = /^[A-Za-z0-9._:-]{1,128}$/.test(asked) ? asked : randomUUID();
  const base: Record<string, string> = { 'x-clickhouse-query-id': headerText(asked) };
  const info = await serverInfo(deps.raw).catch(() => undefined);
  const version = info?.version;
  let prepared: Awaited<ReturnType<StreamSelect>>;
  try {
    const creds = credentialsOf(input.headers, input.query);
    if (deps.userCheck) await deps.userCheck(creds);
    prepared = await stream({
      sql: printSelect(qualify(select, req.database ?? 'default')),
      format,
      formatSettings: req.formatSettings,
      settings: req.settings,
      params: fromEscapedParams(select, req.params),
      ...(req.maxExecutionTimeMs ? { timeoutMs: req.maxExecutionTimeMs } : {}),
      queryId,
      arrivedAt: t0,
    });
  } catch (e) {
    return writeWhole(sink, exceptionAnswer(e, { headers: base, ...(version ? { version } : {}) }));
  }
  if (!prepared) return whole();

  const tag = exceptionTag();
  const headers: Record<string, string> = {
    ...base,
    'content-type': contentTypeOf(format),
    'x-clickhouse-format': format,
    ...(info ? { 'x-clickhouse-timezone': info.timezone } : {}),
    [EXCEPTION_TAG_HEADER]: tag,
  };
  let read = { rowsRead: 0, bytesRead: 0 };
  const stats = () => ({ readRows: read.rowsRead, readBytes: read.bytesRead, resultRows: 0, resultBytes: 0, elapsedNs: Math.round((now() - t0) * 1e6) });
  let begun = false;
  let bodyStarted = false;
  const begin = () => {
    if (begun) return;
    begun = true;
    sink.begin(200, headers);
  };
  let lastProgress = now();
  const onRead = (p: { rowsRead: number; bytesRead: number }) => {
    read = p;
    if (!req.http.sendProgress || bodyStarted || now() - lastProgress < req.http.progressIntervalMs) return;
    lastProgress = now();
    begin();
    sink.header('X-ClickHouse-Progress', summary(stats()));
  };
  let bytes = 0;
  try {
    await prepared.run({
      signal: sink.closed,
      onRead,
      write: async (chunk) => {
        if (!bodyStarted) {
          if (!begun) headers['x-clickhouse-summary'] = summary(stats());
          begin();
          bodyStarted = true;
        }
        bytes += chunk.byteLength;
        await sink.write(chunk);
      },
    });
    if (!begun) {
      // No shard wrote a byte: the header block still says what was read.
      headers['x-clickhouse-summary'] = summary({ ...stats(), resultBytes: bytes });
      begin();
    }
    sink.end();
  } catch (e) {
    if (sink.closed.aborted) return sink.end();
    if (!begun) return writeWhole(sink, exceptionAnswer(e, { headers: base, ...(version ? { version } : {}) }));
    if (!bodyStarted) {
      // The status line went out with the progress headers: the code is a header, the text the body.
      sink.header('X-ClickHouse-Exception-Code', String(toChException(e).code));
      await sink.write(Buffer.from(exceptionAnswer(e, { ...(version ? { version } : {}) }).body)).catch(() => undefined);
      return sink.end();
    }
    await sink.write(streamExceptionBlock(e, tag, version)).catch(() => undefined);
    sink.end();
  }
}
