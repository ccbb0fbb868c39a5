// EventBridge rules of a simulated assembly: each target is invoked with the rule's exact `Input`
// bytes (the template's string, not re-serialized), as EventBridge delivers a constant input. A rule
// with a rate(...) schedule fires on a timer, asynchronously (Invocation type Event) as EventBridge
// does; cron(...) schedules are not run on a clock here. Any rule can be fired by hand (fireRule),
// which waits for each target's answer so a caller can see what the run did.
import type { SimRule } from './assembly.js';

export interface TargetAnswer {
  function: string;
  status: number;
  functionError?: string;
  payload: unknown;
}

/** Milliseconds of an EventBridge rate() expression; undefined for cron() or anything else. */
export function rateExpressionMs(expr: string): number | undefined {
  const m = /^rate\((\d+)\s+(minute|minutes|hour|hours|day|days)\)$/.exec(expr.trim());
  if (!m) return undefined;
  const unit = m[2]!.startsWith('minute') ? 60_000 : m[2]!.startsWith('hour') ? 3_600_000 : 86_400_000;
  return Number(m[1]) * unit;
}

/** The Input a target receives: the template's string, or EventBridge's scheduled-event envelope without one. */
export function targetInput(rule: SimRule, input: string | undefined, region: string, now = new Date()): string {
  if (input !== undefined) return input;
  return JSON.stringify({
    version: '0',
    id: crypto.randomUUID(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: '000000000000',
    time: now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    region,
    resources: [`arn:aws:events:${region}:000000000000:rule/${rule.name}`],
    detail: {},
  });
}

async function invokeTarget(invokeUrl: string, fn: string, body: string, type: 'Event' | 'RequestResponse'): Promise<TargetAnswer> {
  const r = await fetch(`${invokeUrl}/2015-03-31/functions/${encodeURIComponent(fn)}/invocations`, {
    method: 'POST',
    headers: { 'x-amz-invocation-type': type },
    body,
  });
  const text = await r.text();
  let payload: unknown = text;
  try {
    payload = text ? JSON.parse(text) : null;
  } catch {
    /* keep the text */
  }
  const functionError = r.headers.get('x-amz-function-error');
  return { function: fn, status: r.status, ...(functionError ? { functionError } : {}), payload };
}

export function fireRule(rule: SimRule, invokeUrl: string, region: string, type: 'Event' | 'RequestResponse' = 'RequestResponse'): Promise<TargetAnswer[]> {
  return Promise.all(rule.targets.map((t) => invokeTarget(invokeUrl, t.functionName, targetInput(rule, t.input, region), type)));
}

/** Start timers for the enabled rate() rules; returns the stop function. cron() rules are reported through `log`. */
export function startRuleTimers(rules: SimRule[], invokeUrl: string, region: string, log: (line: string) => void): () => void {
  const timers: NodeJS.Timeout[] = [];
  for (const rule of rules) {
    if (!rule.enabled || !rule.scheduleExpression) continue;
    const every = rateExpressionMs(rule.scheduleExpression);
    if (every === undefined) {
      log(`rule ${rule.name}: ${rule.scheduleExpression} is not run on a clock by the simulation; fire it with POST /_sim/rules/${rule.name}/fire`);
      continue;
    }
    const t = setInterval(() => {
      fireRule(rule, invokeUrl, region, 'Event').then(
        (answers) => log(`rule ${rule.name}: delivered (${answers.map((a) => `${a.function} ${a.status}`).join(', ')})`),
        (e: unknown) => log(`rule ${rule.name}: delivery failed: ${(e as Error).message}`),
      );
    }, every);
    t.unref();
    timers.push(t);
  }
  return () => timers.forEach(clearInterval);
}
