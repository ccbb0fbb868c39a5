// GET /play: the web console, one self-contained HTML file (its script and style inline, no build
// step, nothing fetched from elsewhere). It is served only when CH_SCATTER_PLAY_PAGE names the file:
// the local stack always sets it, a deployment only with the `play` deploy option (which ships the
// file next to the handler). The page is sent with a Content-Security-Policy that allows exactly its
// own inline script and style (by hash) and requests to this same origin, so even a value that
// slipped into markup could not run as script.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

export const PLAY_PAGE_ENV = 'CH_SCATTER_PLAY_PAGE';

export interface PlayPage {
  html: string;
  csp: string;
}

function hashes(html: string, tag: 'script' | 'style'): string[] {
  const re = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g');
  return [...html.matchAll(re)].map((m) => `'sha256-${createHash('sha256').update(m[1]!, 'utf8').digest('base64')}'`);
}

/** The Content-Security-Policy for a page: its own inline blocks by hash, fetches to its own origin only. */
export function contentSecurityPolicy(html: string): string {
  return [
    "default-src 'none'",
    `script-src ${hashes(html, 'script').join(' ') || "'none'"}`,
    `style-src ${hashes(html, 'style').join(' ') || "'none'"}`,
    "connect-src 'self'",
    "img-src 'self' data:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * The page named by CH_SCATTER_PLAY_PAGE (relative names resolve against the function's own
 * directory, LAMBDA_TASK_ROOT in Lambda), read once; undefined when the variable is unset.
 */
export function playPageFromEnv(env: NodeJS.ProcessEnv): (() => PlayPage) | undefined {
  const name = env[PLAY_PAGE_ENV];
  if (!name) return undefined;
  const file = path.isAbsolute(name) ? name : path.join(env.LAMBDA_TASK_ROOT ?? process.cwd(), name);
  let page: PlayPage | undefined;
  return () => {
    if (!page) {
      const html = readFileSync(file, 'utf8');
      page = { html, csp: contentSecurityPolicy(html) };
    }
    return page;
  };
}

export function playResponse(page: PlayPage, headers: Record<string, string> = {}): APIGatewayProxyStructuredResultV2 {
  return {
    statusCode: 200,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': page.csp,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-cache',
      ...headers,
    },
    body: page.html,
  };
}
