// multipart/form-data request bodies, as ClickHouse clients send them: text fields (the `query`,
// `param_<name>` values of @clickhouse/client's use_multipart_params) and file parts (a part with a
// `filename`, even an empty one: ClickHouse's external data, one temporary table per part, its bytes
// kept exactly as sent, binary formats included). One pass over the body's bytes, each part read
// once; at most MAX_MULTIPART_PARTS parts.
import { ChHttpError } from './exception.js';

/** The boundary of a multipart/form-data Content-Type, or undefined for any other body. */
export function multipartBoundary(contentType: string | undefined): string | undefined {
  if (!contentType || !/^multipart\/form-data\b/i.test(contentType.trim())) return undefined;
  const m = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const b = m?.[1] ?? m?.[2];
  if (!b) throw new ChHttpError(36, 'multipart/form-data without a boundary');
  return b;
}

/** More parts than any client's parameters need: past it the body is refused before the parts are read. */
export const MAX_MULTIPART_PARTS = 10_000;

export interface MultipartBody {
  /** Text fields by name (UTF-8). */
  fields: Map<string, string>;
  /** File parts by name, in body order: their bytes exactly as sent. */
  files: Map<string, Buffer>;
}

const CRLF2 = Buffer.from('\r\n\r\n');
const LF2 = Buffer.from('\n\n');

/** The part's bytes without the line end before the next delimiter (and the one after its own). */
function trimPart(b: Buffer): Buffer {
  let start = 0;
  if (b[0] === 0x0d && b[1] === 0x0a) start = 2;
  else if (b[0] === 0x0a) start = 1;
  let end = b.length;
  if (b[end - 1] === 0x0a) end -= b[end - 2] === 0x0d ? 2 : 1;
  return b.subarray(start, Math.max(start, end));
}

export function parseMultipart(body: Buffer, boundary: string): MultipartBody {
  const delim = Buffer.from(`--${boundary}`);
  const out: MultipartBody = { fields: new Map(), files: new Map() };
  // The delimiters' offsets first (bounded by the cap), so an over-long body is refused before any part is read.
  const at: number[] = [];
  for (let i = body.indexOf(delim); i >= 0; i = body.indexOf(delim, i + delim.length)) {
    at.push(i);
    if (at.length > MAX_MULTIPART_PARTS) {
      // The close delimiter (`--b--`) may be the one past the cap.
      if (body[i + delim.length] === 0x2d && body[i + delim.length + 1] === 0x2d) break;
      throw new ChHttpError(36, `a multipart/form-data body with more than ${MAX_MULTIPART_PARTS} parts`);
    }
  }
  // Before the first delimiter: the preamble; a delimiter followed by "--" closes the body.
  for (let k = 0; k < at.length; k++) {
    const from = at[k]! + delim.length;
    if (body[from] === 0x2d && body[from + 1] === 0x2d) break;
    const part = trimPart(body.subarray(from, k + 1 < at.length ? at[k + 1] : body.length));
    const crlf = part.indexOf(CRLF2);
    const lf = part.indexOf(LF2);
    const split = crlf >= 0 && (lf < 0 || crlf < lf) ? { at: crlf, len: 4 } : lf >= 0 ? { at: lf, len: 2 } : undefined;
    if (!split) throw new ChHttpError(36, 'a multipart part without headers');
    const headers = part.subarray(0, split.at).toString('utf8');
    const value = part.subarray(split.at + split.len);
    const disposition = /^content-disposition:\s*form-data\s*;(.*)$/im.exec(headers)?.[1] ?? '';
    const name = /(?:^|;)\s*name="([^"]*)"/i.exec(disposition)?.[1];
    if (name === undefined) throw new ChHttpError(36, 'a multipart part without a name');
    if (/(?:^|;)\s*filename\*?=/i.test(disposition)) out.files.set(name, value);
    else out.fields.set(name, value.toString('utf8'));
  }
  return out;
}
