// Base64 payloads in the shard wire (raw answers, stage tables): canonical base64, as Buffer's
// toString('base64') writes it. Checked by decoding and encoding again rather than with a regular
// expression: a regex over a multi-megabyte string costs ~4.5 us per KB on this machine (6.6 ms for a
// 1.5 MB final-stage request, on the critical path of every large general-path query), the round trip
// ~1.3 us per KB. Buffer.from alone would not do: it skips characters that are not base64.
import { z } from 'zod';

/** True when `s` is canonical base64 (padded, nothing outside the alphabet). */
export function isCanonicalBase64(s: string): boolean {
  return s.length % 4 === 0 && Buffer.from(s, 'base64').toString('base64') === s;
}

export const base64Schema = z.string().refine(isCanonicalBase64, 'base64');
