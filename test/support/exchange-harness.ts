// The general path over real shard functions with an exchange, for the exchange's tests on chdb and
// on 18.16: one runner that records what was sent and answered and can act just before the final
// stage is asked (to cut an object), and the objects the local exchange server holds on disk.
import fs from 'node:fs';
import path from 'node:path';
import type { Topology } from '../../shared/core/config/schema.js';
import { planTwoStage } from '../../shared/core/plan/two-stage/plan.js';
import type { ShardCancelRequest, ShardRequest, ShardResponse, WireExchangeRef } from '../../shared/core/protocol/shard-wire.js';
import type { ExchangeCleaner } from '../../shared/core/shard/exchange.js';
import { computeDeadline } from '../../shared/core/scatter/deadline.js';
import { createHedgeState } from '../../shared/core/scatter/hedge.js';
import type { ShardInvoker } from '../../shared/core/scatter/invoker.js';
import { runGeneralQuery, type GeneralResult } from '../../shared/core/scatter/two-stage/index.js';
import { parseSelect } from '../../shared/core/sql/parse.js';

export type ShardFn = (payload: unknown) => Promise<ShardResponse>;

export interface GeneralRun {
  result: GeneralResult;
  sent: ShardRequest[];
  answers: ShardResponse[];
  /** Cancel invocations of the shard functions (a hedge loser, kept rows to drop). */
  cancels: ShardCancelRequest[];
}

export interface GeneralRunOptions {
  requireComplete?: boolean;
  /** Called once, with the first final-stage request, before it is sent. */
  beforeFinal?: (final: ShardRequest) => void;
  queryId?: string;
  timeoutMs?: number;
  /** The coordinator's deleter of the query's exchange objects. */
  exchange?: ExchangeCleaner;
}

export async function runGeneralOver(fns: readonly ShardFn[], topo: Topology, sql: string, opts: GeneralRunOptions = {}): Promise<GeneralRun> {
  const sent: ShardRequest[] = [];
  const answers: ShardResponse[] = [];
  const cancels: ShardCancelRequest[] = [];
  let finalSeen = false;
  const invoker: ShardInvoker = {
    invoke: async (shard, payload) => {
      sent.push(payload);
      if (payload.tables && !finalSeen) {
        finalSeen = true;
        opts.beforeFinal?.(payload);
      }
      const r = await fns[shard]!(payload);
      answers.push(r);
      return r;
    },
    cancel: async (shard, payload) => {
      cancels.push(payload);
      return fns[shard]!(payload);
    },
  };
  const queryId = opts.queryId ?? `q-x-${Math.random().toString(16).slice(2)}`;
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const deps = { topo, invoker, hedgeState: createHedgeState(), queryId, ...(opts.exchange ? { exchange: opts.exchange } : {}) };
  const result = await runGeneralQuery(deps, planTwoStage(parseSelect(sql), topo), {
    deadline: computeDeadline({ now: Date.now(), requestTimeoutMs: timeoutMs, configTimeoutMs: timeoutMs, behindApiGateway: false }),
    requireComplete: opts.requireComplete ?? true,
    hedge: { enabled: false, afterQuantile: 0.95, maxExtraPercent: 5 },
  }).catch((e: unknown) => {
    // What the shards said, for a failure that only names them.
    const failures = answers.flatMap((a) => (a.ok ? [] : [`shard ${a.shard}: ${a.error.code} ${a.error.message}`]));
    if (e instanceof Error && failures.length > 0) e.message += ` [shard failures: ${failures.join(' | ')}]`;
    throw e;
  });
  return { result, sent, answers, cancels };
}

/** The exchange references stage one answered with. */
export const exchangedOf = (answers: readonly ShardResponse[]): WireExchangeRef[] => answers.flatMap((a) => (a.ok && a.exchanged ? [a.exchanged] : []));

/** Object files in s3rver's directory (each stored object is one file with this suffix). */
export function storedObjects(directory: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('._S3rver_object')) out.push(p);
    }
  };
  walk(directory);
  return out;
}

/** The file holding the object under `key`. */
export function objectFile(directory: string, key: string): string | undefined {
  const dir = path.join(...key.split('/').slice(0, -1));
  const name = key.split('/').pop()!;
  return storedObjects(directory).find((f) => f.includes(dir) && path.basename(f).startsWith(name));
}

/** Cut the object in half on disk, or remove it: what the final stage then reads is not whole. */
export function damageObject(directory: string, key: string, how: 'cut mid-way' | 'deleted'): void {
  const file = objectFile(directory, key);
  if (!file) throw new Error(`no stored object for ${key}`);
  if (how === 'deleted') fs.rmSync(file);
  else fs.truncateSync(file, Math.floor(fs.statSync(file).size / 2));
}
