// Which path answers a query. The fast path (the coordinator's TypeScript merge) answers what it
// covers; a query it refuses as UNSUPPORTED goes to the general (two-stage) path. The setting
// `ch_scatter_path` ('auto', the default; 'fast'; 'general'), in the request's settings or the
// SQL's SETTINGS clause, forces one (docs/api.md#choosing-the-path).
import type { SettingValue } from '../../clickhouse/port.js';
import type { Topology } from '../../config/schema.js';
import { ScatterError, isScatterError } from '../../errors.js';
import { askedSetting } from '../../plan/settings.js';
import type { TwoStageOptions, TwoStagePlan } from '../../plan/two-stage/types.js';
import type { SelectStatement } from '../../sql/ast.js';

export type QueryPath = 'auto' | 'fast' | 'general';
export const PATH_SETTING = 'ch_scatter_path';

/** The two-stage planner (shared/core/plan/two-stage), injected so the runtime does not depend on its module. */
export type TwoStagePlanner = (stmt: SelectStatement, topo: Topology, opts?: TwoStageOptions) => TwoStagePlan;

/** The path a request asks for: the SQL's SETTINGS clause over the request's settings, 'auto' when neither says. */
export function requestedPath(requestSettings: Record<string, SettingValue> | undefined, stmt: SelectStatement | undefined): QueryPath {
  const { raw } = askedSetting(PATH_SETTING, requestSettings, stmt);
  if (raw === undefined) return 'auto';
  const v = String(raw).toLowerCase();
  if (v === 'auto' || v === 'fast' || v === 'general') return v;
  throw new ScatterError('BAD_REQUEST', `setting ${PATH_SETTING} must be 'auto', 'fast' or 'general', not '${String(raw)}'`);
}

/** A fast-path refusal the general path may answer instead. */
export function fastPathRefused(e: unknown): e is ScatterError {
  return isScatterError(e) && e.code === 'UNSUPPORTED';
}
