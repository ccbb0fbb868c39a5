// A process's peak memory as the kernel counts it: VmHWM, the high-water mark of its resident set
// (heap, buffers, WebAssembly memory and code alike, the nearest a local process comes to Lambda's
// "Max Memory Used"), reset by writing 5 to /proc/<pid>/clear_refs. No sampling interval to miss a
// peak between samples. Linux only.
import { readFileSync, writeFileSync } from 'node:fs';

function statusKb(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${field}:`));
  if (!line) throw new Error(`/proc/${pid}/status has no ${field}`);
  return Number(/(\d+)\s*kB/.exec(line)![1]);
}

const mb = (kb: number) => Math.round((kb / 1024) * 10) / 10;

/** Start counting `pid`'s peak again from now; its resident MB at this moment. */
export function resetPeak(pid: number): number {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
  return mb(statusKb(pid, 'VmRSS'));
}

/** `pid`'s peak resident MB since the last resetPeak (or its start). */
export function peakMb(pid: number): number {
  return mb(statusKb(pid, 'VmHWM'));
}
