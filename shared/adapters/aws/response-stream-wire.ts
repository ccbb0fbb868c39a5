// The wire of Lambda's InvokeWithResponseStream, in one place for both sides: the local Invoke
// endpoint writes it (local/invoke-server.ts) and the lean invoker reads it (signed-http-invoker.ts);
// the SDK reads it with its own deserializer, which the tests hold both to.
//
//   POST /2021-11-15/functions/{name}/response-streaming-invocations
//   200, Content-Type: the function's stream content type (the SDK's ResponseStreamContentType),
//   X-Amz-Executed-Version; the body is application/vnd.amazon.eventstream messages:
//     PayloadChunk   (:content-type application/octet-stream): the bytes, as the function wrote them
//     InvokeComplete (:content-type application/json): {ErrorCode?, ErrorDetails?, LogResult?}, last
// A function error after the 200 is an InvokeComplete with ErrorCode; a stream that ends without
// InvokeComplete was cut.
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { uriEncode } from './sigv4.js';

export const RESPONSE_STREAM_PATH = /^\/2021-11-15\/functions\/([^/]+)\/response-streaming-invocations\/?$/;

/** The streaming Invoke path of a function: the name encoded as the SDK encodes a path label. */
export function responseStreamPath(functionName: string): string {
  return `/2021-11-15/functions/${uriEncode(functionName)}/response-streaming-invocations`;
}

/** What a streaming function's stream is, unless it says otherwise (the Node runtime's default). */
export const DEFAULT_STREAM_CONTENT_TYPE = 'application/octet-stream';

export interface InvokeCompleteEvent {
  ErrorCode?: string;
  ErrorDetails?: string;
  LogResult?: string;
}

export type ResponseStreamEvent = { PayloadChunk: Uint8Array } | { InvokeComplete: InvokeCompleteEvent };

const utf8 = new TextDecoder();
const codec = new EventStreamCodec(
  (bytes) => utf8.decode(bytes),
  (text) => Buffer.from(text, 'utf8'),
);

function message(eventType: string, contentType: string, body: Uint8Array): Uint8Array {
  return codec.encode({
    headers: {
      ':event-type': { type: 'string', value: eventType },
      ':message-type': { type: 'string', value: 'event' },
      ':content-type': { type: 'string', value: contentType },
    },
    body,
  });
}

export function encodePayloadChunk(bytes: Uint8Array): Uint8Array {
  return message('PayloadChunk', 'application/octet-stream', bytes);
}

export function encodeInvokeComplete(event: InvokeCompleteEvent): Uint8Array {
  return message('InvokeComplete', 'application/json', Buffer.from(JSON.stringify(event), 'utf8'));
}

/** A stream's events, framed out of the body's byte chunks as they arrive (a frame may span chunks). */
export async function* decodeResponseStream(body: AsyncIterable<Uint8Array>): AsyncGenerator<ResponseStreamEvent> {
  let pending = Buffer.alloc(0);
  for await (const chunk of body) {
    pending = pending.length === 0 ? Buffer.from(chunk) : Buffer.concat([pending, chunk]);
    while (pending.length >= 4) {
      const total = pending.readUInt32BE(0);
      if (pending.length < total) break;
      const frame = pending.subarray(0, total);
      pending = pending.subarray(total);
      const m = codec.decode(frame);
      const kind = m.headers[':message-type']?.value;
      const type = String(m.headers[':event-type']?.value ?? m.headers[':exception-type']?.value ?? m.headers[':error-code']?.value ?? '');
      if (kind !== 'event') {
        const text = utf8.decode(m.body);
        throw Object.assign(new Error(`response stream ${kind}: ${type}: ${text.slice(0, 300)}`), { name: type || 'ResponseStreamError' });
      }
      if (type === 'PayloadChunk') yield { PayloadChunk: m.body };
      else if (type === 'InvokeComplete') yield { InvokeComplete: JSON.parse(utf8.decode(m.body)) as InvokeCompleteEvent };
      // Events this reader does not know are skipped, as the SDK skips unknown union members.
    }
  }
  if (pending.length > 0) throw Object.assign(new Error(`response stream cut inside a frame (${pending.length} bytes left)`), { name: 'TruncatedStream' });
}
