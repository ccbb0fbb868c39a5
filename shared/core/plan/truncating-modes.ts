// A truncating overflow mode ('break', group_by's 'any') is applied by ClickHouse's Distributed table
// on every shard and again where the shards' answers are merged. The fast path merges in TypeScript,
// which applies no such limit, so it refuses them (UNSUPPORTED: the general path answers, its final
// stage being an engine that gets every forwarded setting).
import type { Pos, SelectStatement } from '../sql/ast.js';
import type { SettingValue } from '../clickhouse/port.js';
import { truncatingModes } from '../clickhouse/overflow-modes.js';
import { forEachSettingsClause } from '../sql/visit.js';
import { errorAt } from './position.js';
import { clauseValues } from './settings.js';

export function refuseTruncatingModes(stmt: SelectStatement, forward: Readonly<Record<string, SettingValue>>): void {
  const refuse = (settings: Readonly<Record<string, SettingValue>>, node?: { pos?: Pos }) => {
    const [m] = truncatingModes(settings);
    if (!m) return;
    throw errorAt(
      'UNSUPPORTED',
      `${m.setting} = '${m.mode}' on the fast path: ClickHouse applies it on every shard and again where their answers merge, which only the general path's final stage does`,
      node,
    );
  };
  refuse(forward);
  forEachSettingsClause(stmt, (items, nested) => {
    if (!nested) return;
    refuse(clauseValues(items), items[0]?.value);
  });
}
