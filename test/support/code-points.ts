// Random names over code points of every width ClickHouse's table knows (narrow, wide, zero-width,
// astral), for the tests of the widths the Pretty and Vertical layouts give text.
import fc from 'fast-check';

export const CODE_POINT = fc.oneof(
  fc.integer({ min: 0x20, max: 0x7e }),
  fc.integer({ min: 0xa0, max: 0x2fff }),
  fc.integer({ min: 0x3000, max: 0xd7ff }),
  fc.integer({ min: 0xe000, max: 0xffff }),
  fc.integer({ min: 0x10000, max: 0x10ffff }),
);

/** A name of `a` and up to `maxLength` such code points (never empty, never starting with a space). */
export const nameOf = (maxLength: number) => fc.array(CODE_POINT, { minLength: 1, maxLength }).map((cps) => `a${String.fromCodePoint(...cps)}`);
