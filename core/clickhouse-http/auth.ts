// Credentials as ClickHouse clients send them, and their check against a users list of salted
// password hashes. Clients send one of:
//  - `Authorization: Basic base64(user:password)` (@clickhouse/client, JDBC, Grafana, curl -u);
//  - `X-ClickHouse-User` / `X-ClickHouse-Key` headers;
//  - `?user=...&password=...` URL parameters (older tools);
//  - `Authorization: Bearer <jwt>` (@clickhouse/client's access_token): checked by API Gateway's
//    JWT authorizer in AWS, never here.
// Hashes are scrypt (node:crypto) with a per-user random salt: `scrypt$<N>$<salt b64>$<hash b64>`.
// Every failure is the same 516 with the same words, whatever was wrong (unknown user, wrong
// password, no credentials), and an unknown user costs the same scrypt as a known one.
import { randomBytes, scryptSync, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { ChHttpError } from './exception.js';

export interface Credentials {
  user?: string;
  password?: string;
  bearer?: string;
}

export function credentialsOf(headers: Readonly<Record<string, string | undefined>>, query: URLSearchParams): Credentials {
  const auth = headers.authorization?.trim();
  if (auth && /^basic\s+/i.test(auth)) {
    const text = Buffer.from(auth.replace(/^basic\s+/i, ''), 'base64').toString('utf8');
    const i = text.indexOf(':');
    return i < 0 ? { user: text, password: '' } : { user: text.slice(0, i), password: text.slice(i + 1) };
  }
  if (auth && /^bearer\s+/i.test(auth)) return { bearer: auth.replace(/^bearer\s+/i, '') };
  const user = headers['x-clickhouse-user'] ?? query.get('user') ?? undefined;
  const password = headers['x-clickhouse-key'] ?? query.get('password') ?? undefined;
  return { ...(user !== undefined ? { user } : {}), ...(password !== undefined ? { password } : {}) };
}

export const usersFileSchema = z
  .object({
    users: z.array(z.object({ name: z.string().min(1), password: z.string().regex(/^scrypt\$\d+\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/) }).strict()),
  })
  .strict();
export type UsersFile = z.infer<typeof usersFileSchema>;

const KEYLEN = 32;
const DEFAULT_N = 16384;

/** A users-file hash for a password: `scrypt$N$salt$hash`. */
export function hashPassword(password: string, n = DEFAULT_N): string {
  const salt = randomBytes(16);
  const hash = scryptSync(password, salt, KEYLEN, { N: n });
  return `scrypt$${n}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

function matches(stored: string, password: string): boolean {
  const [, n, salt, hash] = stored.split('$');
  const want = Buffer.from(hash!, 'base64');
  const got = scryptSync(password, Buffer.from(salt!, 'base64'), want.length, { N: Number(n), maxmem: 256 * Number(n) * 8 * 2 });
  return got.length === want.length && timingSafeEqual(got, want);
}

/** The same failure for every cause. */
export function authenticationFailed(user: string | undefined): ChHttpError {
  return new ChHttpError(516, `${user || 'default'}: Authentication failed: password is incorrect, or there is no user with such name`);
}

/** A checker over a users list: the user's name, or a thrown 516. */
export function createUserCheck(file: UsersFile): (c: Credentials) => string {
  const byName = new Map(file.users.map((u) => [u.name, u.password]));
  // A hash to spend the same time on for an unknown user.
  const decoy = hashPassword(randomBytes(8).toString('hex'));
  return (c) => {
    const stored = c.user !== undefined ? byName.get(c.user) : undefined;
    const ok = matches(stored ?? decoy, c.password ?? '') && stored !== undefined;
    if (!ok) throw authenticationFailed(c.user);
    return c.user!;
  };
}

/** Parse a users file's JSON text (a bad file is a configuration error, named). */
export function parseUsersFile(text: string): UsersFile {
  const r = usersFileSchema.safeParse(JSON.parse(text));
  if (!r.success) throw new Error(`users file: ${r.error.issues.map((i) => `$.${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return r.data;
}
