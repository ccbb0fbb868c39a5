// The oracle harness: run every corpus query on the system under test and on a reference (one node
// holding every row), and compare the answers as ClickHouse gives them (compare.ts).
//
//   runOracle(corpus, runDistributed, reference)  -> one outcome per query
//
// Runners turn SQL (over the Distributed names) into an Answer. Provided here:
//   singleNodeRunner(engine)   a chdb JSON engine holding every row under the local names
//   http18Runner(url, rename)  an 18.16 server (Distributed tables, or every row under other names)
//   queryApiRunner(url)        POST /query of a ch-scatter stack (local or deployed)
import type { ColumnMeta } from '../../shared/core/clickhouse/port.js';
import { quoteInexactNumbers } from '../../shared/core/protocol/exact-json.js';
import type { JsonEngine } from '../support/json-engine/json-engine.js';
import { type Answer, compareAnswers } from './compare.js';
import type { OracleQuery } from './corpus-types.js';
import { type OracleTable, toLocalNames } from './schema.js';

export type { Answer };
export type Runner = (sql: string) => Promise<Answer>;

export interface Outcome {
  id: string;
  ok: boolean;
  /** Why not: the difference, or the error of the side that failed. */
  problem?: string;
  ms: number;
}

export interface OracleReport {
  outcomes: Outcome[];
  failed: Outcome[];
}

/**
 * The output settings under which an answer is exact as text: 64-bit integers, Decimals and
 * nan/inf quoted (as JSON numbers or null they would lose digits or meaning).
 */
export const EXACT_JSON_SETTINGS = {
  output_format_json_quote_64bit_integers: 1,
  output_format_json_quote_denormals: 1,
  output_format_json_quote_decimals: 1,
} as const;

/** 18.16 knows no output_format_json_quote_decimals (its JSON Decimals are numbers: compare.ts reads them through the type). */
export const EXACT_JSON_SETTINGS_18 = {
  output_format_json_quote_64bit_integers: 1,
  output_format_json_quote_denormals: 1,
} as const;

const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e)).split('\n')[0]!.slice(0, 400);

export async function runOracle(
  corpus: readonly OracleQuery[],
  runDistributed: Runner,
  reference: Runner,
  opts: { concurrency?: number } = {},
): Promise<OracleReport> {
  const outcomes: Outcome[] = new Array(corpus.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < corpus.length; i = next++) {
      const c = corpus[i]!;
      const t0 = performance.now();
      const [got, want] = await Promise.allSettled([runDistributed(c.sql), reference(c.sql)]);
      let problem: string | undefined;
      if (want.status === 'rejected') problem = `the reference failed: ${errorText(want.reason)}`;
      else if (got.status === 'rejected') problem = `the distributed run failed: ${errorText(got.reason)}`;
      else problem = compareAnswers(got.value, want.value, { ordered: c.ordered === true, floatTolerance: c.tolerance?.rel });
      outcomes[i] = { id: c.id, ok: problem === undefined, ms: performance.now() - t0, ...(problem ? { problem } : {}) };
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, opts.concurrency ?? 4) }, worker));
  return { outcomes, failed: outcomes.filter((x) => !x.ok) };
}

/** A readable list of failures (for an assertion message). */
export function describeFailures(r: OracleReport): string {
  return r.failed.map((f) => `${f.id}: ${f.problem}`).join('\n');
}

/** A JSON answer (ClickHouse's or the JSON API's) as the comparer reads it. */
export const answerOf = (body: {
  meta: ColumnMeta[];
  data: Record<string, unknown>[];
  totals?: Record<string, unknown>;
  extremes?: Answer['extremes'];
}): Answer => ({
  meta: body.meta.map((m) => ({ name: m.name, type: m.type })),
  rows: body.data,
  ...(body.totals !== undefined ? { totals: body.totals } : {}),
  ...(body.extremes !== undefined ? { extremes: body.extremes } : {}),
});

/** The reference: a chdb engine holding every row (under the local names, or `rename`'s). Call once: it SETs the exact output settings. */
export async function singleNodeRunner(engine: JsonEngine, rename?: (t: OracleTable) => string): Promise<Runner> {
  await engine.set(EXACT_JSON_SETTINGS);
  return async (sql) => answerOf(await engine.json(toLocalNames(sql, rename)));
}

/** An 18.16 server over HTTP: as written (its Distributed tables), or renamed to tables holding every row. */
export function http18Runner(url: string, rename?: (t: OracleTable) => string, settings: Record<string, string | number> = {}): Runner {
  return async (sql) => {
    const qs = new URLSearchParams(Object.entries({ ...EXACT_JSON_SETTINGS_18, ...settings }).map(([k, v]): [string, string] => [k, String(v)]));
    const text = rename ? toLocalNames(sql, rename) : sql;
    const res = await fetch(`${url}/?${qs}`, { method: 'POST', body: `${text}\nFORMAT JSON` });
    const body = await res.text();
    if (!res.ok) throw new Error(`18.16: ${body.trim()}`);
    // 18.16 cannot quote Decimals: read numbers a double would round as their own digits, so the
    // reference keeps every digit it was given.
    return answerOf(JSON.parse(quoteInexactNumbers(body)));
  };
}

/**
 * THE ENTRY FOR THE GENERAL PATH: a Runner over a ch-scatter stack's `POST /query` (the local
 * stack's URL, or a deployed API). A non-200 answer fails the query with the error code and message.
 * `body` adds request fields (timeoutMs, settings, requireComplete, ...).
 */
export function queryApiRunner(baseUrl: string, body: Record<string, unknown> = {}): Runner {
  return async (sql) => {
    const res = await fetch(`${baseUrl}/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ requireComplete: true, ...body, sql }),
    });
    const text = await res.text();
    let parsed: any;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new Error(`HTTP ${res.status}: ${text.slice(0, 200)}`);
    }
    if (res.status !== 200) throw new Error(`HTTP ${res.status} ${parsed?.error?.code}: ${parsed?.error?.message}`);
    return {
      ...answerOf(parsed),
      partial: parsed.partial === true,
      ...(parsed.truncated ? { truncated: parsed.truncated } : {}),
      ...(parsed.shards?.missing ? { missing: parsed.shards.missing } : {}),
    };
  };
}

/**
 * An answer of a query under a truncating overflow mode (asked without completeness): it must be
 * partial for that reason alone (every shard answered, every `truncated` entry an overflow mode's),
 * and is then compared for its rows.
 */
export function truncatedAnswer(a: Answer): Answer {
  const marks = a.truncated ?? [];
  if (!a.partial || marks.length === 0 || !marks.every((t) => /_overflow_mode = '(break|any)'/.test(t)) || (a.missing?.length ?? 0) > 0)
    throw new Error(
      `a truncating overflow mode's answer must say truncated and nothing else: ${JSON.stringify({ partial: a.partial, marks, missing: a.missing })}`,
    );
  return { ...a, partial: false };
}
