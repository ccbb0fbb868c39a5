// ClickHouse's numeric error codes, by name, and whose fault each one is. The one table every
// path that receives a ClickHouse error reads (the shard runtime, the coordinator's answer, a
// ClickHouse-compatible HTTP interface), so that a code is never a user error on one path and a
// broken shard on another.
//
// Classes:
//  - 'user':      the query is wrong whatever the data or the replica (syntax, unknown names, types,
//                 FINAL/SAMPLE on a table that cannot, column counts). Deterministic: no other
//                 replica is tried, the answer is 400 QUERY_ERROR naming the code.
//  - 'limit':     the query went over a limit that applies to it (one the user set, such as
//                 max_memory_usage or max_rows_to_group_by, or its speed estimate against the
//                 deadline: TOO_SLOW). Also deterministic and the user's to fix: 400 LIMIT_EXCEEDED.
//  - 'timeout':   the shard's deadline fired (max_execution_time is the time left): the shard is late,
//                 the answer partial (or 504 when completeness is required).
//  - 'cancelled': the query was KILLed (by ch-scatter, at the deadline).
//  - 'server':    the replica or the cluster is at fault (missing table, credentials, overload,
//                 network, bugs): another replica may answer; a shard that cannot is missing (502 when
//                 none answers). Every code not in the table is 'server'.
// Names are ClickHouse's own (src/Common/ErrorCodes.cpp), so an error can be reported as
// ClickHouse reports it: `Code: 181 ... (ILLEGAL_FINAL)`.

export type ClickHouseErrorClass = 'user' | 'limit' | 'timeout' | 'cancelled' | 'server';

// The code in an error's text, in every form we meet: 18.16 (`Code: 60, e.displayText() = DB::Exception:
// ...`), newer servers and chdb (`Code: 60. DB::Exception: ...`), or quoted inside another message.
const CODE_PATTERNS = [/^\s*Code: (\d+), e\.displayText\(\) = /, /^\s*Code: (\d+)\. /, /Code: (\d+)[.,] /];

export function parseClickHouseCode(message: string): number | undefined {
  for (const re of CODE_PATTERNS) {
    const m = re.exec(message);
    if (m) return Number(m[1]);
  }
  return undefined;
}

/**
 * An engine's message without the query it quotes: that is ch-scatter's rewrite of the user's query
 * (shard SQL, the final stage, the runtime's SETTINGS: readonly, deadline, read caps), not what the
 * user sent. ClickHouse quotes it as `in scope <query>` (before a "Maybe you meant" hint, if any)
 * and, in older releases, `while processing query: '<query>'`.
 */
export function withoutQueryText(message: string): string {
  return withoutSyntaxQuote(
    message.replace(/,?\s+[Ii]n scope [\s\S]*?(?=\. Maybe you meant|$)/, '').replace(/,?\s*while processing query: '(?:[^'\\]|\\.)*'/, ''),
  );
}

// A syntax error (62) quotes the text from where it failed, after its offset in that text:
// `failed at position 38 (ILIKE) (line 1, col 38): ILIKE 'A%' ...`, 18.16 without the token in parentheses.
const SYNTAX_QUOTE = /failed at position \d+(?: \((?!line \d+, col \d+\))(.+?)\)(?= \(line |: ))?(?: \(line \d+, col \d+\))?: ([\s\S]*)$/;
// What follows the quote: the parser's hint (the last, should the quote hold one's words), else chdb's code name.
const SYNTAX_HINT = /\. (?:Expected |Unmatched parentheses|Max query size exceeded)/g;
const CODE_NAME = /\. \([A-Z_]+\)$/;

/**
 * A syntax error as `failed at <token>` and the parser's hint, without the offset and text it quotes (the rewrite's);
 * the token only where it is a word (a keyword or a name of the query, never a stage name such as `_c0`).
 */
function withoutSyntaxQuote(message: string): string {
  const m = SYNTAX_QUOTE.exec(message);
  if (!m) return message;
  const token = m[1] ?? /^\s*([A-Za-z]\w*)/.exec(m[2]!)?.[1];
  const hints = [...m[2]!.matchAll(SYNTAX_HINT)];
  const last = hints.length ? m[2]!.slice(hints[hints.length - 1]!.index) : (CODE_NAME.exec(m[2]!)?.[0] ?? '');
  // The size limit's hint quotes the text once more after a colon: only its words are kept.
  const hint = last.startsWith('. Max query size exceeded') ? last.replace(/^(\. Max query size exceeded)[\s\S]*$/, '$1') : last;
  const at =
    token === 'end of query'
      ? 'failed at the end of the query'
      : token !== undefined && /^[A-Za-z]\w*$/.test(token)
        ? `failed at ${token}`
        : 'failed in the query as rewritten for the engine';
  return message.slice(0, m.index) + at + hint;
}

