#!/usr/bin/env node
// The CLI entry. It registers tsx so the TypeScript sources run without a build step
// (`npx ch-scatter --help` works right after `npm install`), then hands over to cli.ts.
import { register } from 'tsx/esm/api';

// A reader that stops early (`... | head`) closes the pipe: stop quietly instead of with a stack trace.
process.stdout.on('error', (e) => {
  if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw e;
});

register();
const { main } = await import('./cli.ts');
process.exitCode = await main(process.argv.slice(2));
