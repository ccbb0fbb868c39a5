// The JSON API's answer as text. JSON.stringify writes -0 as 0, so the answer's rows carry -0 as the
// text "-0" on every hop (values.ts toJson, final-output.ts); here, last, a Float column's "-0" is
// written as the number -0, as ClickHouse's JSON writes it (JSON.parse reads it back as -0).
import { randomUUID } from 'node:crypto';

interface AnswerShape {
  meta: { name: string; type: string }[];
  data: Record<string, unknown>[];
  totals?: Record<string, unknown>;
  extremes?: { min: Record<string, unknown>; max: Record<string, unknown> };
}

// A placeholder no value of a client's can spell: a NUL and a per-process random tag.
const PLACEHOLDER = `\u0000-0:${randomUUID()}`;
const PLACED = JSON.stringify(PLACEHOLDER);

const FLOAT = /^(?:Nullable\()?(?:LowCardinality\()?(?:Float32|Float64|BFloat16)\)*$/;

function isAnswer(body: unknown): body is AnswerShape {
  const b = body as Partial<AnswerShape> | null;
  return typeof b === 'object' && b !== null && Array.isArray(b.meta) && Array.isArray(b.data);
}

const floatColumns = (meta: AnswerShape['meta']): string[] => meta.filter((m) => typeof m.type === 'string' && FLOAT.test(m.type)).map((m) => m.name);

/** One row of an answer with these columns as JSON text, a Float column's "-0" as the number -0 (the streamed rows' lines). */
export function answerRowText(meta: AnswerShape['meta']): (row: Record<string, unknown>) => string {
  const floats = floatColumns(meta);
  return (row) => {
    if (!floats.some((n) => row[n] === '-0')) return JSON.stringify(row);
    const out = { ...row };
    for (const n of floats) if (out[n] === '-0') out[n] = PLACEHOLDER;
    return JSON.stringify(out).replaceAll(PLACED, '-0');
  };
}

/** `body` as JSON text, a Float column's -0 as the number -0. */
export function stringifyAnswer(body: unknown): string {
  if (!isAnswer(body)) return JSON.stringify(body);
  const floats = floatColumns(body.meta);
  let found = false;
  const mark = (row: Record<string, unknown> | undefined): Record<string, unknown> | undefined => {
    if (!row || !floats.some((n) => row[n] === '-0')) return row;
    found = true;
    const out = { ...row };
    for (const n of floats) if (out[n] === '-0') out[n] = PLACEHOLDER;
    return out;
  };
  if (floats.length === 0) return JSON.stringify(body);
  const marked: AnswerShape = { ...body, data: body.data.map((r) => mark(r)!) };
  if (body.totals) marked.totals = mark(body.totals)!;
  if (body.extremes) marked.extremes = { min: mark(body.extremes.min)!, max: mark(body.extremes.max)! };
  const text = JSON.stringify(found ? marked : body);
  return found ? text.replaceAll(PLACED, '-0') : text;
}
