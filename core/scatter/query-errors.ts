// Which ClickHouse errors are the query's fault rather than the shard's.
/**
 * ClickHouse error codes that mean "this query is wrong", whatever the data: unknown identifier or
 * function, bad types or arguments, syntax. Such a failure on any shard makes the whole answer a
 * 400 QUERY_ERROR (as a Distributed query would fail), never a quietly partial result.
 */
export const QUERY_ERROR_CODES: ReadonlySet<number> = new Set([
  10, // NOT_FOUND_COLUMN_IN_BLOCK
  16, // NO_SUCH_COLUMN_IN_TABLE
  36, // BAD_ARGUMENTS
  42, // NUMBER_OF_ARGUMENTS_DOESNT_MATCH
  43, // ILLEGAL_TYPE_OF_ARGUMENT
  44, // ILLEGAL_COLUMN
  46, // UNKNOWN_FUNCTION
  47, // UNKNOWN_IDENTIFIER
  53, // TYPE_MISMATCH
  62, // SYNTAX_ERROR
  63, // UNKNOWN_AGGREGATE_FUNCTION
  179, // MULTIPLE_EXPRESSIONS_FOR_ALIAS
  184, // ILLEGAL_AGGREGATION
  215, // NOT_AN_AGGREGATE
  352, // AMBIGUOUS_COLUMN_NAME
  386, // NO_COMMON_TYPE
]);
