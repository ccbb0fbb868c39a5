// The execution environments of one simulated Lambda function. Its asset directory is copied to a
// task root outside the project (as Lambda unpacks the zip into /var/task), and each environment is
// a child process (runtime-child.mjs) started there with only Lambda's own variables plus the
// function's Environment: no NODE_PATH, no tsx, HOME in the sandbox (so no ~/.aws config either).
// One invocation at a time per environment, as in Lambda: overlapping invocations start more
// environments (each a cold start), and idle ones are reused (warm).
//
// Timeout: the invocation is killed at the function's Timeout and answered as Lambda does (errorType
// Sandbox.Timedout, "Task timed out after N.NN seconds"); the environment is discarded, so the next
// invocation starts cold. A process that exits mid-invocation is Runtime.ExitError.
// A streaming handler (awslambda.streamifyResponse) answers a StreamedResponse: its chunks come over
// IPC as the handler writes them, and a timeout or exit mid-stream fails the stream.
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { cpSync, mkdirSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SimFunction } from './assembly.js';
import { streamedResponse } from '../response-stream.mjs';

const RUNTIME_CHILD = fileURLToPath(new URL('./runtime-child.mjs', import.meta.url));
/** Lambda's limit on an environment's init phase. */
const INIT_LIMIT_MS = 10_000;

export interface RuntimeSettings {
  region: string;
  /** Variables every function gets from the simulation (endpoints, dummy credentials). */
  baseEnv: Record<string, string>;
  /** Where task roots are created (a fresh directory outside the project). */
  sandboxDir: string;
  log: (line: string) => void;
}

export interface FunctionStats {
  invocations: number;
  coldStarts: number;
  timeouts: number;
  /** Init time (module load + handler lookup) of each cold start, ms. */
  initMs: number[];
}

/** A function error as Lambda reports it (the Invoke endpoint turns it into X-Amz-Function-Error: Unhandled). */
export class FunctionError extends Error {
  constructor(errorType: string, message: string) {
    super(message);
    this.name = errorType;
  }
}

interface Environment {
  child: ChildProcess;
  ready: Promise<{ initMs: number; error?: { errorType: string; errorMessage: string } }>;
  current?: {
    id: string;
    resolve: (v: unknown) => void;
    reject: (e: Error) => void;
    /** The answer turned into a stream: the pipe its chunks go into. */
    stream: (contentType: string) => PassThrough;
    pipe?: PassThrough;
  };
  dead: boolean;
}

export interface FunctionRuntime {
  fn: SimFunction;
  taskRoot: string;
  stats: FunctionStats;
  invoke(payload: unknown): Promise<unknown>;
  /** End every environment (in-flight invocations fail as Runtime.ExitError): the next invocation starts cold. */
  recycle(): Promise<void>;
  stop(): Promise<void>;
}

