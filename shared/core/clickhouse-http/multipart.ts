// multipart/form-data request bodies, as ClickHouse clients send long query parameters
// (@clickhouse/client's use_multipart_params): a `query` part and `param_<name>` parts. Only named
// text fields are read; a part with a filename (ClickHouse's external-data upload) is refused.
// One pass over the body, each part read once; at most MAX_MULTIPART_PARTS parts.
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

export function parseMultipart(body: Buffer, boundary: string): Map<string, string> {
  const text = body.toString('utf8');
  const delim = `--${boundary}`;
  const fields = new Map<string, string>();
  const chunks = text.split(delim, MAX_MULTIPART_PARTS + 2);
  if (chunks.length > MAX_MULTIPART_PARTS + 1 && !chunks[MAX_MULTIPART_PARTS + 1]!.startsWith('--'))
    throw new ChHttpError(36, `a multipart/form-data body with more than ${MAX_MULTIPART_PARTS} parts`);
  // chunks[0] is the preamble; the last starts with "--" (the close delimiter).
  for (const chunk of chunks.slice(1)) {
    if (chunk.startsWith('--')) break;
    const part = chunk.replace(/^\r?\n/, '').replace(/\r?\n$/, '');
    const split = /\r?\n\r?\n/.exec(part);
    if (!split) throw new ChHttpError(36, 'a multipart part without headers');
    const headers = part.slice(0, split.index);
    const value = part.slice(split.index + split[0].length);
    const disposition = /^content-disposition:\s*form-data\s*;(.*)$/im.exec(headers)?.[1] ?? '';
    const name = /\bname="([^"]*)"/i.exec(disposition)?.[1];
    if (name === undefined) throw new ChHttpError(36, 'a multipart part without a name');
    if (/\bfilename=/i.test(disposition)) throw new ChHttpError(48, `multipart part ${name}: external data files are not supported`);
    fields.set(name, value);
  }
  return fields;
}
