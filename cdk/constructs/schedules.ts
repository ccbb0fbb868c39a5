// One EventBridge rule per `schedules` entry. The event carries only the schedule's name: the coordinator
// looks the SQL and destination up in its own topology, so a rule cannot be edited into running
// arbitrary SQL and the saved query has one source of truth.
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import type { Schedule } from '../../shared/core/config/schema.js';
import { SCHEDULE_EVENT_KIND, type ScheduleInput } from '../../functions/coordinator/events.js';

export interface SchedulesProps {
  coordinator: lambda.IFunction;
  schedules: Schedule[];
}

export class Schedules extends Construct {
  readonly rules: events.Rule[] = [];

  constructor(scope: Construct, id: string, props: SchedulesProps) {
    super(scope, id);
    for (const s of props.schedules) {
      const event: ScheduleInput = { kind: SCHEDULE_EVENT_KIND, name: s.name };
      this.rules.push(
        new events.Rule(this, `Rule-${s.name}`, {
          description: `ch-scatter schedule ${s.name} -> ${s.destination.table}`,
          schedule: events.Schedule.expression(s.schedule),
          targets: [new targets.LambdaFunction(props.coordinator, { event: events.RuleTargetInput.fromObject(event) })],
        }),
      );
    }
  }
}
