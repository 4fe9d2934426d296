/** The hosted build: no source maps unless asked for (issue 13), the CSP in place. */
import { describe, expect, it } from 'vitest';
import config from '../../vite.config';

describe('vite build config', () => {
  it('ships no source maps by default', () => {
    expect(process.env.SOURCEMAP).not.toBe('1');
    expect(config.build?.sourcemap).toBe(false);
  });
});
