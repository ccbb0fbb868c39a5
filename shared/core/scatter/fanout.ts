// Parallel fan-out with a cap on requests in flight (backpressure). One limiter per
// query covers primaries, hedges and retries alike, so a wide query cannot open more than
// `maxConcurrency` invocations at once. A waiting task whose signal fires leaves the queue
// without ever being started.

/** A task for Limiter.submit: started when a slot is free, or abandoned if its signal fires while it waits. */
export interface LimiterTask {
  /** The slot is this task's: start the work, and call the limiter's release() once when it is over. */
  start(): void;
  /** The signal fired while the task waited for a slot: it never starts and holds no slot. */
  abandon(reason: unknown): void;
}

export interface Limiter {
  /** Run fn when a slot is free; rejects with the signal's reason if it aborts while queued. */
  run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  /**
   * run() without its promises, for the per-shard hot path (callShard): task.start() is called when
   * a slot is free (at once, synchronously, when one is), task.abandon() if `signal` fires first.
   * A started task must call release() exactly once.
   */
  submit(task: LimiterTask, signal?: AbortSignal): void;
  /** Give back the slot of a task started by submit(). */
  release(): void;
  readonly active: number;
  readonly queued: number;
}

export function createLimiter(max: number): Limiter {
  if (!(max >= 1)) throw new Error(`concurrency cap must be >= 1, got ${max}`);
  let active = 0;
  const waiting: Array<() => void> = [];

  function release() {
    active--;
    const next = waiting.shift();
    if (next) next();
  }

  function submit(task: LimiterTask, signal?: AbortSignal): void {
    if (signal?.aborted) {
      task.abandon(signal.reason ?? new Error('aborted'));
      return;
    }
    if (active < max) {
      // The common case (a free slot) adds no listener and no closure.
      active++;
      task.start();
      return;
    }
    const start = () => {
      signal?.removeEventListener('abort', onAbort);
      active++;
      task.start();
    };
    const onAbort = () => {
      const i = waiting.indexOf(start);
      if (i >= 0) waiting.splice(i, 1);
      task.abandon(signal?.reason ?? new Error('aborted'));
    };
    waiting.push(start);
    signal?.addEventListener('abort', onAbort, { once: true });
  }

  return {
    get active() {
      return active;
    },
    get queued() {
      return waiting.length;
    },
    submit,
    release,
    run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        submit(
          {
            start() {
              let p: Promise<T>;
              try {
                p = fn();
              } catch (e) {
                p = Promise.reject(e);
              }
              p.then(resolve, reject).finally(release);
            },
            abandon: reject,
          },
          signal,
        );
      });
    },
  };
}
