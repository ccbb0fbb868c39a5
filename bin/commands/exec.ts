// `ch-scatter exec (--config FILE | --url URL) "SQL"`: one statement (DDL, INSERT ... SELECT, ...)
// on every replica of every shard. --url uses a running local stack's POST /admin/exec; --config
// starts temporary shard processes for embedded replicas (the directories must not be in use by
// a running `ch-scatter dev`) and stops them afterwards.
import { parseArgs, type FlagSpec } from '../args.js';
import { errorLine, postJson, targetOf, loadConfig } from '../api-client.js';

export const summary = 'run a statement on every replica of every shard (local stack admin route; --config starts temporary shard processes)';
export const usage = 'exec (--config FILE | --url URL) "SQL"';
export const flags: FlagSpec = { config: 'string', url: 'string' };

interface ExecReply {
  ok: boolean;
  replicas: Array<{ shard: number; replica: number; ok: boolean; error?: string }>;
}

export async function run(args: string[]): Promise<number> {
  const p = parseArgs(args, flags, usage);
  const target = targetOf(p.flags);
  const sql = p.positionals.join(' ').trim();
  if (typeof target === 'string' || !sql) {
    console.error(typeof target === 'string' ? target : 'missing the statement to run');
    console.error(`usage: ch-scatter ${usage}`);
    return 2;
  }
  let res: { status: number; body: unknown };
  if (target.url) res = await postJson(`${target.url}/admin/exec`, { sql });
  else {
    const { startLocalStack } = await import('../../local/stack.js');
    const stack = await startLocalStack({ topo: loadConfig(target), logLevel: 'ERROR' });
    try {
      res = await postJson(`${stack.url}/admin/exec`, { sql });
    } finally {
      await stack.stop();
    }
  }
  const r = res.body as Partial<ExecReply>;
  if (!Array.isArray(r.replicas)) {
    console.error(errorLine(res.body));
    return 1;
  }
  for (const x of r.replicas) console.log(`shard ${x.shard} replica ${x.replica}: ${x.ok ? 'ok' : `FAILED: ${x.error}`}`);
  return r.ok ? 0 : 1;
}