export interface ClickHouseErrorCode {
  code: number;
  name: string;
  class: ClickHouseErrorClass;
}

const TABLE: readonly [number, string, ClickHouseErrorClass][] = [
  [1, 'UNSUPPORTED_METHOD', 'user'],
  [2, 'UNSUPPORTED_PARAMETER', 'user'],
  [6, 'CANNOT_PARSE_TEXT', 'user'],
  [8, 'THERE_IS_NO_COLUMN', 'user'],
  [9, 'SIZES_OF_COLUMNS_DOESNT_MATCH', 'user'],
  [10, 'NOT_FOUND_COLUMN_IN_BLOCK', 'user'],
  [16, 'NO_SUCH_COLUMN_IN_TABLE', 'user'],
  [20, 'NUMBER_OF_COLUMNS_DOESNT_MATCH', 'user'],
  [25, 'CANNOT_PARSE_ESCAPE_SEQUENCE', 'user'],
  [26, 'CANNOT_PARSE_QUOTED_STRING', 'user'],
  [27, 'CANNOT_PARSE_INPUT_ASSERTION_FAILED', 'user'],
  [33, 'CANNOT_READ_ALL_DATA', 'server'],
  [34, 'TOO_MANY_ARGUMENTS_FOR_FUNCTION', 'user'],
  [35, 'TOO_FEW_ARGUMENTS_FOR_FUNCTION', 'user'],
  [36, 'BAD_ARGUMENTS', 'user'],
  [37, 'UNKNOWN_ELEMENT_IN_AST', 'user'],
  [38, 'CANNOT_PARSE_DATE', 'user'],
  [40, 'CHECKSUM_DOESNT_MATCH', 'user'],
  [41, 'CANNOT_PARSE_DATETIME', 'user'],
  [42, 'NUMBER_OF_ARGUMENTS_DOESNT_MATCH', 'user'],
  [43, 'ILLEGAL_TYPE_OF_ARGUMENT', 'user'],
  [44, 'ILLEGAL_COLUMN', 'user'],
  [46, 'UNKNOWN_FUNCTION', 'user'],
  [47, 'UNKNOWN_IDENTIFIER', 'user'],
  [48, 'NOT_IMPLEMENTED', 'user'],
  [49, 'LOGICAL_ERROR', 'server'],
  [50, 'UNKNOWN_TYPE', 'user'],
  [51, 'EMPTY_LIST_OF_COLUMNS_QUERIED', 'user'],
  [52, 'COLUMN_QUERIED_MORE_THAN_ONCE', 'user'],
  [53, 'TYPE_MISMATCH', 'user'],
  // The planner resolved the name: a shard without the table or database is misconfigured.
  [60, 'UNKNOWN_TABLE', 'server'],
  [62, 'SYNTAX_ERROR', 'user'],
  [63, 'UNKNOWN_AGGREGATE_FUNCTION', 'user'],
  [69, 'ARGUMENT_OUT_OF_BOUND', 'user'],
  [70, 'CANNOT_CONVERT_TYPE', 'user'],
  [72, 'CANNOT_PARSE_NUMBER', 'user'],
  [73, 'UNKNOWN_FORMAT', 'user'],
  [81, 'UNKNOWN_DATABASE', 'server'],
  [89, 'UNKNOWN_COMPRESSION_METHOD', 'user'],
  [115, 'UNKNOWN_SETTING', 'user'],
  [117, 'INCORRECT_DATA', 'user'],
  [125, 'INCORRECT_RESULT_OF_SCALAR_SUBQUERY', 'user'],
  [130, 'CANNOT_READ_ARRAY_FROM_TEXT', 'user'],
  [131, 'TOO_LARGE_STRING_SIZE', 'user'],
  [141, 'SAMPLING_NOT_SUPPORTED', 'user'],
  [153, 'ILLEGAL_DIVISION', 'user'],
  [158, 'TOO_MANY_ROWS', 'limit'],
  [159, 'TIMEOUT_EXCEEDED', 'timeout'],
  [160, 'TOO_SLOW', 'limit'],
  [161, 'TOO_MANY_COLUMNS', 'limit'],
  [162, 'TOO_DEEP_SUBQUERIES', 'limit'],
  [164, 'READONLY', 'user'],
  [167, 'TOO_DEEP_AST', 'limit'],
  [168, 'TOO_BIG_AST', 'limit'],
  [169, 'BAD_TYPE_OF_FIELD', 'user'],
  [170, 'BAD_GET', 'user'],
  [179, 'MULTIPLE_EXPRESSIONS_FOR_ALIAS', 'user'],
  [181, 'ILLEGAL_FINAL', 'user'],
  [182, 'ILLEGAL_PREWHERE', 'user'],
  [183, 'UNEXPECTED_EXPRESSION', 'user'],
  [184, 'ILLEGAL_AGGREGATION', 'user'],
  [190, 'SIZES_OF_ARRAYS_DONT_MATCH', 'user'],
  [191, 'SET_SIZE_LIMIT_EXCEEDED', 'limit'],
  [192, 'UNKNOWN_USER', 'server'],
  [193, 'WRONG_PASSWORD', 'server'],
  [194, 'REQUIRED_PASSWORD', 'server'],
  [202, 'TOO_MANY_SIMULTANEOUS_QUERIES', 'server'],
  [203, 'NO_FREE_CONNECTION', 'server'],
  [206, 'ALIAS_REQUIRED', 'user'],
  [209, 'SOCKET_TIMEOUT', 'server'],
  [210, 'NETWORK_ERROR', 'server'],
  [215, 'NOT_AN_AGGREGATE', 'user'],
  // Per query (max_memory_usage). The server-wide and per-user forms are the server's: see classOf.
  [241, 'MEMORY_LIMIT_EXCEEDED', 'limit'],
  [271, 'CANNOT_DECOMPRESS', 'user'],
  [242, 'TABLE_IS_READ_ONLY', 'server'],
  [252, 'TOO_MANY_PARTS', 'server'],
  [279, 'ALL_CONNECTION_TRIES_FAILED', 'server'],
  [290, 'LIMIT_EXCEEDED', 'limit'],
  // A recursive CTE past max_recursive_cte_evaluation_depth: the query's own bound.
  [306, 'TOO_DEEP_RECURSION', 'limit'],
  [307, 'TOO_MANY_BYTES', 'limit'],
  [321, 'VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE', 'user'],
  [352, 'AMBIGUOUS_COLUMN_NAME', 'user'],
  [370, 'DATA_TYPE_CANNOT_BE_USED_IN_TABLES', 'user'],
  [376, 'CANNOT_PARSE_UUID', 'user'],
  [386, 'NO_COMMON_TYPE', 'user'],
  [394, 'QUERY_WAS_CANCELLED', 'cancelled'],
  [395, 'FUNCTION_THROW_IF_VALUE_IS_NON_ZERO', 'user'],
  [396, 'TOO_MANY_ROWS_OR_BYTES', 'limit'],
  [403, 'INVALID_JOIN_ON_EXPRESSION', 'user'],
  [407, 'DECIMAL_OVERFLOW', 'user'],
  [425, 'SYSTEM_ERROR', 'server'],
  [452, 'SETTING_CONSTRAINT_VIOLATION', 'user'],
  [456, 'UNKNOWN_QUERY_PARAMETER', 'user'],
  [457, 'BAD_QUERY_PARAMETER', 'user'],
  [467, 'CANNOT_PARSE_BOOL', 'user'],
  [497, 'ACCESS_DENIED', 'user'],
  [507, 'UNABLE_TO_SKIP_UNUSED_SHARDS', 'user'],
  [557, 'UNKNOWN_UNION', 'user'],
  [558, 'EXPECTED_ALL_OR_DISTINCT', 'user'],
  [516, 'AUTHENTICATION_FAILED', 'server'],
  [675, 'CANNOT_PARSE_IPV4', 'user'],
  [676, 'CANNOT_PARSE_IPV6', 'user'],
  [1001, 'STD_EXCEPTION', 'server'],
];

