// Start a bench helper (a .ts module) in its own process and wait for the `{ ready }` message it
// sends with its address. Servers that stand in for shard functions live in a child so the
// coordinator's process.cpuUsage() counts the coordinator only, as it would in Lambda.
import { fork, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);

export interface Child<T> {
  info: T;
  proc: ChildProcess;
  stop(): Promise<void>;
}

export async function startChild<T>(name: string, spec: unknown, timeoutMs = 30_000, nodeArgs: string[] = []): Promise<Child<T>> {
  const file = fileURLToPath(new URL(`./${name}.ts`, import.meta.url));
  const proc = fork(file, [JSON.stringify(spec)], {
    execArgv: [...nodeArgs, '--import', pathToFileURL(require.resolve('tsx')).href],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const info = await new Promise<T>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`${name} did not start in ${timeoutMs} ms`)), timeoutMs);
    proc.once('message', (m: { ready?: T; fatal?: string }) => {
      clearTimeout(t);
      if (m.ready !== undefined) resolve(m.ready);
      else reject(new Error(`${name}: ${m.fatal ?? 'failed to start'}`));
    });
    proc.once('exit', (code) => {
      clearTimeout(t);
      reject(new Error(`${name} exited during start (code ${code})`));
    });
  });
  return {
    info,
    proc,
    stop: async () => {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise<void>((r) => proc.once('exit', () => r()));
      proc.kill('SIGTERM');
      const t = setTimeout(() => proc.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(t);
    },
  };
}
