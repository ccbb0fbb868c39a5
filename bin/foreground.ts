// The foreground commands (`dev`, `sim`) serve until SIGINT or SIGTERM, then stop what they
// started: exit status 0 when it stopped cleanly, 1 when stopping failed.
export function serveUntilSignal(stop: () => Promise<void>): Promise<number> {
  return new Promise<number>((resolve) => {
    let stopping = false;
    const shutdown = (sig: NodeJS.Signals) => {
      if (stopping) return;
      stopping = true;
      process.stderr.write(`${sig}: stopping...\n`);
      stop().then(
        () => resolve(0),
        (e: unknown) => {
          process.stderr.write(`stop failed: ${(e as Error).message}\n`);
          resolve(1);
        },
      );
    };
    process.once('SIGINT', shutdown);
    process.once('SIGTERM', shutdown);
  });
}
