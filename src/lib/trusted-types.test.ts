import { describe, expect, it } from 'vitest';
import { allowSameOriginScriptUrl } from './trusted-types';

describe('the Trusted Types default policy', () => {
  const base = 'https://lens.example/app/index.html';
  const origin = 'https://lens.example';

  it('lets the app’s own worker chunk through', () => {
    expect(allowSameOriginScriptUrl('./assets/parser.worker-abc.js', base, origin)).toBe(
      'https://lens.example/app/assets/parser.worker-abc.js',
    );
  });

  it.each([
    'https://evil.example/x.js',
    '//evil.example/x.js',
    'data:text/javascript,alert(1)',
    'javascript:alert(1)',
    'http://lens.example/app/x.js',
  ])('refuses %s', (url) => {
    expect(() => allowSameOriginScriptUrl(url, base, origin)).toThrow(TypeError);
  });
});
