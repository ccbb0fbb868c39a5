// A Lambda Context for driving a handler directly in a test: the fields Powertools reads, and a
// fixed remaining time (what the shard handler caps its deadline with).
import type { Context } from 'aws-lambda';

export function fakeLambdaContext(opts: { functionName?: string; requestId?: string; remainingMs?: number } = {}): Context {
  const functionName = opts.functionName ?? 'ch-scatter-shard-0';
  const remainingMs = opts.remainingMs ?? 60_000;
  return {
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:eu-west-1:123456789012:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: opts.requestId ?? 'req-1',
    logGroupName: 'g',
    logStreamName: 's',
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => remainingMs,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
