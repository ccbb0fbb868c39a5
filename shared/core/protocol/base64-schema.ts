// Base64 payloads in the shard wire (raw answers, stage tables). Buffer.from(s, 'base64') silently
// skips characters outside the alphabet and stops at a '=' inside the text, so the check decodes
// and compares the length with what the text must decode to: any character skipped, or anything
// after an early '=', makes it shorter. What it lets through decodes without loss: the URL-safe
// alphabet ('-', '_', which Buffer reads as '+', '/') and non-zero unused bits in the last group.
//
// The check decodes the text anyway, so the bytes are kept for the one caller that takes them next
// (base64Bytes): the coordinator and the shard decode each payload once, not twice. On a 1.6 MB
// final-stage request that is about 2 ms of a 2-core machine's CPU (docs/benchmarks.md, section 7).
import { z } from 'zod';

let lastChecked: { text: string; bytes: Buffer } | undefined;

/** True when every character of `s` is decoded (padded base64, nothing skipped). */
export function isCanonicalBase64(s: string): boolean {
  if (s.length % 4 !== 0) return false;
  const pad = s.endsWith('==') ? 2 : s.endsWith('=') ? 1 : 0;
  const bytes = Buffer.from(s, 'base64');
  if (bytes.length !== (s.length / 4) * 3 - pad) return false;
  lastChecked = { text: s, bytes };
  return true;
}

/** The bytes of base64 text: the last check's decoding when it was this text (taken once), else decoded now. */
export function base64Bytes(s: string): Buffer {
  const m = lastChecked;
  if (m !== undefined && m.text === s) {
    lastChecked = undefined;
    return m.bytes;
  }
  return Buffer.from(s, 'base64');
}

export const base64Schema = z.string().refine(isCanonicalBase64, 'base64');
