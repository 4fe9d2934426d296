/**
 * Reference verdicts on nested JSON at depths 120–130 (issue 16). The reference loader deserializes the header with
 * serde_json, whose recursion limit is 128: every `[` or `{` it descends into (the top-level object included) takes
 * one level and opening the 128th fails. Where serde refuses a value by its type before descending (a metadata value
 * must be a string, the top level must be a map), depth never matters. Each expected verdict below is derived from
 * that rule, restated here independently of the parser's constants; docs/findings.md (`too-deep`) has the table.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REFERENCE_JSON_RECURSION_LIMIT } from '../limits';
import { nestedJson } from '../../testing/json-nesting';
import { codesOf, entry, parseBytes, problemCodes, rawFile, verdictOf } from '../../testing/parse-helpers';

/** serde_json's `remaining_depth` starts at 128; the container that brings it to 0 is refused. */
const SERDE_JSON_START_DEPTH = 128;
/** The deepest total nesting (top-level object = 1) serde_json deserializes. */
const DEEPEST_ACCEPTED = SERDE_JSON_START_DEPTH - 1;

const DEPTHS = Array.from({ length: 11 }, (_, i) => 120 + i);

type Shape = 'arrays' | 'objects' | 'mixed';

/** `levels` nested containers around the scalar 1. */
function nested(levels: number, shape: Shape): string {
  let open = '';
  let close = '';
  for (let level = 0; level < levels; level++) {
    const array = shape === 'arrays' || (shape === 'mixed' && level % 2 === 0);
    open += array ? '[' : '{"k":';
    close = (array ? ']' : '}') + close;
  }
  return `${open}1${close}`;
}

const VALID_ENTRY = entry('F32', [1], 0, 4);

describe('reference verdicts on nested JSON (serde_json recursion limit 128)', () => {
  it('uses the reference limit', () => {
    expect(REFERENCE_JSON_RECURSION_LIMIT).toBe(SERDE_JSON_START_DEPTH);
  });

  for (const shape of ['arrays', 'objects', 'mixed'] as const) {
    describe(`${shape}`, () => {
      it.each(DEPTHS)('inside a tensor entry, total depth %i', (depth) => {
        // Top-level object (1) + entry (2) + the unknown field's containers. serde buffers the whole entry (the
        // map is `#[serde(flatten)]`), so every level of the unknown field counts before it is ignored.
        const text = `{"t":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"x":${nested(depth - 2, shape)}}}`;
        const outcome = parseBytes(rawFile(text, 4));
        if (depth <= DEEPEST_ACCEPTED) {
          expect(verdictOf(outcome)).toBe('accepts');
          expect(problemCodes(outcome)).toEqual([]);
        } else {
          expect(verdictOf(outcome)).toBe('refuses');
          expect(codesOf(outcome)).toEqual(['too-deep']);
        }
      });

      it.each(DEPTHS)('as a tensor entry at the top level, total depth %i', (depth) => {
        // Not an object entry: refused at every depth, by the recursion limit from 128 on and by its type below.
        const text = `{"t":${nested(depth - 1, shape === 'objects' ? 'arrays' : shape)}}`;
        const outcome = parseBytes(rawFile(text));
        expect(verdictOf(outcome)).toBe('refuses');
        expect(codesOf(outcome)).toContain(depth <= DEEPEST_ACCEPTED ? 'invalid-entry' : 'too-deep');
        expect(codesOf(outcome).includes('too-deep')).toBe(depth > DEEPEST_ACCEPTED);
      });

      it.each(DEPTHS)('inside __metadata__, total depth %i', (depth) => {
        // serde reads metadata values as strings and refuses `[`/`{` by type without descending: never too-deep.
        const text = `{"__metadata__":{"m":${nested(depth - 2, shape)}},"t":${VALID_ENTRY}}`;
        const outcome = parseBytes(rawFile(text, 4));
        expect(verdictOf(outcome)).toBe('refuses');
        expect(problemCodes(outcome)).toEqual(['metadata-not-string']);
      });

      it.each(DEPTHS)('as the whole header, total depth %i', (depth) => {
        // serde wants a map and refuses any other first byte without descending.
        const outcome = parseBytes(rawFile(nested(depth, shape === 'objects' ? 'arrays' : shape)));
        expect(verdictOf(outcome)).toBe('refuses');
        expect(codesOf(outcome)).toEqual(['not-an-object']);
      });
    });
  }

  it.each(DEPTHS)('inside a shape, total depth %i', (depth) => {
    // The shape's own array is level 3; a dimension nested deeper is refused by type below 128, by depth above.
    const text = `{"t":{"dtype":"F32","shape":[${nested(depth - 3, 'arrays')}],"data_offsets":[0,4]}}`;
    const outcome = parseBytes(rawFile(text, 4));
    expect(verdictOf(outcome)).toBe('refuses');
    expect(codesOf(outcome)).toContain(depth <= DEEPEST_ACCEPTED ? 'invalid-shape' : 'too-deep');
  });

  it('an empty container still takes a level', () => {
    const at = (levels: number) =>
      parseBytes(
        rawFile(
          `{"t":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"x":${'['.repeat(levels)}${']'.repeat(levels)}}}`,
          4,
        ),
      );
    expect(verdictOf(at(DEEPEST_ACCEPTED - 2))).toBe('accepts');
    expect(verdictOf(at(DEEPEST_ACCEPTED - 1))).toBe('refuses');
  });

  it('the too-deep message names the reference limit and the level', () => {
    const text = `{"t":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"x":${nested(200, 'arrays')}}}`;
    const outcome = parseBytes(rawFile(text, 4));
    const message = outcome.kind === 'rejected' ? outcome.file.findings[0].message : '';
    expect(message).toContain('serde_json');
    expect(message).toContain('128');
    expect(message).toContain('at most 127');
  });
});

describe('random nesting near the limit agrees with the reference rule', () => {
  it('an unknown field of any container mix loads iff the total depth is at most 127', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 100, max: 160 }),
        fc.array(fc.constantFrom('[', '{"k":', '[0,', '{"a":[],"k":'), { minLength: 1, maxLength: 5 }),
        (levels, kinds) => {
          const { open, close } = nestedJson(levels, kinds);
          const text = `{"t":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"x":${open}1${close}}}`;
          // The deepest container, counted bracket by bracket (no string here holds a bracket).
          let depth = 0;
          let level = 0;
          for (const c of text) {
            level += c === '[' || c === '{' ? 1 : c === ']' || c === '}' ? -1 : 0;
            depth = Math.max(depth, level);
          }
          expect(verdictOf(parseBytes(rawFile(text, 4)))).toBe(depth <= DEEPEST_ACCEPTED ? 'accepts' : 'refuses');
        },
      ),
      { numRuns: 300 },
    );
  });
});
