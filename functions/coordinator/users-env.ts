// The users the ClickHouse interface checks itself: CH_SCATTER_USERS_FILE names a JSON file of users
// with salted password hashes (the local stack's `--users`; see docs/clients.md). Without it the
// coordinator trusts what is in front of it: in AWS the API's authorizer has checked the caller.
import { readFileSync } from 'node:fs';
import { createUserCheck, parseUsersFile, type UserCheck } from '../../shared/core/clickhouse-http/auth.js';

export function usersFromEnv(env: NodeJS.ProcessEnv): { userCheck?: UserCheck } {
  const file = env.CH_SCATTER_USERS_FILE?.trim();
  if (!file) return {};
  return { userCheck: createUserCheck(parseUsersFile(readFileSync(file, 'utf8'))) };
}
