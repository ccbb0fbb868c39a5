// The general (two-stage) path's runtime, for its callers: POST /query and /explain
// (shared/core/scatter/run-query.ts) and the ClickHouse HTTP interface, which asks for any FORMAT's bytes.
export {
  runGeneralQuery,
  planLeaves,
  finalStageReserveMs,
  type GeneralDeps,
  type GeneralOptions,
  type GeneralResult,
} from './run-general.js';
export type { FinalStageStat } from '../query-types.js';
export { requestedPath, fastPathRefused, PATH_SETTING, type QueryPath, type TwoStagePlanner } from './path.js';
export { clauseSettings, productModeOf, twoStageOptionsOf } from '../plan-inputs.js';
export { initiatorOrder } from './final-stage.js';
export { refuseForAnyPath } from './guard.js';
