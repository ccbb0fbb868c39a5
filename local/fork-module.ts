// Forking a TypeScript module as a child process. The repo runs without a build step (tsx),
// so a `.ts` child needs tsx's loader in its execArgv; a compiled `.js` child does not.
// Used for engine processes and shard hosts alike.
import { fork, type ChildProcess, type ForkOptions } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);

/** Resolve `./name.ts` (or `.js` when this file itself was compiled) next to `fromUrl`. */
export function siblingModule(fromUrl: string, name: string): string {
  const ext = fromUrl.endsWith('.js') ? '.js' : '.ts';
  return fileURLToPath(new URL(`./${name}${ext}`, fromUrl));
}

export function forkModule(modulePath: string, args: string[], opts: ForkOptions = {}): ChildProcess {
  const execArgv = modulePath.endsWith('.ts') ? ['--import', pathToFileURL(require.resolve('tsx')).href] : [];
  return fork(modulePath, args, {
    execArgv,
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    ...opts,
  });
}
