// Parallel fan-out with a cap on requests in flight (backpressure). One limiter per
// query covers primaries, hedges and retries alike, so a wide query cannot open more than
// `maxConcurrency` invocations at once. A waiting task whose signal fires leaves the queue
// without ever being started.

export interface Limiter {
  /** Run fn when a slot is free; rejects with the signal's reason if it aborts while queued. */
  run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T>;
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

  return {
    get active() {
      return active;
    },
    get queued() {
      return waiting.length;
    },
    run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        let queued = false;
        const start = () => {
          // Only a queued task listens for the signal: the common case (a free slot) adds no listener.
          if (queued) signal?.removeEventListener('abort', onAbort);
          active++;
          let p: Promise<T>;
          try {
            p = fn();
          } catch (e) {
            p = Promise.reject(e);
          }
          p.then(resolve, reject).finally(release);
        };
        const onAbort = () => {
          const i = waiting.indexOf(start);
          if (i >= 0) waiting.splice(i, 1);
          reject(signal?.reason ?? new Error('aborted'));
        };
        if (signal?.aborted) return reject(signal.reason ?? new Error('aborted'));
        if (active < max) start();
        else {
          waiting.push(start);
          queued = true;
          signal?.addEventListener('abort', onAbort, { once: true });
        }
      });
    },
  };
}
