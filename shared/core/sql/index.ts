// The SQL front end: parse one ClickHouse SELECT, walk/rewrite the AST, print it back, and name
// result columns the way ClickHouse does.
export * from './ast.js';
export { parseSelect, parseExpression, DEFAULT_MAX_DEPTH, DEFAULT_MAX_LENGTH, type ParseOptions } from './parse.js';
export { printSelect, printExpr, printExprBare, quoteIdent } from './print.js';
export { quoteStringLiteral, backquote } from './quote.js';
export * from './visit.js';
export { columnName, formatForName, qualifiersOf, floatName, quoteNameString, type NameOptions } from './names.js';
