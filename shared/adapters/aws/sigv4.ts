// AWS Signature Version 4 for exactly one request shape: a POST with a body and no query string,
// to a non-S3 service (Lambda Invoke). Used by the coordinator's lean query invoker
// (signed-http-invoker.ts).
//
// WHY hand-written rather than @smithy/signature-v4 (the SDK's signer): the generic signer is
// async all the way down (a promise per hash and per HMAC), re-hashes the secret to key its
// signing-key cache on every call, walks generic header/query/path handling and copies the
// request; for a 64-way fan-out that is paid 64 times per query on the coordinator's one CPU.
// bench/_signer-cost.ts measures both (reported by `npm run bench -- fanout` as sigv4_sign_us);
// this signer takes a fraction of the generic one's CPU, most of it in the three SHA-256/HMAC passes
// themselves. Figures: docs/benchmarks.md#2-fan-out-overhead-fanout.
// test/unit/scatter/sigv4.test.ts proves both produce the same signature for any input.
//
// The signing key is derived once per (secret, date, region, service) and cached: the four HMACs
// run once a day per credential set, not per request.
import crypto, { createHash, createHmac, createSecretKey, type KeyObject } from 'node:crypto';

export interface SigV4Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  /** Temporary credentials (a Lambda role's) carry one; it is sent and signed as x-amz-security-token. */
  sessionToken?: string;
}

export interface SignPostInput {
  /** The Host header as sent (host, plus :port when not the scheme's default). */
  host: string;
  /** The path as sent on the wire (segments already URI-encoded once), no query string. */
  path: string;
  /** Further headers to send AND sign, lower-case names (content-type, x-amz-invocation-type, ...). */
  headers: Record<string, string>;
  body: string | Buffer;
  region: string;
  service: string;
  credentials: SigV4Credentials;
  /** Signing time, ms since the epoch. */
  now: number;
}

const ALGORITHM = 'AWS4-HMAC-SHA256';

