// Which shard failures are the query's fault rather than the shard's, and the client error they become.
import { ScatterError } from '../errors.js';
import { classOf, clickHouseErrorName, isQueryFault, withoutQueryText } from '../clickhouse/error-codes.js';
import type { ShardOutcome } from './call-shard.js';
import type { SelectStatement } from '../sql/ast.js';
import { walkStatement, fromTables } from '../sql/visit.js';
import { positionOf } from '../plan/position.js';

/**
 * A failure that means "this query is wrong, or over a limit of its own", whatever the replica:
 * a user or limit class ClickHouse code (shared/core/clickhouse/error-codes.ts). Such a failure on any
 * shard makes the whole answer a 400 (as a Distributed query would fail), never a quietly partial result.
 */
export function isQueryFailure(o: { status: string; chCode?: number; message?: string }): boolean {
  return o.status === 'error' && o.chCode !== undefined && isQueryFault(o.chCode, o.message);
}

/**
 * A shard's message as a client may read it: "replica 0 (primary): Code: 47 ... in scope <shard SQL>"
 * -> "Code: 47 ...", without the replica and without the query the engine quotes (the rewrite, with
 * the runtime's settings, never the user's SQL).
 */
export function clientShardMessage(m: string): string {
  return withoutQueryText(m.replace(/^replica \d+ \([a-z]+\): /, '').split('; replica ')[0]!);
}

/** 400 QUERY_ERROR or LIMIT_EXCEEDED naming ClickHouse's code and name, with the shards summary. */
export function queryFailureError(bad: Pick<ShardOutcome, 'shard' | 'chCode' | 'message'>, details: Record<string, unknown>): ScatterError {
  const code = bad.chCode!;
  const name = clickHouseErrorName(code);
  const limit = classOf(code, bad.message) === 'limit';
  const what = limit ? `the query exceeded a limit on shard ${bad.shard}` : `ClickHouse rejected the query on shard ${bad.shard}`;
  return new ScatterError(limit ? 'LIMIT_EXCEEDED' : 'QUERY_ERROR', `${what} (ClickHouse error ${code} ${name}): ${clientShardMessage(bad.message ?? '')}`, {
    details: { clickhouse: { code, name }, ...details },
  });
}

// The name an engine says it does not know, or the function a type error is in: ClickHouse 26 (`Unknown expression identifier `x``,
// `Function with name `f` does not exist`), older servers (`Missing columns: 'x'`, `Unknown identifier: x`).
const UNKNOWN_NAME: readonly [RegExp, 'column' | 'function'][] = [
  [/Unknown (?:expression |table expression |expression or function )?identifier `([^`]+)`/, 'column'],
  [/Missing columns: '([^']+)'/, 'column'],
  [/Unknown identifier: ([\w.]+)/, 'column'],
  [/Function with name `([^`]+)` does not exist/, 'function'],
  [/Unknown function ([\w]+)/, 'function'],
  // A type error names the function it is in (43: `Illegal types Date and String of arguments of function plus`).
  [/of arguments? (?:of|for) (?:aggregate )?function `?(\w+)`?/, 'function'],
];

/**
 * A shard's refusal of a name (47 unknown column, 46 unknown function) or of a function's argument types
 * (43) with the position of that name in the user's SQL, which the engine cannot give (it saw the
 * rewrite); other errors as they are.
 */
export function atUserPosition(e: unknown, stmt: SelectStatement | undefined): unknown {
  if (!(e instanceof ScatterError) || e.code !== 'QUERY_ERROR' || e.position || !stmt) return e;
  const older = syntaxErrorAtNewer(e, stmt);
  if (older) return older;
  for (const [re, kind] of UNKNOWN_NAME) {
    const name = re.exec(e.message)?.[1];
    if (name === undefined) continue;
    let at: ReturnType<typeof positionOf>;
    walkStatement(
      stmt,
      (x) => {
        if (at) return false;
        const hit =
          kind === 'column'
            ? x.kind === 'column' && (x.parts.join('.') === name || x.parts[x.parts.length - 1] === name)
            : // A leaf runs an aggregate as its state (`sumState`): the user wrote `sum`.
              x.kind === 'function' && (x.name === name || x.name === name.replace(/(State|Merge)$/, ''));
        if (hit) at = positionOf(x);
      },
      { subqueries: true },
    );
    if (!at) return e;
    return new ScatterError(e.code, `${e.message} (line ${at.line}, column ${at.column})`, {
      position: at,
      status: e.status,
      ...(e.details ? { details: e.details } : {}),
    });
  }
  return e;
}

/**
 * An engine's syntax error (62) on a statement with a construct older engines predate (WITH RECURSIVE,
 * PASTE JOIN: 18.16 has neither), as its own Distributed table would answer; named at the user's
 * construct, never quoting the rewrite. Any other 62 (ILIKE, OVER, ... on 18.16) is placed by atFailedToken.
 */
export function olderEngineSyntaxError(e: unknown, stmt: SelectStatement | undefined): unknown {
  return (e instanceof ScatterError && stmt && syntaxErrorAtNewer(e, stmt)) || e;
}

function syntaxErrorAtNewer(e: ScatterError, stmt: SelectStatement): ScatterError | undefined {
  if ((e.details?.clickhouse as { code?: number } | undefined)?.code !== 62) return undefined;
  let found: { what: string; at: NonNullable<ReturnType<typeof positionOf>> } | undefined;
  const note = (what: string, node: Parameters<typeof positionOf>[0]): void => {
    const at = positionOf(node);
    if (!found && at) found = { what, at };
  };
  const visit = (s: SelectStatement): void => {
    for (const q of s.kind === 'union' ? s.selects : [s]) {
      if (q.withRecursive) note('WITH RECURSIVE', q);
      for (const j of q.from?.joins ?? []) if (j.type === 'PASTE') note('PASTE JOIN', j);
      for (const w of q.with ?? []) if (!found && w.expr.kind === 'subquery') visit(w.expr.query);
      for (const t of fromTables(q)) if (!found && t.kind === 'subqueryTable') visit(t.query);
    }
    walkStatement(s, (x) => {
      if (!found && x.kind === 'subquery') visit(x.query);
      return found ? false : undefined;
    });
  };
  visit(stmt);
  if (!found) return atFailedToken(e, stmt);
  const { what, at } = found;
  return new ScatterError(
    e.code,
    `Syntax error: the engine that runs this query does not parse ${what} (ClickHouse error 62 SYNTAX_ERROR) (line ${at.line}, column ${at.column})`,
    { position: at, status: e.status, ...(e.details ? { details: e.details } : {}) },
  );
}

/**
 * Another engine syntax error, whose offset was the rewrite's (withoutQueryText kept only the word it failed at):
 * placed at the user's call of that name (`ILIKE` is the function ilike), else at the statement.
 */
function atFailedToken(e: ScatterError, stmt: SelectStatement): ScatterError {
  const word = /failed at ([A-Za-z]\w*)/.exec(e.message)?.[1]?.toLowerCase();
  let call: ReturnType<typeof positionOf>;
  if (word !== undefined)
    walkStatement(
      stmt,
      (x) => {
        if (!call && x.kind === 'function' && x.name.toLowerCase() === word) call = positionOf(x);
        return call ? false : undefined;
      },
      { subqueries: true },
    );
  const at = call ?? positionOf(stmt);
  if (!at) return e;
  return new ScatterError(e.code, `${e.message} (line ${at.line}, column ${at.column})`, {
    position: at,
    status: e.status,
    ...(e.details ? { details: e.details } : {}),
  });
}
