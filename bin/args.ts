// The commands' argument parsing: node:util parseArgs in strict mode, so a mistyped flag (say
// --require-completed for --require-complete) stops the command instead of being ignored.
// Flags take `--flag value` or `--flag=value`; everything else is positional (the SQL), and `--`
// ends the flags (for a positional that starts with '-').
import { parseArgs as parseNodeArgs } from 'node:util';

export type FlagKind = 'string' | 'boolean';
/** A command's flags: name (without --) to kind. */
export type FlagSpec = Readonly<Record<string, FlagKind>>;

export interface ParsedArgs {
  flags: Record<string, string | true>;
  positionals: string[];
}

/** Bad command-line arguments: cli.ts prints the message (one line, ending with the usage) and exits 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export function parseArgs(args: string[], spec: FlagSpec, usage: string): ParsedArgs {
  const options = Object.fromEntries(Object.entries(spec).map(([name, type]) => [name, { type }]));
  try {
    const { values, positionals } = parseNodeArgs({ args, options, strict: true, allowPositionals: true });
    return { flags: values as Record<string, string | true>, positionals };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (typeof code !== 'string' || !code.startsWith('ERR_PARSE_ARGS_')) throw e;
    throw new UsageError(`${problemOf((e as Error).message)}; usage: ch-scatter ${usage}`);
  }
}

/** node's messages span several lines and suggest quoting; ours name the flag in one line. */
function problemOf(message: string): string {
  const flag = /'(-[^' ]*)/.exec(message)?.[1] ?? '';
  if (message.startsWith('Unknown option')) return `unknown option ${flag}${flag.startsWith('--') ? '' : ' (a positional starting with "-" goes after --)'}`;
  if (message.includes('argument missing')) return `option ${flag} needs a value`;
  if (message.includes('does not take an argument')) return `option ${flag} takes no value`;
  if (message.includes('ambiguous')) return `option ${flag}: a value starting with "-" must be written ${flag}=VALUE`;
  return message.split('\n')[0]!;
}

export function flagString(p: ParsedArgs, name: string): string | undefined {
  const v = p.flags[name];
  return typeof v === 'string' ? v : undefined;
}

/** `--port N` (default 3000): 0 picks a free port. */
export function flagPort(p: ParsedArgs, usage: string, name = 'port', fallback = 3000): number {
  const text = flagString(p, name) ?? String(fallback);
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--${name}: not a port number: ${text}; usage: ch-scatter ${usage}`);
  return port;
}

/** A required string flag: its absence is a usage error naming it. */
export function requiredFlag(p: ParsedArgs, name: string, usage: string): string {
  const v = flagString(p, name);
  if (!v) throw new UsageError(`--${name} is required; usage: ch-scatter ${usage}`);
  return v;
}
