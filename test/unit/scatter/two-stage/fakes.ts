// Fakes for the general path's runtime: an invoker whose stage-one and final-stage answers are
// scripted per (shard, replica), and hand-written two-stage plans (what the planner produces for
// real queries). The bytes are ClickHouse's TabSeparatedWithNamesAndTypes as the shards write it.
import type { ShardResponse } from '../../../../shared/core/protocol/shard-wire.js';
import { InvokeError, type ShardInvoker } from '../../../../shared/core/scatter/invoker.js';
import type { RawShardRequest } from '../../../../shared/core/scatter/two-stage/wire.js';
import type { TwoStagePlan } from '../../../../shared/core/plan/two-stage/types.js';
import { parseSelect } from '../../../../shared/core/sql/parse.js';
import type { SelectQuery } from '../../../../shared/core/sql/ast.js';

export type Answer =
  | { kind: 'raw'; bytes: Buffer; delayMs?: number }
  | { kind: 'failure'; errKind: 'timeout' | 'error' | 'unavailable' | 'cancelled'; message?: string; chCode?: number; code?: string; delayMs?: number }
  | { kind: 'throw'; error: Error; delayMs?: number }
  | { kind: 'hang' };

export interface Call {
  shard: number;
  replica: number;
  final: boolean;
  payload: RawShardRequest;
  at: number;
}

export interface ScriptedInvoker extends ShardInvoker {
  calls: Call[];
}

export function scriptedInvoker(script: {
  stageOne(shard: number, replica: number, p: RawShardRequest): Answer;
  final(shard: number, replica: number, p: RawShardRequest): Answer;
}): ScriptedInvoker {
  const calls: Call[] = [];
  return {
    calls,
    invoke(shard, payload, signal): Promise<ShardResponse> {
      const p = payload as RawShardRequest;
      const final = p.tables !== undefined;
      calls.push({ shard, replica: p.replica, final, payload: p, at: Date.now() });
      const a = final ? script.final(shard, p.replica, p) : script.stageOne(shard, p.replica, p);
      return new Promise((resolve, reject) => {
        const onAbort = () => {
          clearTimeout(timer);
          reject(new InvokeError('aborted', 'aborted'));
        };
        signal.addEventListener('abort', onAbort, { once: true });
        const timer = setTimeout(
          () => {
            signal.removeEventListener('abort', onAbort);
            if (a.kind === 'raw' && p.format === undefined)
              // A fast-path request: no rows (the fast path's own merges are tested elsewhere).
              resolve({ ok: true, shard, replica: p.replica, meta: [], rows: [], statistics: { elapsedMs: 1, rowsRead: 0, bytesRead: 0 } });
            else if (a.kind === 'raw')
              resolve({
                ok: true,
                shard,
                replica: p.replica,
                meta: [],
                rows: [],
                raw: a.bytes.toString('base64'),
                statistics: { elapsedMs: 1, rowsRead: 100, bytesRead: 1000 },
              } as ShardResponse);
            else if (a.kind === 'failure')
              resolve({
                ok: false,
                shard,
                replica: p.replica,
                error: {
                  kind: a.errKind,
                  message: a.message ?? a.errKind,
                  ...(a.chCode !== undefined ? { chCode: a.chCode } : {}),
                  ...(a.code ? { code: a.code } : {}),
                },
              });
            else if (a.kind === 'throw') reject(a.error);
          },
          a.kind === 'hang' ? 1e9 : (a.delayMs ?? 0),
        );
      });
    },
  };
}

/** TabSeparatedWithNamesAndTypes bytes: header lines, then rows (values already escaped). */
export function tsv(columns: [string, string][], rows: string[][]): Buffer {
  const lines = [columns.map((c) => c[0]).join('\t'), columns.map((c) => c[1]).join('\t'), ...rows.map((r) => r.join('\t'))];
  return Buffer.from(`${lines.join('\n')}\n`, 'utf8');
}

export const STATE_COLUMNS: [string, string][] = [
  ['_k0', 'String'],
  ['_a0', 'AggregateFunction(uniq, String)'],
];

/** A site's rows as one shard would answer `SELECT site AS _k0, uniqState(sensor) AS _a0 ... GROUP BY site`. */
export function stateRows(shard: number, sites: string[]): string[][] {
  return sites.map((s) => [s, `\\0\\x${shard}\\t${s}`]);
}

export function json(meta: [string, string][], data: Record<string, unknown>[], extra: Record<string, unknown> = {}): Buffer {
  return Buffer.from(JSON.stringify({ meta: meta.map(([name, type]) => ({ name, type })), data, rows: data.length, ...extra }));
}

/** The two-stage plan of `SELECT site, uniq(sensor) FROM db.t_dist GROUP BY site ORDER BY site`. */
export function uniqPlan(): TwoStagePlan {
  return {
    leaves: [{ name: '_stage0', query: parseSelect('SELECT site AS _k0, uniqState(sensor) AS _a0 FROM db.t_dist GROUP BY site') as SelectQuery }],
    finalSql: 'SELECT _k0 AS site, uniqMerge(_a0) AS `uniq(sensor)` FROM _stage0 GROUP BY _k0 ORDER BY _k0',
    notes: ['uniq(sensor) travels as uniqState and is merged by ClickHouse: identical to a single server'],
  };
}

export const FINAL_OK = json(
  [
    ['site', 'String'],
    ['uniq(sensor)', 'UInt64'],
  ],
  [{ site: 'a', 'uniq(sensor)': '3' }],
  { totals: { site: '', 'uniq(sensor)': '9' } },
);
