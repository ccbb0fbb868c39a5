// Time this process's main thread spent runnable but waiting for a CPU (Linux
// /proc/self/schedstat, field 2, in ns), in ms; 0 where the file does not exist. Deadline tests
// allow a request this much past its margin: no deadline logic can answer while its process is not
// scheduled. Unlike an event-loop ticker, it does not excuse the process's own work (a long merge
// that blocks the loop is running, not waiting), so it cannot hide a late merge.
import fs from 'node:fs';

export function runqueueWaitMs(): number {
  try {
    return Number(fs.readFileSync('/proc/self/schedstat', 'utf8').split(' ')[1]) / 1e6;
  } catch {
    return 0;
  }
}
