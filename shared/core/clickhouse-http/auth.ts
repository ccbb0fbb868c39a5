// Credentials as ClickHouse clients send them, and their check against a users list of salted
// password hashes. Clients send one of:
//  - `Authorization: Basic base64(user:password)` (@clickhouse/client, JDBC, Grafana, curl -u);
//  - `X-ClickHouse-User` / `X-ClickHouse-Key` headers;
//  - `?user=...&password=...` URL parameters (older tools);
//  - `Authorization: Bearer <jwt>` (@clickhouse/client's access_token): checked by API Gateway's
//    JWT authorizer in AWS, or by the streaming door (functions/coordinator/jwt-check.ts), never here.
// Hashes are scrypt (node:crypto) with a per-user random salt: `scrypt$<N>$<salt b64>$<hash b64>`.
// Every failure is the same 516 with the same words, whatever was wrong (unknown user, wrong
// password, no credentials), and an unknown user costs the same scrypt as a known one. scrypt runs
// on libuv's thread pool (never on the event loop: other requests go on meanwhile), and a verified
// credential is remembered for a minute (at most VERIFIED_MAX of them), so a client's steady stream
// of requests costs one scrypt a minute. Failures are never remembered: each one costs a full scrypt.
import { createHmac, randomBytes, scrypt, scryptSync, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { z } from 'zod';
import { ScatterError } from '../errors.js';
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

const scryptAsync = (password: string, salt: Buffer, keylen: number, o: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) => scrypt(password, salt, keylen, o, (e, key) => (e ? reject(e) : resolve(key))));

async function matches(stored: string, password: string): Promise<boolean> {
  const [, n, salt, hash] = stored.split('$');
  const want = Buffer.from(hash!, 'base64');
  const got = await scryptAsync(password, Buffer.from(salt!, 'base64'), want.length, { N: Number(n), maxmem: 256 * Number(n) * 8 * 2 });
  return got.length === want.length && timingSafeEqual(got, want);
}

/** The same failure for every cause. */
export function authenticationFailed(user: string | undefined): ChHttpError {
  return new ChHttpError(516, `${user || 'default'}: Authentication failed: password is incorrect, or there is no user with such name`);
}

/** How long a verified credential is remembered, and how many are at most. */
export const VERIFIED_TTL_MS = 60_000;
export const VERIFIED_MAX = 1024;

export interface UserCheck {
  /** The user's name, or a rejected 516. */
  (c: Credentials): Promise<string>;
  /** The user of a credential verified within VERIFIED_TTL_MS, without any scrypt; else undefined. */
  cached(c: Credentials): string | undefined;
}

/** A checker over a users list. */
export function createUserCheck(file: UsersFile, opts: { now?: () => number } = {}): UserCheck {
  const now = opts.now ?? Date.now;
  const byName = new Map(file.users.map((u) => [u.name, u.password]));
  // A hash to spend the same time on for an unknown user.
  const decoy = hashPassword(randomBytes(8).toString('hex'));
  // Verified credentials by a keyed hash (a per-process random key): the passwords are not kept.
  const hmacKey = randomBytes(32);
  const verified = new Map<string, { user: string; until: number }>();
  const keyOf = (c: Credentials) =>
    createHmac('sha256', hmacKey)
      .update(`${c.user ?? ''}\0${c.password ?? ''}`)
      .digest('base64');
  const cached = (c: Credentials): string | undefined => {
    if (c.user === undefined) return undefined;
    const k = keyOf(c);
    const hit = verified.get(k);
    if (hit && hit.until > now()) return hit.user;
    if (hit) verified.delete(k);
    return undefined;
  };
  const check = async (c: Credentials): Promise<string> => {
    const hit = cached(c);
    if (hit !== undefined) return hit;
    const stored = c.user !== undefined ? byName.get(c.user) : undefined;
    const ok = (await matches(stored ?? decoy, c.password ?? '')) && stored !== undefined;
    if (!ok) throw authenticationFailed(c.user);
    // Oldest first out (a Map keeps insertion order): the cache never grows past VERIFIED_MAX.
    if (verified.size >= VERIFIED_MAX) verified.delete(verified.keys().next().value!);
    verified.set(keyOf(c), { user: c.user!, until: now() + VERIFIED_TTL_MS });
    return c.user!;
  };
  return Object.assign(check, { cached });
}

/**
 * The same check on the JSON routes (/query, /explain, /play, /health, the local stack's /admin/*):
 * the user's name, or 401 UNAUTHORIZED with the words of the interface's 516.
 */
export async function jsonRouteUser(
  check: (c: Credentials) => Promise<string>,
  headers: Readonly<Record<string, string | undefined>>,
  query: URLSearchParams,
): Promise<string> {
  try {
    return await check(credentialsOf(headers, query));
  } catch (e) {
    throw new ScatterError('UNAUTHORIZED', e instanceof ChHttpError ? e.message : authenticationFailed(undefined).message);
  }
}

/** Parse a users file's JSON text (a bad file is a configuration error, named). */
export function parseUsersFile(text: string): UsersFile {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // JSON.parse's message quotes the start of its input: the users secret's own text.
    throw new Error('users file: not valid JSON');
  }
  const r = usersFileSchema.safeParse(json);
  if (!r.success) throw new Error(`users file: ${r.error.issues.map((i) => `$.${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return r.data;
}
