import { describe, expect, it } from 'vitest';
import { APP_TITLE, documentTitle } from './document-title';

describe('documentTitle', () => {
  it('names the open file first, then the app', () => {
    expect(documentTitle('model.safetensors')).toBe('model.safetensors — Safetensors Lens');
    expect(documentTitle('model.safetensors.index.json')).toBe('model.safetensors.index.json — Safetensors Lens');
  });
  it('is the app name alone when nothing is open', () => {
    expect(documentTitle(null)).toBe(APP_TITLE);
    expect(documentTitle('  ')).toBe(APP_TITLE);
  });
});
