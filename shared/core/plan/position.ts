// Source positions for planner errors: every refusal names where in the query it happened, so a
// client can point at the construct (errors carry { line, column }: docs/api.md#post-query).
import type { Pos } from '../sql/ast.js';
import { ScatterError, type ErrorCode, type SourcePosition } from '../errors.js';

export function positionOf(node: { pos?: Pos } | undefined): SourcePosition | undefined {
  return node?.pos ? { line: node.pos.line, column: node.pos.column } : undefined;
}

/** A ScatterError whose message ends with "at line L, column C" when the node has a position. */
export function errorAt(code: ErrorCode, message: string, node?: { pos?: Pos }, details?: Record<string, unknown>): ScatterError {
  const position = positionOf(node);
  const where = position ? ` (line ${position.line}, column ${position.column})` : '';
  return new ScatterError(code, message + where, { ...(position ? { position } : {}), ...(details ? { details } : {}) });
}

/**
 * UNSUPPORTED for what the client may not reach (a refused function, a file-naming setting or
 * format): ClickHouse's ACCESS_DENIED (497, HTTP 403) on its interface, as a server answers a user
 * without the grant such a read needs.
 */
export function deniedAt(message: string, node?: { pos?: Pos }): ScatterError {
  const position = positionOf(node);
  const where = position ? ` (line ${position.line}, column ${position.column})` : '';
  return new ScatterError('UNSUPPORTED', message + where, {
    ...(position ? { position } : {}),
    details: { clickhouse: { code: 497, name: 'ACCESS_DENIED' } },
  });
}
