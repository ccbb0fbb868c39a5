// Base64 payloads in the shard wire (raw answers, stage tables). Buffer.from(s, 'base64') silently
// skips characters outside the alphabet and stops at a '=' inside the text, so the check refuses
// both: a length that is a multiple of 4, only alphabet characters, at most two '=' and only at
// the end. What it lets through decodes without loss: the URL-safe alphabet ('-', '_', which
// Buffer reads as '+', '/') and non-zero unused bits in the last group.
//
// The check reads the text without decoding it (a regular expression, about as fast as a decode),
// so each payload is decoded once, by the reader that takes its bytes (base64Bytes), and nothing
// is kept between the two.
import { z } from 'zod';

const CANONICAL = /^[A-Za-z0-9+/_-]*={0,2}$/;

/** True when every character of `s` is decoded (padded base64, nothing skipped). */
export function isCanonicalBase64(s: string): boolean {
  return s.length % 4 === 0 && CANONICAL.test(s);
}

/** The bytes of base64 text the schema let through. */
export function base64Bytes(s: string): Buffer {
  return Buffer.from(s, 'base64');
}

export const base64Schema = z.string().refine(isCanonicalBase64, 'base64');
