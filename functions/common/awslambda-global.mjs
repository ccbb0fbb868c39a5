// Lambda's Node.js runtime defines a global `awslambda` before it loads a handler: streamifyResponse
// marks a handler as streaming (the runtime then calls it with a response stream), and
// HttpResponseStream.from puts a Function URL's status and headers before the body. Where nothing
// defined it (the local stack's hosts, tests), this module does, the same way; where a runtime did
// (AWS), its own is kept. Plain JavaScript: `ch-scatter sim`'s runtime loads it without a build.
export const HANDLER_STREAMING = Symbol.for('aws.lambda.runtime.handler.streaming');
export const HANDLER_HIGHWATERMARK = Symbol.for('aws.lambda.runtime.handler.streaming.highWaterMark');
export const STREAM_RESPONSE = 'response';
export const HTTP_INTEGRATION_CONTENT_TYPE = 'application/vnd.awslambda.http-integration-response';
/** The null bytes between HttpResponseStream's JSON prelude and the body. */
export const PRELUDE_DELIMITER_LENGTH = 8;

function streamifyResponse(handler, options) {
  handler[HANDLER_STREAMING] = STREAM_RESPONSE;
  if (typeof options?.highWaterMark === 'number') handler[HANDLER_HIGHWATERMARK] = Number.parseInt(String(options.highWaterMark), 10);
  return handler;
}

const HttpResponseStream = {
  from(stream, prelude) {
    stream.setContentType(HTTP_INTEGRATION_CONTENT_TYPE);
    const metadata = JSON.stringify(prelude);
    stream._onBeforeFirstWrite = (write) => {
      write(metadata);
      write(new Uint8Array(PRELUDE_DELIMITER_LENGTH));
    };
    return stream;
  },
};

// Other libraries put members of their own on it (the invoke store): those stay.
if (typeof globalThis.awslambda?.streamifyResponse !== 'function') globalThis.awslambda = { ...globalThis.awslambda, streamifyResponse, HttpResponseStream };

export const awslambda = globalThis.awslambda;
