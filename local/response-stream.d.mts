import type { Context } from 'aws-lambda';

export declare const DEFAULT_CONTENT_TYPE: 'application/octet-stream';

/** A function's answer as a stream (a handler marked by awslambda.streamifyResponse). */
export interface StreamedResponse {
  readonly contentType: string;
  /** The bytes as written; throws the function's error (its name is Lambda's errorType). */
  readonly body: AsyncIterable<Uint8Array>;
  /** Stop the stream from the reader's side (the caller went away). */
  cancel(err?: Error): void;
}

export declare function isStreamingHandler(fn: unknown): boolean;
export declare function isStreamed(v: unknown): v is StreamedResponse;
export declare function streamedResponse(contentType: string, body: AsyncIterable<Uint8Array>, cancel?: (err?: Error) => void): StreamedResponse;
export declare function collectStreamed(s: StreamedResponse): Promise<Buffer>;
export declare function runStreamingHandler(
  handler: (...args: never[]) => unknown,
  event: unknown,
  context?: Partial<Context>,
  callerLeft?: AbortSignal,
): Promise<StreamedResponse>;
export declare function invokeHandler(handler: (...args: never[]) => unknown, event: unknown, context?: Partial<Context>): Promise<unknown>;
