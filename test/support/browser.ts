// Headless Chromium for the browser tests: Debian's `chromium` package (scripts/install-deps.sh
// installs it), driven by puppeteer-core, which never downloads a browser of its own.
import fs from 'node:fs';
import puppeteer, { type Browser } from 'puppeteer-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export async function launchChromium(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`no browser at ${CHROMIUM}: run \`bash scripts/install-deps.sh\` (Debian's chromium), or set CHROMIUM_PATH`);
  return puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    // root in CI: Chromium's sandbox needs user namespaces it may not have; /dev/shm can be small.
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--font-render-hinting=none'],
  });
}
