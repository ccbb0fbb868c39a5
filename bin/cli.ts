// Command dispatch for `ch-scatter`. Each command lives in bin/commands/<name>.ts and exports
// `run(args: string[]): Promise<number>` (the exit code), a one-line `summary`, its `usage` and its `flags`.
import { ConfigError } from '../shared/core/config/load.js';
import { isScatterError } from '../shared/core/errors.js';
import { UsageError, type FlagSpec } from './args.js';

const COMMANDS = ['dev', 'sim', 'query', 'export', 'explain', 'exec', 'insert', 'check'] as const;
type CommandName = (typeof COMMANDS)[number];

interface CommandModule {
  summary: string;
  usage: string;
  flags: FlagSpec;
  run(args: string[]): Promise<number>;
}

async function load(name: CommandName): Promise<CommandModule | undefined> {
  try {
    return (await import(`./commands/${name}.ts`)) as CommandModule;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND' && String((e as Error).message).includes(`commands/${name}`)) return undefined;
    throw e;
  }
}

async function help(): Promise<string> {
  const lines = ['usage: ch-scatter <command> [options]', '', 'commands:'];
  for (const name of COMMANDS) {
    // One broken command must not take the whole help page down with it.
    const mod = await load(name).catch((e: Error) => e);
    if (mod instanceof Error) lines.push(`  ${name}  (cannot load: ${mod.message.split('\n')[0]})`);
    else if (!mod) lines.push(`  ${name}  (not available in this build)`);
    else lines.push(`  ${mod.usage}`, `      ${mod.summary}`);
  }
  return lines.join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    console.log(await help());
    return name ? 0 : 2;
  }
  if (!(COMMANDS as readonly string[]).includes(name)) {
    console.error(`ch-scatter: unknown command "${name}"\n\n${await help()}`);
    return 2;
  }
  const mod = await load(name as CommandName);
  if (!mod) {
    console.error(`ch-scatter: command "${name}" is not available in this build`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    console.log(`usage: ch-scatter ${mod.usage}\n${mod.summary}`);
    return 0;
  }
  try {
    return await mod.run(rest);
  } catch (e) {
    if (e instanceof UsageError) {
      console.error(`ch-scatter ${name}: ${e.message}`);
      return 2;
    }
    if (e instanceof ConfigError) {
      for (const p of e.problems) console.error(p);
      return 1;
    }
    if (isScatterError(e)) {
      const pos = e.position ? ` (line ${e.position.line}, column ${e.position.column})` : '';
      console.error(`${e.code}: ${e.message}${pos}`);
      return 1;
    }
    console.error(`ch-scatter: ${(e as Error).message ?? String(e)}`);
    return 1;
  }
}
