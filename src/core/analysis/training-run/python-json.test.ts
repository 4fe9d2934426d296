import { describe, expect, it } from 'vitest';
import { trainerStateText } from '../../../testing/trainer-state-fixtures';
import { parsePythonJson } from './python-json';

describe('parsePythonJson', () => {
  it('reads the bare NaN a real diverged run wrote, which JSON.parse rejects', () => {
    const text = trainerStateText('diverged');
    expect(() => JSON.parse(text) as unknown).toThrow();
    const state = parsePythonJson(text) as { log_history: Array<Record<string, number>> };
    expect(state.log_history[2].grad_norm).toBeNaN();
    expect(state.log_history[1].grad_norm).toBe(274583.90625);
  });

  it('reads every spelling json.dump writes, and leaves the same words inside strings alone', () => {
    const value = parsePythonJson(
      '{"a": [NaN, Infinity, -Infinity, -1.5], "note": "NaN and Infinity, \\"NaN\\"", "NaN": -Infinity}',
    ) as Record<string, unknown>;
    expect(value.a).toEqual([NaN, Infinity, -Infinity, -1.5]);
    expect(value.note).toBe('NaN and Infinity, "NaN"');
    expect(value.NaN).toBe(-Infinity);
  });

  it('tells a quote that ends a string from an escaped one', () => {
    const value = parsePythonJson(String.raw`{"a": "say \"NaN\" here", "b": "ends in a backslash\\", "c": NaN}`);
    expect(value).toEqual({ a: 'say "NaN" here', b: 'ends in a backslash\\', c: NaN });
  });

  it('reads a token nested deeper than a recursive walk could go', () => {
    const depth = 50_000;
    let value = parsePythonJson(`${'['.repeat(depth)}NaN${']'.repeat(depth)}`);
    for (let level = 0; level < depth; level++) {
      expect(Array.isArray(value)).toBe(true);
      value = (value as unknown[])[0];
    }
    expect(value).toBeNaN();
  });

  it('gives undefined for text that is not JSON even so', () => {
    expect(parsePythonJson('{"a": nan}')).toBeUndefined();
    expect(parsePythonJson('{"a": NaNa}')).toBeUndefined();
    expect(parsePythonJson('not json')).toBeUndefined();
    expect(parsePythonJson('')).toBeUndefined();
  });

  it('takes plain JSON as JSON.parse does', () => {
    expect(parsePythonJson('{"a": 1, "b": [true, null]}')).toEqual({ a: 1, b: [true, null] });
  });
});