export const CLICKHOUSE_ERROR_CODES: ReadonlyMap<number, ClickHouseErrorCode> = new Map(TABLE.map(([code, name, cls]) => [code, { code, name, class: cls }]));

/** ClickHouse's name for a code (`ILLEGAL_FINAL`), or `UNKNOWN_ERROR_<code>` when the table lacks it. */
export function clickHouseErrorName(code: number): string {
  return CLICKHOUSE_ERROR_CODES.get(code)?.name ?? `UNKNOWN_ERROR_${code}`;
}

/**
 * Whose fault an error is. The message matters for one code: MEMORY_LIMIT_EXCEEDED is the query's
 * own limit unless it says `(total)` (the server's memory) or `(for user)` (all of the account's
 * queries on that server): those pass, and another replica may have room.
 */
export function classOf(code: number | undefined, message = ''): ClickHouseErrorClass {
  if (code === undefined) return 'server';
  const cls = CLICKHOUSE_ERROR_CODES.get(code)?.class ?? 'server';
  if (code === 241 && /\((total|for user)\)/.test(message)) return 'server';
  return cls;
}

/** A user or limit error: the same on every replica and every retry, and the client's to fix. */
export function isQueryFault(code: number | undefined, message = ''): boolean {
  const c = classOf(code, message);
  return c === 'user' || c === 'limit';
}
