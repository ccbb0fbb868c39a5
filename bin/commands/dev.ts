// `ch-scatter dev --config FILE [--port 3000] [--stream-port PORT] [--demo] [--users FILE] [--data-dir DIR|auto]`: the local stack in the foreground.
// --users: a users file the ClickHouse interface checks credentials against (docs/clients.md).
// --data-dir: the embedded replicas' data elsewhere, for a second stack on the same config.
// stdout carries exactly one line, `ready http://127.0.0.1:PORT` (scripts wait for it); the demo's
// example queries and the logs at the default level (WARN) go to stderr (Powertools writes INFO and
// DEBUG lines, with CH_SCATTER_LOG_LEVEL, to stdout). SIGINT/SIGTERM stop every child process cleanly.
import path from 'node:path';
import { parseArgs, flagPort, flagString, requiredFlag, UsageError, type FlagSpec } from '../args.js';
import { serveUntilSignal } from '../foreground.js';
import { startLocalStack } from '../../local/stack.js';
import { demoExamples } from '../../local/demo.js';
import { DataDirHeldError } from '../../local/data-dir-holders.js';
import type { DataDirChoice } from '../../local/data-dir.js';

export const summary =
  'run the local stack: every shard an engine in its own process, a local Lambda Invoke endpoint, the coordinator behind the HTTP API. ' +
  '--data-dir DIR keeps the embedded replicas under DIR instead (auto: beside the configured ones, one set per --port), for a second stack on the same config. ' +
  "The streaming front door (ClickHouse's interface, answers streamed) listens on --stream-port (default: --port + 100)";
export const usage = 'dev --config FILE [--port 3000] [--stream-port PORT] [--demo] [--users FILE] [--data-dir DIR|auto]';
export const flags: FlagSpec = { config: 'string', port: 'string', 'stream-port': 'string', demo: 'boolean', users: 'string', 'data-dir': 'string' };

export async function run(args: string[]): Promise<number> {
  const p = parseArgs(args, flags, usage);
  const config = requiredFlag(p, 'config', usage);
  const port = flagPort(p, usage);
  const streamPort = flagPort(p, usage, 'stream-port', port === 0 ? 0 : port + 100);
  const dataDir = dataDirOf(flagString(p, 'data-dir'), port);
  const demo = p.flags.demo === true;
  if (demo) process.stderr.write('starting shard processes and loading demo data...\n');
  const users = typeof p.flags.users === 'string' ? p.flags.users : undefined;
  let stack: Awaited<ReturnType<typeof startLocalStack>>;
  try {
    stack = await startLocalStack({
      configFile: config,
      port,
      streamPort,
      demo,
      runSchedules: true,
      ...(users ? { usersFile: users } : {}),
      ...(dataDir ? { dataDir } : {}),
    });
  } catch (e) {
    const line = startProblem(e, port);
    if (!line) throw e;
    process.stderr.write(`ch-scatter dev: ${line}\n`);
    return 1;
  }
  if (stack.demo)
    process.stderr.write(`demo: ${stack.demo.rows.toLocaleString('en-US')} rows loaded into analytics.sensor_events_dist in ${stack.demo.ms} ms\n`);
  if (!users) process.stderr.write(`no users file: every credential is accepted (the ClickHouse interface at ${stack.url}/; --users FILE checks them)\n`);
  process.stdout.write(`ready ${stack.url}\n`);
  if (stack.streamUrl) process.stderr.write(`streaming front door (ClickHouse's interface, answers streamed): ${stack.streamUrl}/\n`);
  if (demo) process.stderr.write(demoExamples(stack.url) + '\n');

  return serveUntilSignal(() => stack.stop());
}

function dataDirOf(flag: string | undefined, port: number): DataDirChoice | undefined {
  if (flag === undefined) return undefined;
  if (flag !== 'auto') return { dir: flag };
  if (port === 0) throw new UsageError(`--data-dir auto names the directories after the port: give a --port other than 0; usage: ch-scatter ${usage}`);
  return { perPort: port };
}

/** The one line for a start that failed because another stack is in the way; undefined for anything else. */
function startProblem(e: unknown, port: number): string | undefined {
  if (e instanceof DataDirHeldError) {
    const theirs = e.holder.url ? Number(new URL(e.holder.url).port) : undefined;
    const where = theirs ? `on port ${theirs}` : 'still starting';
    const next = port === 0 || port === theirs ? (theirs ?? port) + 1 : port;
    return (
      `another stack ${where} (pid ${e.holder.pid}) holds the data directory ${shown(e.dir)}; ` +
      `for a second stack use another config, or ${rerun(`--port ${next} --data-dir auto`)} (or --data-dir DIR)`
    );
  }
  if ((e as NodeJS.ErrnoException)?.code === 'EADDRINUSE') return `port ${port} is in use (another stack?); pick another: ${rerun(`--port ${port + 1}`)}`;
  return undefined;
}

/** The rerun, as the user started it: through `npm start` (flags after `--`) or the CLI. */
function rerun(flagsText: string): string {
  return process.env.npm_lifecycle_event === 'start' ? `npm start -- ${flagsText}` : `add ${flagsText}`;
}

function shown(dir: string): string {
  const rel = path.relative(process.cwd(), dir);
  return rel && !rel.startsWith('..') ? rel : dir;
}
