// A tiny argument parser shared by the commands: `--flag value`, `--flag=value`, booleans, positionals.
export interface ParsedArgs {
  flags: Record<string, string | true>;
  positionals: string[];
}

export function parseArgs(args: string[], booleans: readonly string[] = []): ParsedArgs {
  const flags: Record<string, string | true> = {};
  const positionals: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') {
      positionals.push(...args.slice(i + 1));
      break;
    }
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      if (eq > 0) {
        flags[a.slice(2, eq)] = a.slice(eq + 1);
        continue;
      }
      const name = a.slice(2);
      if (booleans.includes(name) || i + 1 >= args.length || args[i + 1]!.startsWith('--')) flags[name] = true;
      else flags[name] = args[++i]!;
    } else positionals.push(a);
  }
  return { flags, positionals };
}

export function flagString(p: ParsedArgs, name: string): string | undefined {
  const v = p.flags[name];
  return typeof v === 'string' ? v : undefined;
}
