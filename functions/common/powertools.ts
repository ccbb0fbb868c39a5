// One Powertools setup for both Lambda functions: how the logger, the metrics and the tracer are
// built (service name and metrics namespace from POWERTOOLS_SERVICE_NAME and
// POWERTOOLS_METRICS_NAMESPACE, which the CDK stack sets on each function), and the one order of
// the middy middlewares around a handler.
import middy from '@middy/core';
import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { Tracer } from '@aws-lambda-powertools/tracer';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import type { Context } from 'aws-lambda';

export interface Tools {
  logger: Logger;
  metrics: Metrics;
  tracer: Tracer;
}

export type LogLevel = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'SILENT';

/** Used when POWERTOOLS_METRICS_NAMESPACE is unset (outside the CDK stack). */
export const DEFAULT_METRICS_NAMESPACE = 'ch-scatter';

/**
 * Logger, metrics and tracer for one function. The environment wins over `defaultServiceName`; an
 * explicit namespace or service name given to Powertools would override the environment, so none is
 * passed when the environment has one.
 */
export function createTools(defaultServiceName: string, opts: { logLevel?: LogLevel; env?: NodeJS.ProcessEnv } = {}): Tools {
  const env = opts.env ?? process.env;
  const serviceName = env.POWERTOOLS_SERVICE_NAME || defaultServiceName;
  return {
    logger: new Logger({ serviceName, ...(opts.logLevel ? { logLevel: opts.logLevel } : {}) }),
    metrics: new Metrics({ namespace: env.POWERTOOLS_METRICS_NAMESPACE || DEFAULT_METRICS_NAMESPACE, serviceName }),
    tracer: new Tracer({ serviceName }),
  };
}

/**
 * A handler wrapped in the Powertools middlewares, in one order for every function. middy runs the
 * `before` hooks in this order and the `after`/`onError` hooks in reverse:
 * - the logger first, so every later hook already logs with the Lambda context, and last on the way
 *   out, so the keys a handler appended (the query id) are reset only after everything else;
 * - the tracer next: its segment covers the handler and the metrics flush (the response is not
 *   recorded in it: it can hold row data);
 * - the metrics innermost, flushed as soon as the handler returns or throws.
 */
export function withPowertools<E, R>(fn: (event: E, context: Context) => Promise<R>, tools: Tools) {
  return middy(fn)
    .use(injectLambdaContext(tools.logger, { resetKeys: true }))
    .use(captureLambdaHandler(tools.tracer, { captureResponse: false }))
    .use(logMetrics(tools.metrics));
}
