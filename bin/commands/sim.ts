// `ch-scatter sim --cdk-out DIR [--port 3000] [--secrets FILE]`: run a synthesized cloud assembly the
// way Lambda runs it (local/sim), in the foreground. stdout carries exactly one line, `ready URL`;
// the functions, routes and rules, every function's log and the simulation's notices go to stderr.
// SIGINT/SIGTERM stop every function process.
import { readFileSync } from 'node:fs';
import { parseArgs, flagPort, flagString, requiredFlag, type FlagSpec } from '../args.js';
import { serveUntilSignal } from '../foreground.js';
import { startSim } from '../../local/sim/index.js';

export const summary =
  'run the synthesized cloud assembly (`npx cdk synth -o DIR`) as Lambda would: each function from its own bundle in its own process, with its Handler, Environment, Timeout and reserved concurrency; the HTTP API, EventBridge rules and a Secrets Manager endpoint locally (--secrets: JSON of secret name -> value)';
export const usage = 'sim --cdk-out DIR [--port 3000] [--secrets FILE]';
export const flags: FlagSpec = { 'cdk-out': 'string', port: 'string', secrets: 'string' };

export async function run(args: string[]): Promise<number> {
  const p = parseArgs(args, flags, usage);
  const cdkOut = requiredFlag(p, 'cdk-out', usage);
  const port = flagPort(p, usage);
  let secrets: Record<string, unknown> | undefined;
  const secretsFile = flagString(p, 'secrets');
  if (secretsFile !== undefined) {
    try {
      const parsed = JSON.parse(readFileSync(secretsFile, 'utf8')) as unknown;
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
        throw new Error('expected a JSON object: {"<secret name>": {"username": ..., "password": ...}}');
      secrets = parsed as Record<string, unknown>;
    } catch (e) {
      console.error(`--secrets ${secretsFile}: ${(e as Error).message}`);
      return 2;
    }
  }

  const sim = await startSim({ cdkOut, port, runSchedules: true, ...(secrets ? { secrets } : {}) });
  const err = (l: string) => process.stderr.write(`${l}\n`);
  for (const f of sim.assembly.functions) {
    const reserved = f.reservedConcurrency !== undefined ? `, reserved concurrency ${f.reservedConcurrency}` : '';
    err(`function ${f.name}: ${f.handler}, ${f.timeoutS} s, ${f.memoryMb} MB${reserved}`);
  }
  for (const r of sim.assembly.routes) err(`route ${r.method} ${r.path} -> ${r.functionName} (${r.authorization.type})`);
  for (const r of sim.assembly.rules) err(`rule ${r.name}: ${r.scheduleExpression ?? 'event pattern'}; fire it with POST ${sim.url}/_sim/rules/${r.name}/fire`);
  process.stdout.write(`ready ${sim.url}\n`);

  return serveUntilSignal(() => sim.stop());
}
