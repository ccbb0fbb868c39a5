// The CLI side of the HTTP API, shared by query/explain/exec: where the command's answer comes from. --url talks to a running
// stack (local or API Gateway); --config starts what it needs in-process and stops it afterwards.
import { loadTopology } from '../shared/core/config/load.js';
import type { Topology } from '../shared/core/config/schema.js';

export interface Target {
  url?: string;
  configFile?: string;
}

export function targetOf(flags: Record<string, string | true>): Target | string {
  const url = typeof flags.url === 'string' ? flags.url.replace(/\/+$/, '') : undefined;
  const configFile = typeof flags.config === 'string' ? flags.config : undefined;
  if (!!url === !!configFile) return 'give exactly one of --config FILE or --url URL';
  return { url, configFile };
}

export function loadConfig(t: Target): Topology {
  return loadTopology(t.configFile!);
}

export async function postJson(url: string, body: unknown): Promise<{ status: number; body: unknown }> {
  let res: Response;
  try {
    res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  } catch (e) {
    throw new Error(`cannot reach ${url}: ${(e as Error).cause ? String((e as Error & { cause: unknown }).cause) : (e as Error).message}`);
  }
  const text = await res.text();
  try {
    return { status: res.status, body: JSON.parse(text) as unknown };
  } catch {
    throw new Error(`${url} answered ${res.status} with non-JSON: ${text.slice(0, 200)}`);
  }
}

export function errorLine(body: unknown): string {
  const e = (body as { error?: { code?: string; message?: string; position?: { line: number; column: number } } })?.error;
  if (!e) return JSON.stringify(body);
  const pos = e.position && !String(e.message).includes('(line ') ? ` (line ${e.position.line}, column ${e.position.column})` : '';
  return `${e.code ?? 'ERROR'}: ${e.message ?? ''}${pos}`;
}