export function createFunctionRuntime(fn: SimFunction, s: RuntimeSettings): FunctionRuntime {
  const taskRoot = join(s.sandboxDir, fn.name, 'task');
  const home = join(s.sandboxDir, fn.name, 'home');
  cpSync(fn.assetDir, taskRoot, { recursive: true });
  mkdirSync(home, { recursive: true });
  const stats: FunctionStats = { invocations: 0, coldStarts: 0, timeouts: 0, initMs: [] };
  const idle: Environment[] = [];
  const all = new Set<Environment>();
  let stopped = false;

  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    LANG: 'en_US.UTF-8',
    TZ: 'UTC',
    HOME: home,
    LAMBDA_TASK_ROOT: taskRoot,
    LAMBDA_RUNTIME_DIR: taskRoot,
    AWS_REGION: s.region,
    AWS_DEFAULT_REGION: s.region,
    AWS_EXECUTION_ENV: `AWS_Lambda_${fn.runtime || 'nodejs'}`,
    AWS_LAMBDA_FUNCTION_NAME: fn.name,
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memoryMb),
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
    AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${fn.name}`,
    AWS_LAMBDA_LOG_STREAM_NAME: 'sim',
    // Sampled=0 below: the X-Ray SDK records nothing and sends nothing.
    AWS_XRAY_CONTEXT_MISSING: 'LOG_ERROR',
    AWS_XRAY_DAEMON_ADDRESS: '127.0.0.1:2000',
    _HANDLER: fn.handler,
    ...s.baseEnv,
    ...fn.environment,
  };
  delete env.NODE_PATH;

  function forward(stream: NodeJS.ReadableStream | null) {
    let buf = '';
    stream?.setEncoding('utf8');
    stream?.on('data', (c: string) => {
      buf += c;
      for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
        s.log(`[${fn.name}] ${buf.slice(0, nl)}`);
        buf = buf.slice(nl + 1);
      }
    });
  }

  function spawnEnvironment(): Environment {
    stats.coldStarts++;
    const child = fork(RUNTIME_CHILD, [], {
      cwd: taskRoot,
      env,
      // Not the parent's (tsx) flags. Lambda's Node.js runtime caps the heap below the memory size.
      execArgv: [`--max-old-space-size=${Math.max(64, Math.floor(fn.memoryMb * 0.9))}`],
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      serialization: 'json',
    });
    forward(child.stdout);
    forward(child.stderr);
    const e: Environment = { child, dead: false, ready: undefined as never };
    e.ready = new Promise((resolve) => {
      const onReady = (m: { type?: string; initMs?: number; error?: { errorType: string; errorMessage: string } }) => {
        if (m?.type !== 'ready') return;
        child.off('message', onReady);
        stats.initMs.push(m.initMs ?? 0);
        resolve({ initMs: m.initMs ?? 0, ...(m.error ? { error: m.error } : {}) });
      };
      child.on('message', onReady);
      child.once('exit', (code, signal) =>
        resolve({ initMs: 0, error: { errorType: 'Runtime.ExitError', errorMessage: `Runtime exited during init: ${signal ?? `exit status ${code}`}` } }),
      );
    });
    type ChildMessage = {
      type?: string;
      id?: string;
      result?: unknown;
      error?: { errorType: string; errorMessage: string };
      contentType?: string;
      data?: string;
    };
    child.on('message', (m: ChildMessage) => {
      if (!e.current || e.current.id !== m?.id) return;
      if (m.type === 'stream') e.current.pipe = e.current.stream(m.contentType ?? 'application/octet-stream');
      if (m.type === 'chunk') e.current.pipe?.write(Buffer.from(m.data ?? '', 'base64'));
      if (m.type !== 'result') return;
      const cur = e.current;
      e.current = undefined;
      if (!stopped && !e.dead) idle.push(e);
      if (m.error) cur.reject(new FunctionError(m.error.errorType, m.error.errorMessage));
      else cur.resolve(m.result);
    });
    child.once('exit', (code, signal) => {
      e.dead = true;
      all.delete(e);
      const i = idle.indexOf(e);
      if (i >= 0) idle.splice(i, 1);
      const cur = e.current;
      e.current = undefined;
      cur?.reject(
        new FunctionError(
          'Runtime.ExitError',
          `RequestId: ${cur.id} Error: Runtime exited with error: ${signal ? `signal: ${signal}` : `exit status ${code}`}`,
        ),
      );
    });
    all.add(e);
    return e;
  }

  async function invoke(payload: unknown): Promise<unknown> {
    if (stopped) throw new FunctionError('Runtime.ExitError', 'the simulation is stopping');
    stats.invocations++;
    const e = idle.pop() ?? spawnEnvironment();
    const id = randomUUID();
    const ready = await Promise.race([
      e.ready,
      new Promise<{ initMs: number; error: { errorType: string; errorMessage: string } }>((r) =>
        setTimeout(
          () => r({ initMs: INIT_LIMIT_MS, error: { errorType: 'Runtime.InitTimeout', errorMessage: `init exceeded ${INIT_LIMIT_MS} ms` } }),
          INIT_LIMIT_MS,
        ).unref(),
      ),
    ]);
    if (ready.error) {
      e.child.kill('SIGKILL');
      throw new FunctionError(ready.error.errorType, ready.error.errorMessage);
    }
    const timeoutMs = fn.timeoutS * 1000;
    return new Promise<unknown>((resolve, reject) => {
      // Once the answer streams, the outcome goes to the stream: its end, or its failure after the bytes so far.
      let settle = { resolve, reject };
      const timer = setTimeout(() => {
        if (e.current?.id !== id) return;
        stats.timeouts++;
        e.current = undefined;
        e.dead = true;
        e.child.kill('SIGKILL');
        settle.reject(new FunctionError('Sandbox.Timedout', `RequestId: ${id} Error: Task timed out after ${fn.timeoutS.toFixed(2)} seconds`));
      }, timeoutMs);
      e.current = {
        id,
        resolve: (v) => {
          clearTimeout(timer);
          settle.resolve(v);
        },
        reject: (err) => {
          clearTimeout(timer);
          settle.reject(err);
        },
        stream: (contentType) => {
          const pipe = new PassThrough();
          let failure: Error | undefined;
          const body = async function* (): AsyncGenerator<Uint8Array> {
            for await (const c of pipe) yield c as Buffer;
            if (failure) throw failure;
          };
          resolve(
            streamedResponse(contentType, body(), () => {
              if (e.current?.id === id && e.child.connected) e.child.send({ type: 'cancel', id });
            }),
          );
          settle = {
            resolve: () => pipe.end(),
            reject: (err) => {
              failure = err;
              pipe.end();
            },
          };
          return pipe;
        },
      };
      e.child.send({
        type: 'invoke',
        id,
        payload,
        deadline: Date.now() + timeoutMs,
        invokedFunctionArn: fn.arn,
        traceId: `Root=1-${Math.floor(Date.now() / 1000).toString(16)}-${randomBytes(12).toString('hex')};Parent=${randomBytes(8).toString('hex')};Sampled=0`,
      });
    });
  }

  async function recycle() {
    const exits = [...all].map((e) => new Promise<void>((r) => (e.dead ? r() : e.child.once('exit', () => r()))));
    for (const e of all) e.child.kill('SIGKILL');
    await Promise.all(exits);
  }

  async function stop() {
    stopped = true;
    await recycle();
  }

  return { fn, taskRoot, stats, invoke, recycle, stop };
}
