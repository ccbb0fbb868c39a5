// `ch-scatter dev --config FILE [--port 3000] [--demo] [--users FILE]`: the local stack in the foreground.
// --users: a users file the ClickHouse interface checks credentials against (docs/clients.md).
// stdout carries exactly one line, `ready http://127.0.0.1:PORT` (scripts wait for it); the demo's
// example queries and all logs go to stderr. SIGINT/SIGTERM stop every child process cleanly.
import { parseArgs, flagPort, requiredFlag, type FlagSpec } from '../args.js';
import { serveUntilSignal } from '../foreground.js';
import { startLocalStack } from '../../local/stack.js';
import { demoExamples } from '../../local/demo.js';

export const summary = 'run the local stack: every shard an engine in its own process, a local Lambda Invoke endpoint, the coordinator behind the HTTP API';
export const usage = 'dev --config FILE [--port 3000] [--demo] [--users FILE]';
export const flags: FlagSpec = { config: 'string', port: 'string', demo: 'boolean', users: 'string' };

export async function run(args: string[]): Promise<number> {
  const p = parseArgs(args, flags, usage);
  const config = requiredFlag(p, 'config', usage);
  const port = flagPort(p, usage);
  const demo = p.flags.demo === true;
  if (demo) process.stderr.write('starting shard processes and loading demo data...\n');
  const users = typeof p.flags.users === 'string' ? p.flags.users : undefined;
  const stack = await startLocalStack({ configFile: config, port, demo, runSchedules: true, ...(users ? { usersFile: users } : {}) });
  if (stack.demo)
    process.stderr.write(`demo: ${stack.demo.rows.toLocaleString('en-US')} rows loaded into analytics.sensor_events_dist in ${stack.demo.ms} ms\n`);
  process.stdout.write(`ready ${stack.url}\n`);
  if (demo) process.stderr.write(demoExamples(stack.url) + '\n');

  return serveUntilSignal(() => stack.stop());
}
