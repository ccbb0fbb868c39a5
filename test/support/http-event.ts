// An API Gateway HTTP API event (payload format 2.0), complete enough for the coordinator's event
// schema, for tests and benches that call the handler directly.
import type { APIGatewayProxyEventV2 } from 'aws-lambda';

export function httpEvent(
  method: string,
  path: string,
  body?: string,
  headers: Record<string, string> = {},
  requestId = `r-${Math.random().toString(36).slice(2)}`,
): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: `${method} ${path}`,
    rawPath: path,
    rawQueryString: '',
    headers: { 'content-type': 'application/json', ...headers },
    isBase64Encoded: false,
    ...(body === undefined ? {} : { body }),
    requestContext: {
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'test' },
      requestId,
      routeKey: `${method} ${path}`,
      stage: '$default',
      accountId: '123456789012',
      apiId: 'api',
      domainName: 'd',
      domainPrefix: 'd',
      time: '',
      timeEpoch: Date.now(),
    },
  } as APIGatewayProxyEventV2;
}