/** RFC 3986 encoding as SigV4 wants it: encodeURIComponent plus the five characters it leaves alone. */
export function uriEncode(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * The canonical URI of a non-S3 request: every segment of the (already encoded) path encoded AGAIN,
 * so a `%3A` on the wire is `%253A` here; empty, '.' and '..' segments normalized away as the SDK's
 * signer does (no real function name has them, but a signature must never disagree with AWS's).
 */
export function canonicalUri(path: string): string {
  const segments: string[] = [];
  for (const s of path.split('/')) {
    if (s === '' || s === '.') continue;
    if (s === '..') segments.pop();
    else segments.push(uriEncode(s));
  }
  return `/${segments.join('/')}${segments.length > 0 && path.endsWith('/') ? '/' : ''}`;
}

// x-amz-date of the current second, reused within it (every request of a fan-out shares it).
let dateSecond = -1;
let dateLong = '';
function amzDate(now: number): string {
  const second = Math.floor(now / 1000);
  if (second !== dateSecond) {
    dateSecond = second;
    dateLong = new Date(second * 1000).toISOString().replace(/[-:]|\.\d{3}/g, ''); // 20261130T061247Z
  }
  return dateLong;
}

// Derived signing keys; a handful of entries in practice (one per credential set per day). Kept as
// KeyObjects (an HMAC keyed by one skips re-importing the key bytes), and the last one used is
// checked first: a fan-out signs with the same key over and over.
const MAX_KEYS = 32;
const signingKeys = new Map<string, KeyObject>();
let last: { secret: string; shortDate: string; region: string; service: string; key: KeyObject } | undefined;
function signingKey(secret: string, shortDate: string, region: string, service: string): KeyObject {
  if (last && last.secret === secret && last.shortDate === shortDate && last.region === region && last.service === service) return last.key;
  const cacheKey = `${shortDate}\n${region}\n${service}\n${secret}`;
  let key = signingKeys.get(cacheKey);
  if (!key) {
    let bytes = createHmac('sha256', `AWS4${secret}`).update(shortDate).digest();
    for (const part of [region, service, 'aws4_request']) bytes = createHmac('sha256', bytes).update(part).digest();
    key = createSecretKey(bytes);
    if (signingKeys.size >= MAX_KEYS) signingKeys.delete(signingKeys.keys().next().value!);
    signingKeys.set(cacheKey, key);
  }
  last = { secret, shortDate, region, service, key };
  return key;
}

// One-shot crypto.hash (Node >= 20.12) costs about half of createHash().update().digest() on a
// request-sized input; older Node gets the streaming form.
const sha256Hex: (data: string | Buffer) => string =
  typeof crypto.hash === 'function' ? (data) => crypto.hash('sha256', data, 'hex') : (data) => createHash('sha256').update(data).digest('hex');

/** The canonical header value: line breaks to spaces, runs of blanks collapsed, ends trimmed. */
const NEEDS_CANONICALIZING = /[\r\n\t]| {2}|^ | $/;
const canonicalValue = (v: string) =>
  NEEDS_CANONICALIZING.test(v)
    ? v
        .replace(/[\r\n]/g, ' ')
        .replace(/[ \t]+/g, ' ')
        .trim()
    : v;

// canonicalUri per path: a fan-out signs the same few function paths over and over.
const MAX_URIS = 4096;
const canonicalUris = new Map<string, string>();
function cachedCanonicalUri(path: string): string {
  let c = canonicalUris.get(path);
  if (c === undefined) {
    c = canonicalUri(path);
    if (canonicalUris.size >= MAX_URIS) canonicalUris.clear();
    canonicalUris.set(path, c);
  }
  return c;
}

/** The signed header names of one header set, sorted, and the SignedHeaders value they make. */
interface HeaderOrder {
  names: string[];
  signedHeaders: string;
}
// Header orders per set of header names: every request of a fan-out sends the same set, so the
// union and sort are done once, not per signature.
const MAX_ORDERS = 64;
const headerOrders = new Map<string, HeaderOrder>();
function headerOrderOf(given: Record<string, string>, withToken: boolean): HeaderOrder {
  const givenNames = Object.keys(given);
  const key = withToken ? `${givenNames.join('\n')}\ntoken` : givenNames.join('\n');
  let order = headerOrders.get(key);
  if (!order) {
    const all = new Set([...givenNames, 'host', 'x-amz-date', 'x-amz-content-sha256']);
    if (withToken) all.add('x-amz-security-token');
    const names = [...all].sort();
    order = { names, signedHeaders: names.join(';') };
    if (headerOrders.size >= MAX_ORDERS) headerOrders.clear();
    headerOrders.set(key, order);
  }
  return order;
}

/**
 * The headers to send: `input.headers` plus host, x-amz-date, x-amz-content-sha256,
 * x-amz-security-token (with a session token) and authorization, every one but authorization signed.
 */
export function signPost(input: SignPostInput): Record<string, string> {
  const date = amzDate(input.now);
  const shortDate = date.slice(0, 8);
  const payloadHash = sha256Hex(input.body);
  const headers: Record<string, string> = {
    ...input.headers,
    host: input.host,
    'x-amz-date': date,
    'x-amz-content-sha256': payloadHash,
  };
  const token = input.credentials.sessionToken;
  if (token) headers['x-amz-security-token'] = token;
  const { names, signedHeaders } = headerOrderOf(input.headers, !!token);
  let canonical = `POST\n${cachedCanonicalUri(input.path)}\n\n`;
  for (let i = 0; i < names.length; i++) {
    const n = names[i]!;
    canonical += `${n}:${canonicalValue(headers[n]!)}\n`;
  }
  canonical += `\n${signedHeaders}\n${payloadHash}`;
  const scope = `${shortDate}/${input.region}/${input.service}/aws4_request`;
  const stringToSign = `${ALGORITHM}\n${date}\n${scope}\n${sha256Hex(canonical)}`;
  const signature = createHmac('sha256', signingKey(input.credentials.secretAccessKey, shortDate, input.region, input.service))
    .update(stringToSign)
    .digest('hex');
  headers.authorization = `${ALGORITHM} Credential=${input.credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return headers;
}

export interface SignS3Input {
  method: 'GET' | 'PUT' | 'DELETE' | 'HEAD';
  host: string;
  /** `/bucket/key` or `/key`, each segment URI-encoded once (S3 signs the path as sent, not encoded again). */
  path: string;
  /** SHA-256 (hex) of the body ('' hashes for none). */
  payloadHash: string;
  /** Further headers to send and sign, lower-case names. */
  headers: Record<string, string>;
  region: string;
  credentials: SigV4Credentials;
  now: number;
}

/** The SHA-256 of an empty payload, as S3 wants it for a GET or DELETE. */
export const EMPTY_PAYLOAD_SHA256 = sha256Hex('');

/**
 * The same signature for the exchange's S3 requests (shared/adapters/aws/s3-exchange.ts): any method,
 * no query string, the path signed as sent. Few per query, so no header-order cache.
 */
export function signS3(input: SignS3Input): Record<string, string> {
  const date = amzDate(input.now);
  const shortDate = date.slice(0, 8);
  const headers: Record<string, string> = { ...input.headers, host: input.host, 'x-amz-date': date, 'x-amz-content-sha256': input.payloadHash };
  if (input.credentials.sessionToken) headers['x-amz-security-token'] = input.credentials.sessionToken;
  const names = Object.keys(headers).sort();
  const signedHeaders = names.join(';');
  const canonical = `${input.method}\n${input.path}\n\n${names.map((n) => `${n}:${canonicalValue(headers[n]!)}\n`).join('')}\n${signedHeaders}\n${input.payloadHash}`;
  const scope = `${shortDate}/${input.region}/s3/aws4_request`;
  const stringToSign = `${ALGORITHM}\n${date}\n${scope}\n${sha256Hex(canonical)}`;
  const signature = createHmac('sha256', signingKey(input.credentials.secretAccessKey, shortDate, input.region, 's3'))
    .update(stringToSign)
    .digest('hex');
  headers.authorization = `${ALGORITHM} Credential=${input.credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return headers;
}
