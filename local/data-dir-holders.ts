// Which local stack holds an embedded replica's data directory. chdb lets one process open a
// directory (a second one fails in every shard process with "Cannot lock file .../status"), so a
// stack leaves a holder file (its pid, then its URL) in each directory it serves: the next stack
// to start there can name the one that holds it, before it starts any shard process.
import fs from 'node:fs';
import path from 'node:path';

/** The holder file's name inside a data directory. */
export const HOLDER_FILE = '.ch-scatter-stack.json';

export interface DataDirHolder {
  pid: number;
  /** The holding stack's HTTP API; absent while it is still starting. */
  url?: string;
}

/** A data directory another live stack holds. */
export class DataDirHeldError extends Error {
  override name = 'DataDirHeldError';
  constructor(
    readonly dir: string,
    readonly holder: DataDirHolder,
  ) {
    super(`${dir} is in use by ${holder.url ? `the ch-scatter stack at ${holder.url}` : 'a ch-scatter stack still starting'} (pid ${holder.pid})`);
  }
}

export interface DataDirClaim {
  /** Record the stack's URL in every holder file, once it serves. */
  announce(url: string): void;
  /** Remove this stack's holder files. */
  release(): void;
}

/** Directories held by this process: its own pid in a file it did not write here means a stale file. */
const heldHere = new Set<string>();

/**
 * Claim every directory for this process, or throw DataDirHeldError naming the first one a live
 * stack holds (claiming none of them). A holder file whose process is gone is taken over.
 */
export function claimDataDirs(dirs: readonly string[]): DataDirClaim {
  const claimed: string[] = [];
  const release = () => {
    for (const dir of claimed.splice(0)) {
      heldHere.delete(dir);
      if (readHolder(dir)?.pid === process.pid) fs.rmSync(holderPath(dir), { force: true });
    }
  };
  try {
    for (const dir of new Set(dirs)) {
      claimOne(dir);
      claimed.push(dir);
    }
  } catch (e) {
    release();
    throw e;
  }
  return {
    announce: (url) => {
      for (const dir of claimed) writeHolder(dir, { pid: process.pid, url });
    },
    release,
  };
}

function claimOne(dir: string): void {
  if (heldHere.has(dir)) throw new DataDirHeldError(dir, readHolder(dir) ?? { pid: process.pid });
  fs.mkdirSync(dir, { recursive: true });
  // Twice at most: a stale file is removed once, and a stack that wins the race for it holds it.
  for (let tries = 0; tries < 2; tries++) {
    try {
      fs.writeFileSync(holderPath(dir), JSON.stringify({ pid: process.pid }), { flag: 'wx' });
      heldHere.add(dir);
      return;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const holder = readHolder(dir);
    if (holder && holder.pid !== process.pid && isAlive(holder.pid)) throw new DataDirHeldError(dir, holder);
    fs.rmSync(holderPath(dir), { force: true });
  }
  throw new DataDirHeldError(dir, readHolder(dir) ?? { pid: 0 });
}

function holderPath(dir: string): string {
  return path.join(dir, HOLDER_FILE);
}

/** The holder a file names; undefined when it is missing or unreadable (a stack killed mid-write). */
export function readHolder(dir: string): DataDirHolder | undefined {
  try {
    const h = JSON.parse(fs.readFileSync(holderPath(dir), 'utf8')) as Partial<DataDirHolder>;
    if (typeof h.pid !== 'number' || !Number.isInteger(h.pid) || h.pid <= 0) return undefined;
    return typeof h.url === 'string' ? { pid: h.pid, url: h.url } : { pid: h.pid };
  } catch {
    return undefined;
  }
}

/** Rewritten whole (a temporary file renamed over it), so a reader never sees half a file. */
function writeHolder(dir: string, holder: DataDirHolder): void {
  const tmp = `${holderPath(dir)}.${process.pid}`;
  fs.writeFileSync(tmp, JSON.stringify(holder));
  fs.renameSync(tmp, holderPath(dir));
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: the process exists under another user.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
