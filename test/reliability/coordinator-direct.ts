// Driving the coordinator Lambda handler directly (no HTTP server in between): the same handler
// the local stack and AWS run, built from the environment the CDK app sets, with a fake Lambda
// context whose remaining time the test chooses.
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { Topology } from '../../shared/core/config/schema.js';
import { createCoordinatorHandler, createTools } from '../../functions/coordinator/handler.js';
import { loadDefaultDeps } from '../../functions/coordinator/deps.js';

export function lambdaContext(remainingMs: number): Context {
  const start = Date.now();
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: 'ch-scatter-coordinator',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:ch-scatter-coordinator',
    memoryLimitInMB: '1024',
    awsRequestId: 'test-request',
    logGroupName: 'g',
    logStreamName: 's',
    getRemainingTimeInMillis: () => Math.max(0, start + remainingMs - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

export { httpEvent } from '../support/http-event.js';

export type DirectHandler = (event: APIGatewayProxyEventV2, remainingMs?: number) => Promise<{ status: number; body: any; text: string }>;

/** The coordinator handler over `topo`, reaching shards through the Invoke endpoint at `invokeUrl`. */
export function directCoordinator(
  topo: Topology,
  invokeUrl: string,
  env: NodeJS.ProcessEnv = {},
  logLevel: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'SILENT' = 'SILENT',
): DirectHandler {
  const e: NodeJS.ProcessEnv = { ...process.env, CH_SCATTER_TOPOLOGY: JSON.stringify(topo), CH_SCATTER_LAMBDA_ENDPOINT: invokeUrl, ...env };
  delete e.CH_SCATTER_SHARD_FUNCTIONS;
  const tools = createTools({ logLevel });
  const h = createCoordinatorHandler(() => loadDefaultDeps(e, tools.tracer), tools);
  return async (event, remainingMs = 30_000) => {
    const r = (await h(event, lambdaContext(remainingMs))) as APIGatewayProxyStructuredResultV2;
    const text = String(r.body ?? '');
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    return { status: r.statusCode ?? 200, body, text };
  };
}
