import type { Writable } from 'node:stream';
import type { Context } from 'aws-lambda';

/** The stream a streaming handler writes its answer to (the Node runtime's ResponseStream). */
export interface ResponseStream extends Writable {
  /** Before the first write only. */
  setContentType(contentType: string): void;
  /** Written before the first chunk (HttpResponseStream's prelude). */
  _onBeforeFirstWrite?: (write: (chunk: string | Uint8Array) => void) => void;
}

export type StreamingHandler<E = unknown> = (event: E, responseStream: ResponseStream, context: Context) => Promise<void>;

export interface HttpResponsePrelude {
  statusCode?: number;
  headers?: Record<string, string>;
  cookies?: string[];
}

export interface AwsLambdaGlobal {
  streamifyResponse<H extends StreamingHandler<never>>(handler: H, options?: { highWaterMark?: number }): H;
  HttpResponseStream: { from(stream: ResponseStream, prelude: HttpResponsePrelude): ResponseStream };
}

export declare const HANDLER_STREAMING: unique symbol;
export declare const HANDLER_HIGHWATERMARK: unique symbol;
export declare const STREAM_RESPONSE: 'response';
export declare const HTTP_INTEGRATION_CONTENT_TYPE: 'application/vnd.awslambda.http-integration-response';
export declare const PRELUDE_DELIMITER_LENGTH: 8;
export declare const awslambda: AwsLambdaGlobal;
