// What invokes the coordinator, told apart and validated with Powertools' Parser (zod) schemas:
// - an API Gateway HTTP API (payload 2.0) request: Parser's APIGatewayProxyEventV2Schema;
// - a scheduled run: the input the stack's EventBridge rule sends, {"kind":"ch-scatter.schedule",
//   "name":"<schedule>"}, or an EventBridge event (Parser's EventBridgeSchema) whose detail-type is
//   "ch-scatter.schedule" and whose detail is {"name":"<schedule>"}. Either carries only a name: the
//   SQL and the destination come from the coordinator's own topology;
// - a sub-coordinator request from a root coordinator (the aggregation tree), recognized by
//   isTreeRequest in handler.ts.
// An event that has the shape of an API Gateway request but fails its schema is `malformed`: the
// handler answers it with a 400 naming the first problems, never a stack trace.
import { parse } from '@aws-lambda-powertools/parser';
import { APIGatewayProxyEventV2Schema, APIGatewayRequestContextV2Schema } from '@aws-lambda-powertools/parser/schemas/api-gatewayv2';
import { EventBridgeSchema } from '@aws-lambda-powertools/parser/schemas/eventbridge';
import { z } from 'zod';
import { jsonPath } from '../../shared/core/json-path.js';

export const SCHEDULE_EVENT_KIND = 'ch-scatter.schedule';

/** The input of the stack's EventBridge rules (cdk/constructs/schedules.ts builds it from this schema's type). */
export const ScheduleInputSchema = z.object({ kind: z.literal(SCHEDULE_EVENT_KIND), name: z.string().min(1) });
export type ScheduleInput = z.infer<typeof ScheduleInputSchema>;

/** A whole EventBridge event asking for a scheduled run (a rule without an input of its own delivers this). */
export const ScheduleEventBridgeSchema = EventBridgeSchema.extend({
  'detail-type': z.literal(SCHEDULE_EVENT_KIND),
  detail: z.object({ name: z.string().min(1) }),
});

/**
 * Parser's HTTP API schema with one difference: any method. API Gateway forwards only the routes the
 * stack declares, but the local API server forwards every request, and the router answers a method
 * it does not serve with 405 (as before), not with a 400 for the event.
 */
export const HttpEventSchema = APIGatewayProxyEventV2Schema.extend({
  requestContext: APIGatewayRequestContextV2Schema.extend({
    http: APIGatewayRequestContextV2Schema.shape.http.extend({ method: z.string().min(1) }),
  }),
});
export type HttpEvent = z.infer<typeof HttpEventSchema>;

export type CoordinatorEvent =
  | { type: 'http'; event: HttpEvent }
  | { type: 'schedule'; name: string; eventId?: string }
  /** Shaped like an API Gateway request or a scheduled run, but not a valid one. */
  | { type: 'malformed'; of: 'http' | 'schedule'; problems: string[] }
  | { type: 'unrecognized' };

/** At most this many problems are reported for one malformed event (a hostile one can have thousands). */
const MAX_PROBLEMS = 5;

/** Which kind of event this is, validated. Never throws. */
export function classifyEvent(event: unknown): CoordinatorEvent {
  if (typeof event !== 'object' || event === null) return { type: 'unrecognized' };
  const e = event as Record<string, unknown>;
  if ('requestContext' in e) {
    const r = parse(event, undefined, HttpEventSchema, true);
    return r.success ? { type: 'http', event: r.data } : { type: 'malformed', of: 'http', problems: problemsOf(r.error) };
  }
  if (e.kind === SCHEDULE_EVENT_KIND) {
    const r = parse(event, undefined, ScheduleInputSchema, true);
    return r.success ? { type: 'schedule', name: r.data.name } : { type: 'malformed', of: 'schedule', problems: problemsOf(r.error) };
  }
  if (e['detail-type'] === SCHEDULE_EVENT_KIND) {
    const r = parse(event, undefined, ScheduleEventBridgeSchema, true);
    return r.success
      ? { type: 'schedule', name: r.data.detail.name, eventId: r.data.id }
      : { type: 'malformed', of: 'schedule', problems: problemsOf(r.error) };
  }
  return { type: 'unrecognized' };
}

/** `$.path: message` for the first few issues of a failed parse (Parser keeps them as the error's cause). */
function problemsOf(error: Error): string[] {
  const issues = (Array.isArray(error.cause) ? error.cause : []) as { message: string; path?: ReadonlyArray<PropertyKey | { key: PropertyKey }> }[];
  const lines = issues
    .slice(0, MAX_PROBLEMS)
    .map((i) => `${jsonPath((i.path ?? []).map((s) => (typeof s === 'object' && s !== null ? s.key : s)))}: ${i.message}`);
  if (issues.length > MAX_PROBLEMS) lines.push(`(${issues.length - MAX_PROBLEMS} more)`);
  return lines.length ? lines : [error.message];
}
